// GET /api/v1/exports/saft: the HTTP shell of the exports.saft procedure, which validates the period,
// checks the scope and names the company; this streams the SAF-T file as an XML attachment (the REST
// adapter always JSON-encodes). Refusals are problem+json; once the first byte is out, a failure can
// only abort the connection, so the client never mistakes a truncated file for a whole one.
import type { Logger } from 'pino';
import { BUSY_RETRY_AFTER, busyProblem } from '@tlr/api';
import type { Database } from '@tlr/db';
import { exportSaft, SinkClosedError } from '@tlr/domain';
import { sendProblem } from './problem-response.ts';
import type { RawCall, RawHandler } from './raw-routes.ts';

/**
 * Exports in progress per process. Each holds one pooled connection (its snapshot) for as long as the
 * client reads, so more at once would starve the API of connections; the next one gets a 503.
 */
const MAX_CONCURRENT_EXPORTS = 2;

export function saftExport(db: Database, logger: Logger): RawHandler {
  let running = 0;
  return async ({ caller, input, res }: RawCall) => {
    const started = Date.now();
    const requestId = res.locals.requestId as string;
    const plan = await caller.exports.saft(input);
    if (running >= MAX_CONCURRENT_EXPORTS) {
      return sendProblem(res, busyProblem(`${MAX_CONCURRENT_EXPORTS} SAF-T exports are already being written; retry in a few seconds.`), {
        'Retry-After': String(BUSY_RETRY_AFTER),
      });
    }
    running += 1;
    res.once('close', () => (running -= 1));
    try {
      const result = await exportSaft(db.pool, plan, res, {
        onStart: ({ filename }) => {
          res.status(200);
          res.setHeader('Content-Type', 'application/xml; charset=utf-8');
          res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
        },
      });
      res.end();
      logger.info(
        {
          request_id: requestId,
          company_id: plan.companyId,
          ...result.period,
          transactions: result.transactions,
          lines: result.lines,
          chars: result.chars,
          duration_ms: Date.now() - started,
        },
        'SAF-T export written',
      );
    } catch (err) {
      if (!res.headersSent) throw err;
      if (err instanceof SinkClosedError) logger.warn({ request_id: requestId }, 'SAF-T export abandoned: the client disconnected');
      else logger.error({ err, request_id: requestId }, 'SAF-T export failed after streaming started: connection aborted');
      res.destroy(err as Error);
    }
  };
}
