// The HTTP shells of the procedures that stream (meta.raw: XML, raw bytes out; meta.streamedBody: a
// large body in). Each shell calls its procedure (the same validation, scope check and errors as every
// endpoint) and streams around it. Registered from the route table, before the REST adapter (which
// answers every path itself) and before the JSON body parser.
import type { Request, Response, Router } from 'express';
import type { Logger } from 'pino';
import { BUSY_RETRY_AFTER, callerContext, callerOf, toProblem, type ApiContext, type Caller, type Route } from '@tlr/api';
import type { Database } from '@tlr/db';
import type { Credential, VoucherStore } from '@tlr/domain';
import { sendProblem } from './problem-response.ts';

export interface RawCall {
  req: Request;
  res: Response;
  /** The query parameters and path parameters, for the procedure to validate. */
  input: Record<string, unknown>;
  /** The procedure's context: a shell may hand it what it read (ctx.upload) and read ctx.response. */
  ctx: ApiContext;
  caller: Caller;
}
export type RawHandler = (call: RawCall) => Promise<void>;

const expressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

export function mountRawRoutes(
  api: Router,
  routes: readonly Route[],
  handlers: Record<string, RawHandler>,
  deps: { db: Database; logger: Logger; store: VoucherStore | undefined },
): void {
  const { db, logger, store } = deps;
  for (const route of routes.filter((r) => r.raw)) {
    const handler = handlers[route.procedure];
    if (!handler) throw new Error(`no HTTP shell for the raw route ${route.method} ${route.path} (${route.procedure})`);
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
    api[method](expressPath(route.path), async (req: Request, res: Response) => {
      const credential = res.locals.credential as Credential;
      // Audited by the HTTP layer like every REST request: the caller records nothing itself.
      const ctx = callerContext(
        db,
        { type: 'credential', credential },
        { requestId: res.locals.requestId as string, audit: null, idempotencyKey: req.get('Idempotency-Key'), ...(store ? { store } : {}) },
      );
      try {
        await handler({ req, res, input: { ...req.query, ...req.params }, ctx, caller: callerOf(ctx) });
      } catch (err) {
        const p = toProblem(err);
        if (p.status >= 500) logger.error({ err, request_id: res.locals.requestId, procedure: route.procedure }, 'procedure failed');
        if (!res.headersSent) sendProblem(res, p, p.status === 503 ? { 'Retry-After': String(BUSY_RETRY_AFTER) } : {});
      }
    });
  }
}
