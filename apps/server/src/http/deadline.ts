// The overall bound on a request: if no answer has started after REQUEST_TIMEOUT_MS (a frozen or
// overloaded database), the client gets 503 with Retry-After instead of waiting on, and whatever the
// request was doing can no longer answer (its late write fails and is dropped by the error handler). A create may still commit after its 503; repeating it
// with the same Idempotency-Key is safe (it replays, or waits for the first to finish).
import type { NextFunction, Request, Response } from 'express';
import { BUSY_RETRY_AFTER, busyProblem, problem } from '@tlr/api';
import { sendProblem } from './problem-response.ts';

export function deadline(ms: number) {
  return (_req: Request, res: Response, next: NextFunction) => {
    const arm = (limit: number) => {
      const t = setTimeout(() => {
        if (res.headersSent) return;
        // Reading a document is CPU work, not a wait on the database: too long a read is the document's size, which a retry does not change (decision 476).
        const reading = (res.locals as { reading?: string }).reading;
        if (reading) {
          sendProblem(
            res,
            problem(
              'payload_too_large',
              `${reading} could not be read within ${limit / 1000} seconds, the most a request may take: it is too large to read in one request, and sending it again does not help.`,
              { field: 'body' },
            ),
          );
          return;
        }
        sendProblem(res, busyProblem(`No answer within ${limit / 1000} seconds; the database is slow or unreachable. Retry shortly.`), {
          'Retry-After': String(BUSY_RETRY_AFTER),
        });
      }, limit);
      t.unref();
      return t;
    };
    let timer = arm(ms);
    // A route whose work is long by nature (a 100,000-line bank statement) sets its own bound, from now.
    (res.locals as { extendDeadline?: (limit: number) => void }).extendDeadline = (limit) => {
      clearTimeout(timer);
      timer = arm(limit);
    };
    res.once('close', () => clearTimeout(timer));
    next();
  };
}

/** Gives the request `limit` ms from now instead of the common bound (a no-op where no deadline is set). */
export const extendDeadline = (res: Response, limit: number) => (res.locals as { extendDeadline?: (limit: number) => void }).extendDeadline?.(limit);

/**
 * Runs `work`, the reading of a document (CPU, not the database), with the request's deadline knowing it:
 * past the deadline the answer is 413 naming `what` ("The e-invoice"), not 503 about the database.
 */
export async function reading<T>(res: Response, what: string, work: () => Promise<T>): Promise<T> {
  const locals = res.locals as { reading?: string };
  locals.reading = what;
  try {
    return await work();
  } finally {
    delete locals.reading;
  }
}
