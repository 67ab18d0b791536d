// First middleware of every request: a request id (the client's, when it sent a sane one), the
// X-Request-ID and X-API-Version headers on every response whatever its outcome, and, once the
// response is finished, one log line and one request log record.
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { API_VERSION, REQUEST_ID_PATTERN } from '@tlr/config';
import type { RequestLogSink } from '@tlr/api';
import type { Credential } from '@tlr/domain';

/** What every response carries, whatever its outcome (also those written before Express, client-error.ts). */
export function responseHeaders(requestId: string): Record<string, string> {
  return {
    'X-Request-ID': requestId,
    'X-API-Version': API_VERSION,
    // Security defaults: no MIME sniffing, no caching of books by intermediaries, HTTPS only (contract).
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
    'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
  };
}

export function requestContext(logger: Logger, requestLog: RequestLogSink) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    // Read now: by 'finish' a refused upload's socket may already be destroyed, and Express's
    // req.ip would then throw reading the socket's address.
    const ip = req.ip ?? null;
    const given = req.get('X-Request-ID');
    const requestId = given && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
    res.locals.requestId = requestId;
    for (const [name, value] of Object.entries(responseHeaders(requestId))) res.setHeader(name, value);
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const credential = res.locals.credential as Credential | undefined;
      const problem = res.locals.problem as { code: string; field?: string } | undefined;
      // The path without the query string: query values may carry personal data (lookup by e-mail).
      const path = req.originalUrl.split('?')[0]!;
      requestLog.record({
        request_id: requestId,
        actor_type: credential?.type ?? null,
        actor_id: credential?.id ?? null,
        company_id: credential?.companyId ?? null,
        method: req.method,
        path,
        status: res.statusCode,
        problem_code: problem?.code ?? null,
        duration_ms: durationMs,
        ip,
        created_at: new Date(),
      });
      logger.info(
        {
          request_id: requestId,
          method: req.method,
          path,
          status: res.statusCode,
          duration_ms: Math.round(durationMs * 10) / 10,
          ...(problem ? { code: problem.code, field: problem.field } : {}),
        },
        'request',
      );
    });
    next();
  };
}
