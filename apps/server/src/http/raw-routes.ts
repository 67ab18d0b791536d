// The HTTP shells of the procedures that stream (meta.raw: XML, raw bytes out; meta.streamedBody: a
// large body in). Each shell calls its procedure (the same validation, scope check and errors as every
// endpoint) and streams around it. Taken from the route table, before the JSON body parser (an
// upload is read as a stream); the REST adapter (rest.ts) leaves raw routes to them.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { callerOf, RAW_DOWNLOAD_HEADERS, type ApiContext, type Caller, type Route } from '@tlr/api';
import { restContext, sendProcedureProblem, type ProcedureDeps } from './rest.ts';

export interface RawCall {
  req: Request;
  res: Response;
  /** The query parameters and path parameters, for the procedure to validate. */
  input: Record<string, unknown>;
  /** The procedure's context: a shell may hand it what it read (ctx.upload) and read ctx.response. */
  ctx: ApiContext;
  caller: Caller;
  /** The route matched, with its procedure's meta (its scopes). */
  route: Route;
}
export type RawHandler = (call: RawCall) => Promise<void>;

/**
 * One layer for all of them: the route was matched before authentication (route-guard.ts), so a raw
 * route's shell is looked up by its procedure rather than matched again by Express.
 */
export function rawRoutes(routes: readonly Route[], handlers: Record<string, RawHandler>, deps: ProcedureDeps & { logger: Logger }): RequestHandler {
  const { logger, ...procedureDeps } = deps;
  const shells = new Map<Route, RawHandler>();
  for (const route of routes.filter((r) => r.raw)) {
    const handler = handlers[route.procedure];
    if (!handler) throw new Error(`no HTTP shell for the raw route ${route.method} ${route.path} (${route.procedure})`);
    shells.set(route, handler);
  }
  return async (req: Request, res: Response, next: NextFunction) => {
    const route = res.locals.route as Route | undefined;
    const handler = route && shells.get(route);
    if (!route || !handler) return next();
    // A download's answers carry these whatever the outcome, set once here rather than by each shell.
    if (route.meta.raw) for (const [name, { value }] of Object.entries(RAW_DOWNLOAD_HEADERS)) res.setHeader(name, value);
    const ctx = restContext(procedureDeps, req, res);
    try {
      // Path parameters last, as the REST adapter does: a query parameter of the same name does not replace them.
      await handler({ req, res, input: { ...req.query, ...route.pattern.exec(req.path)?.groups }, ctx, caller: callerOf(ctx), route });
    } catch (err) {
      sendProcedureProblem(res, logger, route.procedure, err);
    }
  };
}
