// Procedure factories for the REST shape every resource shares: list, get, create, update, delete.
// Each builds one typed tRPC procedure with its OpenAPI meta and scope; resources only add domain calls.
import { z } from 'zod';
import type { CompanyScope, ListParams, Page, Scope } from '@tlr/domain';
import type { Db } from '@tlr/db';
import { companyScope } from './context.ts';
import { idempotentCreate, inTransaction } from './idempotent.ts';
import { deleted, list, single } from './schemas/envelopes.ts';
import { uuid } from './schemas/fields.ts';
import { authedProcedure, type ApiMeta } from './trpc.ts';

type Path = `/${string}`;
interface Common {
  path: Path;
  tag: string;
  summary: string;
  description?: string;
  scope: Scope;
  /** Problem statuses beyond the common ones, for the OpenAPI document (e.g. 409, 422). */
  problems?: number[];
}

const metaOf = (o: Common, method: 'GET' | 'POST' | 'PUT' | 'DELETE', extra: Partial<ApiMeta> = {}): ApiMeta => ({
  openapi: { method, path: o.path, tags: [o.tag], summary: o.summary, description: o.description },
  scopes: [o.scope],
  ...(o.problems ? { problems: o.problems } : {}),
  ...extra,
});

// Typed as the resource's input side: what the domain returns is what the output schema validates.
const envelope = <R extends z.ZodType>(r: R) => single(r) as unknown as z.ZodType<{ data: z.input<R> }>;

const idParam = z.object({ id: uuid().meta({ description: 'The resource id (UUID)' }) });

export function listEndpoint<Q extends z.ZodObject, R extends z.ZodType>(
  o: Common & { query: Q; resource: R; run: (db: Db, scope: CompanyScope, q: ListParams & z.output<Q>) => Promise<Page<z.input<R>>> },
) {
  return authedProcedure
    .meta(metaOf(o, 'GET'))
    .input(o.query)
    .output(list(o.resource))
    .query(({ ctx, input }) => o.run(ctx.db.prisma, companyScope(ctx), input as ListParams & z.output<Q>));
}

export function getEndpoint<R extends z.ZodType>(
  o: Common & { resource: R; run: (db: Db, scope: CompanyScope, id: string) => Promise<z.input<R>> },
) {
  return authedProcedure
    .meta(metaOf(o, 'GET'))
    .input(idParam)
    .output(envelope(o.resource))
    .query(async ({ ctx, input }) => ({ data: await o.run(ctx.db.prisma, companyScope(ctx), input.id) }));
}

export function createEndpoint<B extends z.ZodObject, R extends z.ZodType>(
  o: Common & { body: B; resource: R; run: (tx: Db, scope: CompanyScope, input: z.output<B>) => Promise<z.input<R>> },
) {
  return authedProcedure
    .meta(metaOf(o, 'POST', { create: true }))
    .input(o.body)
    .output(envelope(o.resource))
    .mutation(({ ctx, input }) =>
      idempotentCreate(ctx, `POST ${o.path}`, async (tx) => ({ data: await o.run(tx, companyScope(ctx), input as z.output<B>) })),
    );
}

export function updateEndpoint<B extends z.ZodObject, R extends z.ZodType>(
  o: Common & { body: B; resource: R; run: (tx: Db, scope: CompanyScope, id: string, input: z.output<B>) => Promise<z.input<R>> },
) {
  return authedProcedure
    .meta(metaOf(o, 'PUT'))
    .input(o.body.extend(idParam.shape))
    .output(envelope(o.resource))
    .mutation(({ ctx, input }) => {
      const { id, ...fields } = input as { id: string } & z.output<B>;
      return inTransaction(ctx, async (tx) => ({ data: await o.run(tx, companyScope(ctx), id, fields as z.output<B>) }));
    });
}

export function deleteEndpoint(o: Common & { run: (tx: Db, scope: CompanyScope, id: string) => Promise<{ id: string; deleted: true }> }) {
  return authedProcedure
    .meta(metaOf(o, 'DELETE'))
    .input(idParam)
    .output(deleted)
    .mutation(({ ctx, input }) => inTransaction(ctx, async (tx) => ({ data: await o.run(tx, companyScope(ctx), input.id) })));
}
