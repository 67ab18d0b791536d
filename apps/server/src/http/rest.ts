// The REST adapter: runs the procedure of the route that routeGuard matched, with its input built by
// trpc-to-openapi's rules (the query string or the JSON body, then the path parameters; query values
// converted to the schema's numbers, booleans and arrays), and writes its answer or its problem.
//
// It stands in for trpc-to-openapi's own request handler, whose paths, methods and OpenAPI document it
// keeps: that handler matched the route a second time and, on every request, walked the input schema
// to switch on coercion, built a fetch Request only to take its abort signal (no procedure reads one)
// and a caller proxy, and wrote a tRPC error shape that had to be rewritten into the problem. Here the
// per-route work is done once, at start (docs/history/perf-log.md, decision 146).
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { callTRPCProcedure, getTRPCErrorFromUnknown } from '@trpc/server';
import {
  coerceSchema,
  getInputOutputParsers,
  instanceofZodTypeKind,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  instanceofZodTypeOptional,
  unwrapZodType,
} from 'trpc-to-openapi';
import { appRouter, BUSY_RETRY_AFTER, callerContext, routes, toProblem, type ApiContext, type CallerOptions, type Route } from '@tlr/api';
import type { Database } from '@tlr/db';
import { toCsv, type Credential, type Prefetched } from '@tlr/domain';
import { sendProblem } from './problem-response.ts';

type ZodType = Parameters<typeof instanceofZodTypeKind>[0];

/** How a route's input is built from the request, worked out once. */
interface InputPlan {
  /** false: the procedure takes no input (void), and gets none. */
  takesInput: boolean;
  /** GET and DELETE read the query string; the other methods the JSON body. */
  fromQuery: boolean;
  /** Query parameters the schema wants as arrays: a single value is wrapped. */
  arrays: ReadonlySet<string>;
}

function plan(route: Route): InputPlan {
  const fromQuery = route.method === 'GET' || route.method === 'DELETE';
  const schema = unwrapZodType(getInputOutputParsers(route.target).inputParser, true);
  const arrays = new Set<string>();
  if (fromQuery && instanceofZodTypeObject(schema)) {
    // Query strings are text by nature; JSON bodies are not converted (decision 12).
    coerceSchema(schema);
    // An array, or an optional array (as trpc-to-openapi looks for them).
    for (const [key, field] of Object.entries(schema.shape as Record<string, ZodType>)) {
      const inner = instanceofZodTypeOptional(field) ? (field as ZodType & { unwrap(): ZodType }).unwrap() : field;
      if (instanceofZodTypeKind(inner, 'array')) arrays.add(key);
    }
  }
  return { takesInput: !instanceofZodTypeLikeVoid(schema), fromQuery, arrays };
}

/** The query parameters as trpc-to-openapi hands them over: empty values left out, one value unwrapped. */
function queryInput(query: Request['query'], arrays: ReadonlySet<string>): Record<string, unknown> {
  // Without a prototype, `?__proto__=x` is a parameter like any other (and refused as unknown), not a
  // prototype assignment that would drop it unseen.
  const input: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of Object.entries(query)) {
    if (!value) continue;
    const one = Array.isArray(value) && value.length === 1 ? value[0] : value;
    // name[key]=value (dimension[Projekt]=A, decision 582) is the key of an object parameter `name`;
    // a plain parameter of that name wins, and the schema refuses what it does not know.
    const nested = /^([a-z_]+)\[([^\]]+)\]$/.exec(key);
    if (nested) {
      const [, name, inner] = nested as unknown as [string, string, string];
      const obj = input[name] ?? (input[name] = Object.create(null) as Record<string, unknown>);
      if (typeof obj === 'object' && obj !== null && !Array.isArray(obj)) (obj as Record<string, unknown>)[inner] = one;
      continue;
    }
    input[key] = arrays.has(key) && !Array.isArray(one) ? [one] : one;
  }
  return input;
}

export interface ProcedureDeps extends Pick<CallerOptions, 'store' | 'webhooks' | 'jobs' | 'skat'> {
  db: Database;
}

/**
 * A REST request's procedure context: its credential, request id, Idempotency-Key and the read that rode
 * on its authentication; in the request log by the HTTP layer.
 */
export function restContext(deps: ProcedureDeps, req: Request, res: Response): ApiContext {
  const { db, ...services } = deps;
  return callerContext(
    db,
    { type: 'credential', credential: res.locals.credential as Credential },
    {
      requestId: res.locals.requestId as string,
      requestLog: null,
      idempotencyKey: req.get('Idempotency-Key'),
      prefetched: res.locals.prefetched as Prefetched | undefined,
      ...services,
    },
  );
}

/** Writes a procedure's failure as its problem (503 with Retry-After), logging what is the service's fault. */
export function sendProcedureProblem(res: Response, logger: Logger, procedure: string, err: unknown): void {
  const p = toProblem(err);
  if (p.status >= 500) logger.error({ err: (err as { cause?: unknown }).cause ?? err, procedure, request_id: res.locals.requestId }, 'procedure failed');
  if (!res.headersSent) sendProblem(res, p, p.status === 503 ? { 'Retry-After': String(BUSY_RETRY_AFTER) } : {});
}

export function restAdapter({ logger, ...deps }: ProcedureDeps & { logger: Logger }) {
  const plans = new Map(routes.filter((r) => !r.raw).map((r) => [r, plan(r)]));
  return async (req: Request, res: Response, next: NextFunction) => {
    const route = res.locals.route as Route | undefined;
    const inputPlan = route && plans.get(route);
    if (!route || !inputPlan) return next();
    try {
      // Path parameters last: a query or body field of the same name does not replace them.
      const input = inputPlan.takesInput
        ? { ...(inputPlan.fromQuery ? queryInput(req.query, inputPlan.arrays) : (req.body as object)), ...route.pattern.exec(req.path)?.groups }
        : undefined;
      const ctx = restContext(deps, req, res);
      // A report that has a CSV form gives it to a client that prefers text/csv (decision 545).
      const csv = route.meta.csv && req.accepts(['application/json', 'text/csv']) === 'text/csv' ? route.meta.csv : undefined;
      if (route.meta.csv) res.setHeader('Vary', 'Accept');
      if (csv) ctx.format = 'csv';
      const data = await callTRPCProcedure({
        router: appRouter,
        path: route.procedure,
        type: route.target._def.type,
        ctx,
        getRawInput: async () => input,
        signal: undefined,
        batchIndex: 0,
      });
      // The deadline (deadline.ts) may have answered 503 meanwhile: that answer stands.
      if (res.headersSent) return;
      res.statusCode = ctx.response.status ?? 200;
      if (csv) {
        const table = csv(data as never);
        res.setHeader('Content-Type', 'text/csv; charset=utf-8; header=present');
        res.setHeader('Content-Disposition', `attachment; filename="${table.filename}"`);
        res.setHeader('Cache-Control', 'private, no-store');
        res.end(toCsv(table));
        return;
      }
      res.setHeader('Content-Type', 'application/json');
      for (const [name, value] of Object.entries(ctx.response.headers)) res.setHeader(name, value);
      res.end(JSON.stringify(data));
    } catch (err) {
      sendProcedureProblem(res, logger, route.procedure, getTRPCErrorFromUnknown(err));
    }
  };
}
