// The table of public endpoints, read from the procedures' OpenAPI meta plus the few plain Express
// routes (rawRoutes): one source for the 404/405 decision, the discovery document and the OpenAPI
// post-processing.
import type { Scope } from '@tlr/domain';
import type { ApiMeta } from './trpc.ts';
import { appRouter } from './root.ts';

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** OpenAPI path template, e.g. /customers/{id} */
  path: string;
  pattern: RegExp;
  meta: ApiMeta;
  /** Served by a plain Express handler, not by the tRPC adapter. */
  raw?: boolean;
}

export interface RawRoute {
  method: Route['method'];
  path: `/${string}`;
  scopes: Scope[];
  tags: string[];
  summary: string;
  description: string;
}

/**
 * Endpoints the REST adapter cannot serve (it always JSON-encodes): plain Express handlers in
 * apps/server, registered before the adapter. Their OpenAPI operations are in openapi.ts.
 */
export const rawRoutes: readonly RawRoute[] = [
  {
    method: 'GET',
    path: '/exports/saft',
    scopes: ['exports:read'],
    tags: ['Exports'],
    summary: 'SAF-T Financial export (XML)',
    description:
      'The Danish SAF-T Financial file (urn:StandardAuditFile-Taxation-Financial:DK) of the period from..to (inclusive; default the fiscal year containing today), streamed as an attachment.',
  },
];

/** The raw route with this method and path (it must exist). */
export function rawRoute(method: Route['method'], path: string): RawRoute {
  const r = rawRoutes.find((x) => x.method === method && x.path === path);
  if (!r) throw new Error(`no raw route ${method} ${path}`);
  return r;
}

function compile(path: string): RegExp {
  const re = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}|\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${re}/?$`);
}

const procedureRoutes: Route[] = Object.values(appRouter._def.procedures as unknown as Record<string, { _def: { meta?: ApiMeta } }>)
  .map((p) => p._def.meta)
  .filter((m): m is ApiMeta & { openapi: NonNullable<ApiMeta['openapi']> } => Boolean(m?.openapi))
  .map((meta) => ({ method: meta.openapi.method, path: meta.openapi.path, pattern: compile(meta.openapi.path), meta }));

export const routes: Route[] = [
  ...procedureRoutes,
  ...rawRoutes.map((r) => ({
    method: r.method,
    path: r.path,
    pattern: compile(r.path),
    meta: { openapi: { method: r.method, path: r.path, tags: r.tags, summary: r.summary, description: r.description }, scopes: r.scopes },
    raw: true,
  })),
];

/** The methods a path accepts; an empty list means no such path. */
export function allowedMethods(path: string): string[] {
  return [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
}
