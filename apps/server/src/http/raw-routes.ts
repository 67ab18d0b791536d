// The HTTP shells of the procedures whose answer is streamed (meta.raw: XML, raw bytes). Each shell
// calls its procedure first (the same validation, scope check and errors as every endpoint), then
// streams. Registered from the route table, before the REST adapter (which answers every path itself).
import type { Request, Response, Router } from 'express';
import type { Logger } from 'pino';
import { BUSY_RETRY_AFTER, createCaller, toProblem, type Caller, type Route } from '@tlr/api';
import type { Database } from '@tlr/db';
import type { Credential } from '@tlr/domain';
import { sendProblem } from './problem-response.ts';

/** `input`: the query parameters and path parameters, for the procedure to validate. */
export type RawHandler = (caller: Caller, input: Record<string, unknown>, res: Response) => Promise<void>;

const expressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

export function mountRawRoutes(api: Router, routes: readonly Route[], handlers: Record<string, RawHandler>, db: Database, logger: Logger): void {
  for (const route of routes.filter((r) => r.raw)) {
    const handler = handlers[route.procedure];
    if (!handler) throw new Error(`no HTTP shell for the raw route ${route.method} ${route.path} (${route.procedure})`);
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
    api[method](expressPath(route.path), async (req: Request, res: Response) => {
      const credential = res.locals.credential as Credential;
      // Audited by the HTTP layer like every REST request: the caller records nothing itself.
      const caller = createCaller(db, { type: 'credential', credential }, { requestId: res.locals.requestId as string, audit: null });
      try {
        await handler(caller, { ...req.query, ...req.params }, res);
      } catch (err) {
        const p = toProblem(err);
        if (p.status >= 500) logger.error({ err, request_id: res.locals.requestId, procedure: route.procedure }, 'procedure failed');
        if (!res.headersSent) sendProblem(res, p, p.status === 503 ? { 'Retry-After': String(BUSY_RETRY_AFTER) } : {});
      }
    });
  }
}
