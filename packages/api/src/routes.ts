// The table of public endpoints, read from the procedures' OpenAPI meta: one source for the 404/405
// decision, the raw (streamed) routes of the HTTP shell, the discovery document and the OpenAPI
// post-processing.
import type { AnyProcedure } from '@trpc/server';
import type { z } from 'zod';
import type { ApiMeta } from './trpc.ts';
import { appRouter } from './root.ts';

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** OpenAPI path template, e.g. /customers/{id} */
  path: string;
  pattern: RegExp;
  /** The procedure's path in the router, e.g. exports.saft */
  procedure: string;
  /** The procedure itself (what the REST adapter calls and reads the input schema of). */
  target: AnyProcedure;
  meta: ApiMeta & { openapi: NonNullable<ApiMeta['openapi']> };
  /** Answered by an HTTP shell that streams (meta.raw, meta.streamedBody), not by the REST adapter. */
  raw: boolean;
  /** An empty request body is acceptable (no body, or a body whose every field is optional). */
  acceptsEmptyBody: boolean;
}

/**
 * Every answer of a route that sends a document as stored (meta.raw: a voucher, an invoice PDF, a SAF-T
 * file) carries these besides its own (decision 179): a browser that opens one inline runs it sandboxed,
 * so a stored HTML or SVG document runs no script. The HTTP shell sends them; the document declares them.
 */
export const RAW_DOWNLOAD_HEADERS = {
  'Content-Security-Policy': {
    value: 'sandbox',
    description: 'sandbox: opened in a browser, the document runs no script, submits no form and has an origin of its own',
  },
} as const;

/** A path template as a pattern whose named groups are its parameters (/customers/{id}: `id`). */
function compile(path: string): RegExp {
  const re = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '(?<$1>[^/]+)');
  return new RegExp(`^${re}/?$`);
}

const SAMPLE_ID = '00000000-0000-4000-8000-000000000000';
const SAMPLE_DATE = '2026-01-01';

/** Does the input accept an empty body, given only its path parameters? */
function acceptsEmptyBody(procedure: AnyProcedure, path: string): boolean {
  const parser = procedure._def.inputs[0] as z.ZodType | undefined;
  if (!parser) return true;
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  // A path parameter is an id, or a date (/fiscal-years/{start}/close).
  const sample = (value: string) => Object.fromEntries(names.map((n) => [n, value]));
  return parser.safeParse(undefined).success || parser.safeParse(sample(SAMPLE_ID)).success || parser.safeParse(sample(SAMPLE_DATE)).success;
}

// _def.procedures is flat at run time (path -> procedure), though typed as the nested router.
const procedures = appRouter._def.procedures as unknown as Record<string, AnyProcedure>;
export const routes: Route[] = Object.entries(procedures).flatMap(([procedure, p]) => {
  const meta = p._def.meta as ApiMeta | undefined;
  if (!meta?.openapi) return [];
  const { path, method } = meta.openapi;
  return [
    {
      method,
      path,
      pattern: compile(path),
      procedure,
      target: p,
      meta: { ...meta, openapi: meta.openapi },
      raw: Boolean(meta.raw || meta.streamedBody),
      acceptsEmptyBody: acceptsEmptyBody(p, path),
    },
  ];
});

/** A path's first segment ("customers" of /customers/{id}); the empty text for a template's parameter. */
const firstSegment = (path: string) => {
  const end = path.indexOf('/', 1);
  const segment = path.slice(1, end === -1 ? undefined : end);
  return segment.startsWith('{') ? '' : segment;
};

// The routes by first segment, so that a request tests the patterns of its own resource only (every
// request matches its route, and there are dozens); a route led by a parameter would be tried for all.
const routesBySegment = new Map<string, Route[]>();
for (const r of routes) routesBySegment.set(firstSegment(r.path), [...(routesBySegment.get(firstSegment(r.path)) ?? []), r]);
const anySegment = routesBySegment.get('') ?? [];

/** The route a request matches, and the methods its path accepts (empty: no such path). */
export function matchRoute(method: string, path: string): { route: Route | undefined; allowed: string[] } {
  const candidates = routesBySegment.get(firstSegment(path)) ?? [];
  const matching = (anySegment.length ? [...candidates, ...anySegment] : candidates).filter((r) => r.pattern.test(path));
  return { route: matching.find((r) => r.method === method), allowed: [...new Set(matching.map((r) => r.method))] };
}
