// The Express application: what the tRPC adapter cannot do itself (request ids, CORS, 404/405,
// authentication and rate limits, body limits, the public documents) around the REST adapter.
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { createOpenApiExpressMiddleware } from 'trpc-to-openapi';
import { appRouter, BUSY_RETRY_AFTER, busyProblem, internalProblem, openApiDocument, problem, PROBLEM_CONTENT_TYPE, toProblem, type ApiContext } from '@tlr/api';
import type { Database } from '@tlr/db';
import type { AuditLog } from './audit.ts';
import { authenticate } from './http/authenticate.ts';
import { cors } from './http/cors.ts';
import { discovery } from './http/discovery.ts';
import { emptyBody } from './http/empty-body.ts';
import { problemBodies } from './http/problem-bodies.ts';
import { sendProblem } from './http/problem-response.ts';
import { requestContext } from './http/request-context.ts';
import { routeGuard, routeGuardAnonymous } from './http/route-guard.ts';
import { saftExport } from './http/saft.ts';

/** Request bodies other than voucher uploads (those get their own, larger, limit). */
export const JSON_BODY_LIMIT = '1mb';

export interface AppDeps {
  db: Database;
  logger: Logger;
  audit: AuditLog;
  /** Answers /readyz: false while starting or shutting down. */
  isReady: () => boolean;
}

export function createApp({ db, logger, audit, isReady }: AppDeps) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', 'loopback');
  app.set('query parser', 'simple');

  app.use(requestContext(logger, audit));
  app.use(cors);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const dbOk = await db.pool.query('SELECT 1').then(() => true, () => false);
    const ready = isReady() && dbOk;
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', database: dbOk ? 'ok' : 'unreachable' });
  });

  const api = express.Router();
  api.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument());
  });
  api.get('/', discovery);
  api.use(routeGuardAnonymous);
  api.use(authenticate(db.pool));
  api.use(routeGuard);
  // Plain Express routes (rawRoutes in @tlr/api), before the adapter: it answers every path itself.
  api.get('/exports/saft', saftExport(db, logger));
  api.use(express.json({ limit: JSON_BODY_LIMIT, type: ['application/json', 'application/*+json'] }));
  api.use(emptyBody);
  api.use(problemBodies);
  api.use(
    createOpenApiExpressMiddleware({
      router: appRouter,
      createContext: ({ req, res }): ApiContext => ({
        db,
        credential: res.locals.credential ?? null,
        requestId: res.locals.requestId,
        headers: req.headers,
        response: { headers: {} },
      }),
      responseMeta: ({ ctx, errors }) => {
        if (errors.length) {
          const p = toProblem(errors[0]);
          const retry = p.status === 503 ? { 'Retry-After': String(BUSY_RETRY_AFTER) } : {};
          return { status: p.status, headers: { 'Content-Type': PROBLEM_CONTENT_TYPE, ...retry } };
        }
        const response = (ctx as ApiContext | undefined)?.response;
        return { status: response?.status ?? 200, headers: response?.headers ?? {} };
      },
      onError: ({ error, path, req }) => {
        if (toProblem(error).status >= 500) {
          const requestId = (req as Request).res?.locals.requestId;
          logger.error({ err: error.cause ?? error, procedure: path, request_id: requestId }, 'procedure failed');
        }
      },
    }),
  );
  app.use('/api/v1', api);

  app.use((req: Request, res: Response) => {
    sendProblem(res, problem(404, 'not_found', 'Not found', `No endpoint ${req.path} exists. The API lives under /api/v1.`));
  });

  // Errors raised by Express middleware (body parsing, authentication's database call).
  app.use((err: Error & { type?: string; status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) return;
    if (err.type === 'entity.too.large') {
      return sendProblem(res, problem(413, 'payload_too_large', 'Payload too large', `The request body exceeds ${JSON_BODY_LIMIT}.`));
    }
    if (err.type === 'entity.parse.failed') {
      return sendProblem(res, problem(400, 'invalid_request', 'Invalid request', `The request body is not valid JSON: ${err.message}`, { field: 'body' }));
    }
    if (err.status && err.status >= 400 && err.status < 500) {
      return sendProblem(res, problem(err.status, 'invalid_request', 'Invalid request', err.message));
    }
    logger.error({ err, request_id: res.locals.requestId }, 'unhandled error');
    if (databaseUnavailable(err)) {
      return sendProblem(res, busyProblem('The database is unreachable for the moment; retry shortly.'), { 'Retry-After': String(BUSY_RETRY_AFTER) });
    }
    sendProblem(res, internalProblem());
  });
  return app;
}

// Connection-level failures of PostgreSQL (refused, reset, shutting down, too many connections, pool
// timeout): the request can be retried, so 503 rather than 500.
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '53300']);
function databaseUnavailable(err: Error & { code?: string }): boolean {
  return UNAVAILABLE_CODES.has(err.code ?? '') || /timeout exceeded when trying to connect|Connection terminated/i.test(err.message);
}
