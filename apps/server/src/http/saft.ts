// GET /api/v1/exports/saft and /exports/archive: the HTTP shells of the exports procedures, which check
// the scopes, validate the parameters and name the company; these stream the SAF-T file (XML) and the
// leaving archive (zip) as attachments (the REST adapter always JSON-encodes). Refusals are
// problem+json; once the first byte is out, a failure can only abort the connection, so the client
// never mistakes a truncated file for a whole one.
import type { Response } from 'express';
import type { Logger } from 'pino';
import { BUSY_RETRY_AFTER, busyProblem } from '@tlr/api';
import type { Database } from '@tlr/db';
import { exportArchive, exportSaft, SinkClosedError, type VoucherStore } from '@tlr/domain';
import { sendProblem } from './problem-response.ts';
import type { RawCall, RawHandler } from './raw-routes.ts';

/**
 * Exports in progress per process, per kind. Each holds one pooled connection (its snapshot) for as
 * long as the client reads, so more at once would starve the API of connections; the next one gets a 503.
 */
const MAX_CONCURRENT_EXPORTS = 2;

interface StreamedExport<Plan> {
  /** "SAF-T export", "archive": for the 503 and the log lines. */
  what: string;
  /** The procedure: scopes, parameters, the company. */
  plan(call: RawCall): Promise<Plan>;
  /** Writes the export to res, calling start(contentType, filename) before its first byte; returns what to log. */
  write(res: Response, plan: Plan, start: (contentType: string, filename: string) => void, signal: AbortSignal): Promise<Record<string, unknown>>;
}

/** The shell both exports share: the concurrency limit, the headers, the log lines and the abort after the first byte. */
function streamedExport<Plan>(logger: Logger, { what, plan, write }: StreamedExport<Plan>): RawHandler {
  let running = 0;
  return async (call: RawCall) => {
    const { res } = call;
    const started = Date.now();
    const requestId = res.locals.requestId as string;
    const planned = await plan(call);
    if (running >= MAX_CONCURRENT_EXPORTS) {
      return sendProblem(res, busyProblem(`${MAX_CONCURRENT_EXPORTS} ${what}s are already being written; retry in a few seconds.`), {
        'Retry-After': String(BUSY_RETRY_AFTER),
      });
    }
    running += 1;
    const gone = new AbortController();
    res.once('close', () => {
      running -= 1;
      if (!res.writableFinished) gone.abort(new SinkClosedError('the client disconnected'));
    });
    try {
      const logged = await write(res, planned, (contentType, filename) => startAttachment(res, contentType, filename), gone.signal);
      res.end();
      logger.info({ request_id: requestId, ...logged, duration_ms: Date.now() - started }, `${what} written`);
    } catch (err) {
      if (!res.headersSent) throw err;
      if (err instanceof SinkClosedError)
        logger.warn({ request_id: requestId, reason: err.message }, `${what} abandoned: the client disconnected or stopped reading`);
      else logger.error({ err, request_id: requestId }, `${what} failed after streaming started: connection aborted`);
      res.destroy(err as Error);
    }
  };
}

function startAttachment(res: Response, contentType: string, filename: string) {
  res.status(200);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
}

export function saftExport(db: Database, logger: Logger): RawHandler {
  return streamedExport(logger, {
    what: 'SAF-T export',
    plan: ({ caller, input }) => caller.exports.saft(input),
    write: async (res, plan, start) => {
      const result = await exportSaft(db.pool, plan, res, { onStart: ({ filename }) => start('application/xml; charset=utf-8', filename) });
      return { company_id: plan.companyId, ...result.period, transactions: result.transactions, lines: result.lines, chars: result.chars };
    },
  });
}

export function archiveExport(db: Database, logger: Logger, store: VoucherStore | undefined): RawHandler {
  return streamedExport(logger, {
    what: 'archive',
    // Strict: a from or to (as the SAF-T export takes) is refused by name, not ignored.
    plan: ({ caller, input }) => caller.exports.archive(input as Record<string, never>),
    write: async (res, plan, start, signal) => {
      // The procedure refused already (503) when the server has no voucher store.
      if (!store) throw new Error('voucher storage is not configured');
      const result = await exportArchive(db.pool, store, plan.companyId, res, {
        signal,
        onStart: ({ filename }) => start('application/zip', filename),
      });
      // Not a refusal: the owner gets every byte there is, and the operator hears of what was lost.
      if (result.missing.length || result.altered.length) {
        logger.error(
          { request_id: res.locals.requestId, company_id: plan.companyId, missing: result.missing, altered: result.altered },
          'archive written with vouchers missing from the store or altered since upload',
        );
      }
      return { company_id: plan.companyId, ...result.period, vouchers: result.vouchers, bytes: result.bytes };
    },
  });
}
