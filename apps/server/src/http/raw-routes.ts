// The HTTP shells of the procedures that stream (meta.raw: XML, raw bytes out; meta.streamedBody: a
// large body in). Each shell calls its procedure (the same validation, scope check and errors as every
// endpoint) and streams around it. Registered from the route table, before the JSON body parser (an
// upload is read as a stream); the REST adapter (rest.ts) leaves raw routes to them.
import type { Request, Response, Router } from 'express';
import type { Logger } from 'pino';
import { callerOf, type ApiContext, type Caller, type Route } from '@tlr/api';
import { restContext, sendProcedureProblem, type ProcedureDeps } from './rest.ts';

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

export function mountRawRoutes(api: Router, routes: readonly Route[], handlers: Record<string, RawHandler>, deps: ProcedureDeps & { logger: Logger }): void {
  const { logger, ...procedureDeps } = deps;
  for (const route of routes.filter((r) => r.raw)) {
    const handler = handlers[route.procedure];
    if (!handler) throw new Error(`no HTTP shell for the raw route ${route.method} ${route.path} (${route.procedure})`);
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
    api[method](expressPath(route.path), async (req: Request, res: Response) => {
      const ctx = restContext(procedureDeps, req, res);
      try {
        await handler({ req, res, input: { ...req.query, ...req.params }, ctx, caller: callerOf(ctx) });
      } catch (err) {
        sendProcedureProblem(res, logger, route.procedure, err);
      }
    });
  }
}
