// Procedure factories for the REST shape every resource shares: list, get, create, update, delete.
// Each builds one typed tRPC procedure with its OpenAPI meta and scope; the pipeline (trpc.ts) gives
// it the caller's company, a transaction for writes and the Idempotency-Key for creates, so resources
// only add domain calls. What every endpoint of a kind does is described here, once, for the document.
import { z } from 'zod';
import type { Db, Queryable } from '@tlr/db';
import { primed, type CompanyScope, type ListParams, type ListSpec, type Page, type ReadAlong, type ReadById, type Scope } from '@tlr/domain';
import { deleted, list, single } from './schemas/envelopes.ts';
import { uuid } from '@tlr/domain/fields';
import { listQuery } from './schemas/list-query.ts';
import type { Route } from './routes.ts';
import type { Tag } from './tags.ts';
import { authedProcedure, type ApiMeta } from './trpc.ts';

type Path = `/${string}`;
interface Common {
  path: Path;
  tag: Tag;
  summary: string;
  /** What this endpoint adds to the description every endpoint of its kind gets (below). */
  description?: string;
  /** The scope, or all the scopes, the endpoint needs (the voucher endpoints need read and write). */
  scope: Scope | readonly Scope[];
  /** Problem statuses beyond the common ones, for the OpenAPI document (e.g. 409, 422). */
  problems?: number[];
}

/** The kind's description first, then the endpoint's own; paragraphs in the rendered reference. */
const described = <O extends Common>(o: O, kind: string): O => ({ ...o, description: [kind, o.description].filter(Boolean).join('\n\n') });
/** "the company's customers": the tag names the collection. */
const collection = (o: Common) => `the company's ${o.tag.toLowerCase()}`;
const notFound = (o: Common) => `An id that is not one of ${collection(o)} (another company's included) answers 404 not_found.`;

export const metaOf = (o: Common, method: 'GET' | 'POST' | 'PUT' | 'DELETE', extra: Partial<ApiMeta> = {}): ApiMeta => ({
  openapi: { method, path: o.path, tags: [o.tag], summary: o.summary, ...(o.description ? { description: o.description } : {}) },
  scopes: typeof o.scope === 'string' ? [o.scope] : [...o.scope],
  ...(o.problems ? { problems: o.problems } : {}),
  ...extra,
});

/**
 * { data: resource } typed by the resource's input side: what the domain returns is what the output
 * schema validates. (tRPC types a resolver's result by its output schema's input type, which TypeScript
 * cannot compute for the generic R; the schema itself is single(r).)
 */
const envelope = <R extends z.ZodType>(r: R) => single(r) as unknown as z.ZodType<{ data: z.output<R> }, { data: z.input<R> }>;

const idParam = z.object({ id: uuid().meta({ description: 'The resource id (UUID)' }) });

export function listEndpoint<Q extends z.ZodObject, R extends z.ZodType>(
  o: Common & {
    spec: ListSpec;
    searchDescription: string;
    /** Filters beyond the contract's list parameters. */
    filters?: Q;
    resource: R;
    run: (db: Db, scope: CompanyScope, q: ListParams & z.output<Q>) => Promise<Page<z.input<R>>>;
  },
) {
  const base = listQuery(o.spec, o.searchDescription);
  const query = o.filters ? base.extend(o.filters.shape) : base;
  const kind = [
    `One page of ${collection(o)}: \`data\` holds the items, \`meta\` the page, per_page, total and total_pages; iterate pages until page equals total_pages.`,
    `Sorted by ${o.spec.defaultSort} unless \`sort\` names another field, descending unless \`order\` is asc; ties are broken by id, so paging never repeats or skips an item.`,
    `since and until (inclusive) filter on the ${o.spec.dateDescription}.`,
    ...(o.spec.statuses ? [`status filters on one of ${o.spec.statuses.join(', ')}.`] : []),
  ].join(' ');
  return authedProcedure
    .meta(metaOf(described(o, kind), 'GET'))
    .input(query)
    .output(list(o.resource))
    .query(({ ctx, input }) => o.run(ctx.tx, ctx.scope, input as ListParams & z.output<Q>));
}

export function getEndpoint<R extends z.ZodType>(
  o: Common & {
    resource: R;
    run: (db: Db, scope: CompanyScope, id: string, sql: Queryable) => Promise<z.input<R>>;
    /** The SQL `run` reads with, when it can ride on the authentication statement (decision 148). */
    byId?: ReadById;
  },
) {
  return authedProcedure
    .meta(metaOf(described(o, notFound(o)), 'GET', o.byId ? { byId: o.byId } : {}))
    .input(idParam)
    .output(envelope(o.resource))
    .query(async ({ ctx, input }) => ({ data: await o.run(ctx.tx, ctx.scope, input.id, primed(ctx.db.pool, ctx.prefetched)) }));
}

/**
 * The read a request on `route` can run along with its authentication: for a GET by id that declares
 * one, when the path's id passes the endpoint's own input rule (an invalid id gets its 400 from the
 * procedure, after authentication as always).
 */
export function readAlong(route: Route | undefined, path: string): ReadAlong | undefined {
  if (!route?.meta.byId) return undefined;
  const parsed = idParam.safeParse(route.pattern.exec(path)?.groups);
  return parsed.success ? { read: route.meta.byId, id: parsed.data.id } : undefined;
}

export function createEndpoint<B extends z.ZodObject, R extends z.ZodType>(
  o: Common & { body: B; resource: R; run: (tx: Db, scope: CompanyScope, input: z.output<B>) => Promise<z.input<R>> },
) {
  return authedProcedure
    .meta(metaOf(o, 'POST', { idempotent: { status: 201 } }))
    .input(o.body)
    .output(envelope(o.resource))
    .mutation(async ({ ctx, input }) => ({ data: await o.run(ctx.tx, ctx.scope, input as z.output<B>) }));
}

export function updateEndpoint<B extends z.ZodObject, R extends z.ZodType>(
  o: Common & { body: B; resource: R; run: (tx: Db, scope: CompanyScope, id: string, input: z.output<B>) => Promise<z.input<R>> },
) {
  // Decision 28: PUT is a partial update.
  const kind = `A partial update: fields left out keep their value; null clears an optional text field. ${notFound(o)}`;
  return authedProcedure
    .meta(metaOf(described(o, kind), 'PUT'))
    .input(o.body.extend(idParam.shape))
    .output(envelope(o.resource))
    .mutation(async ({ ctx, input }) => {
      // The body schema extended with the path's id: the rest is the body's output.
      const { id, ...fields } = input as { id: string } & z.output<B>;
      return { data: await o.run(ctx.tx, ctx.scope, id, fields as z.output<B>) };
    });
}

export function deleteEndpoint(o: Common & { run: (tx: Db, scope: CompanyScope, id: string) => Promise<{ id: string; deleted: true }> }) {
  const kind = `Answers the delete envelope \`{ data: { id, deleted: true } }\`; the id is not listed or found again. ${notFound(o)}`;
  return authedProcedure
    .meta(metaOf(described(o, kind), 'DELETE'))
    .input(idParam)
    .output(deleted)
    .mutation(async ({ ctx, input }) => ({ data: await o.run(ctx.tx, ctx.scope, input.id) }));
}
