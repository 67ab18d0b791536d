// The overall bound on a request: if no answer has started after REQUEST_TIMEOUT_MS (a frozen or
// overloaded database), the client gets 503 with Retry-After instead of waiting on, and whatever the
// request was doing can no longer answer (its late write fails and is dropped by the error handler). A create may still commit after its 503; repeating it
// with the same Idempotency-Key is safe (it replays, or waits for the first to finish).
import type { NextFunction, Request, Response } from 'express';
import { BUSY_RETRY_AFTER, busyProblem } from '@tlr/api';
import { sendProblem } from './problem-response.ts';

export function deadline(ms: number) {
  return (_req: Request, res: Response, next: NextFunction) => {
    const arm = (limit: number) => {
      const t = setTimeout(() => {
        if (res.headersSent) return;
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
