// The table of public endpoints, read from the procedures' OpenAPI meta: one source for the 404/405
// decision, the discovery document and the OpenAPI post-processing.
import type { ApiMeta } from './trpc.ts';
import { appRouter } from './root.ts';

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** OpenAPI path template, e.g. /customers/{id} */
  path: string;
  pattern: RegExp;
  meta: ApiMeta;
}

function compile(path: string): RegExp {
  const re = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}|\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${re}/?$`);
}

export const routes: Route[] = Object.values(appRouter._def.procedures as unknown as Record<string, { _def: { meta?: ApiMeta } }>)
  .map((p) => p._def.meta)
  .filter((m): m is ApiMeta & { openapi: NonNullable<ApiMeta['openapi']> } => Boolean(m?.openapi))
  .map((meta) => ({ method: meta.openapi.method, path: meta.openapi.path, pattern: compile(meta.openapi.path), meta }));

/** The methods a path accepts; an empty list means no such path. */
export function allowedMethods(path: string): string[] {
  return [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
}
