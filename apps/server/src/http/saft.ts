// GET /api/v1/exports/saft: the SAF-T file as a streamed XML attachment. A plain Express route
// because the REST adapter always JSON-encodes. Refusals (scope, parameters) are problem+json; once
// the first byte is out, a failure can only abort the connection, so the client never mistakes a
// truncated file for a whole one.
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { BUSY_RETRY_AFTER, busyProblem, rawRoute, requireScopes, saftQuery, toProblem, validationProblem } from '@tlr/api';
import type { Database } from '@tlr/db';
import { exportSaft, SinkClosedError, type Credential } from '@tlr/domain';
import { sendProblem } from './problem-response.ts';

const route = rawRoute('GET', '/exports/saft');

/**
 * Exports in progress per process. Each holds one pooled connection (its snapshot) for as long as the
 * client reads, so more at once would starve the API of connections; the next one gets a 503.
 */
export const MAX_CONCURRENT_EXPORTS = 2;

export function saftExport(db: Database, logger: Logger) {
  let running = 0;
  return async (req: Request, res: Response) => {
    const started = Date.now();
    const requestId = res.locals.requestId as string;
    try {
      const credential = requireScopes(res.locals.credential as Credential | undefined, route.scopes);
      const query = saftQuery.safeParse(req.query);
      if (!query.success) return sendProblem(res, validationProblem(query.error.issues, 'query'));
      if (running >= MAX_CONCURRENT_EXPORTS) {
        return sendProblem(res, busyProblem(`${MAX_CONCURRENT_EXPORTS} SAF-T exports are already being written; retry in a few seconds.`), {
          'Retry-After': String(BUSY_RETRY_AFTER),
        });
      }
      running += 1;
      res.once('close', () => (running -= 1));
      const result = await exportSaft(db.pool, { companyId: credential.companyId, ...query.data }, res, {
        onStart: ({ filename }) => {
          res.status(200);
          res.setHeader('Content-Type', 'application/xml; charset=utf-8');
          res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
        },
      });
      res.end();
      logger.info(
        { request_id: requestId, company_id: credential.companyId, ...result.period, transactions: result.transactions, lines: result.lines, chars: result.chars, duration_ms: Date.now() - started },
        'SAF-T export written',
      );
    } catch (err) {
      if (!res.headersSent) {
        const p = toProblem(err);
        if (p.status >= 500) logger.error({ err, request_id: requestId }, 'SAF-T export failed');
        return sendProblem(res, p);
      }
      if (err instanceof SinkClosedError) logger.warn({ request_id: requestId }, 'SAF-T export abandoned: the client disconnected');
      else logger.error({ err, request_id: requestId }, 'SAF-T export failed after streaming started: connection aborted');
      res.destroy(err as Error);
    }
  };
}

