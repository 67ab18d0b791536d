// tRPC initialisation: the context and meta types, the problem-shaped error formatter, and the
// procedure bases (public, authenticated with scope checks).
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { Scope } from '@tlr/domain';
import type { ApiContext } from './context.ts';
import { toProblem, type Problem } from './problem.ts';
import { requireScopes } from './scopes.ts';

export interface ApiMeta extends OpenApiMeta {
  /** Every scope listed is required (the voucher endpoints need both voucher scopes). */
  scopes?: Scope[];
  /** A create POST: answers 201 and requires an Idempotency-Key. */
  create?: boolean;
  /** Problem statuses beyond the common ones that the endpoint can answer (OpenAPI only). */
  problems?: number[];
}

const t = initTRPC
  .context<ApiContext>()
  .meta<ApiMeta>()
  .create({
    // The REST adapter spreads this shape into its error body; the server rewrites the body to the
    // problem alone (see apps/server problem-bodies), so the problem is computed here, once.
    errorFormatter: ({ error }): { problem: Problem } & Record<string, unknown> => ({ problem: toProblem(error) }),
  });

export const router = t.router;
export const middleware = t.middleware;
export const publicProcedure = t.procedure;

export const authedProcedure = t.procedure.use(({ ctx, meta, next }) => {
  const credential = requireScopes(ctx.credential, meta?.scopes ?? []);
  return next({ ctx: { ...ctx, credential } });
});
