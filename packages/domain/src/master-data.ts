// Customers, products and suppliers share one life cycle: create, get, update, soft delete and list,
// each scoped to the caller's company and each recording its catalog event in the same transaction.
// Rows are soft-deleted (deleted_at) so that documents referring to them keep their history;
// a deleted row is "not found" to the API.
import { z } from 'zod';
import { Prisma, type Db, type Queryable } from '@tlr/db';
import type { CompanyScope } from './context.ts';
import { notFound } from './errors.ts';
import { recordEvent, type EventType } from './events/outbox.ts';
import { timestamp } from './fields.ts';
import { newId } from './ids.ts';
import { standaloneSql, type ReadById } from './read-by-id.ts';
import { countLive } from './lists/kept-counts.ts';
import { listPage, unfiltered, type ListDelegate, type ListParams, type ListSpec, type Page } from './lists/list.ts';

type Where = Record<string, unknown>;
interface Delegate<Row> extends ListDelegate<Row> {
  create(args: { data: Where }): Promise<Row>;
  findFirst(args: { where: Where }): Promise<Row | null>;
  update(args: { where: Where; data: Where }): Promise<Row>;
}

export interface MasterData<View, Create, Update> {
  create(db: Db, scope: CompanyScope, input: Create): Promise<View>;
  /** `sql`: the pool, for the hot read without Prisma's runtime (a named statement, planned once per connection). */
  get(db: Db, scope: CompanyScope, id: string, sql?: Queryable): Promise<View>;
  /** The SQL of `get`, which a GET by id runs along with its authentication (read-by-id.ts). */
  byId: ReadById;
  update(db: Db, scope: CompanyScope, id: string, input: Update): Promise<View>;
  remove(db: Db, scope: CompanyScope, id: string): Promise<{ id: string; deleted: true }>;
  list(db: Db, scope: CompanyScope, params: ListParams): Promise<Page<View>>;
  /** The list's sort fields, search columns and date filter (the API's list parameters read it too). */
  listSpec: ListSpec;
}

export function masterData<Row extends { id: string }, View extends Record<string, unknown>, Create, Update>(opts: {
  noun: 'customer' | 'product' | 'supplier';
  delegate: (db: Db) => unknown;
  toRow: (input: Create) => Where;
  toPatch: (input: Update) => Where;
  view: (row: Row) => View;
  list: ListSpec;
  /** What the body's fields must be in the company's data (an account of its chart), checked before a create or an update. */
  check?: (db: Db, scope: CompanyScope, input: Create | Update) => Promise<void>;
}): MasterData<View, Create, Update> {
  const table = (db: Db) => opts.delegate(db) as Delegate<Row>;
  const byId: ReadById = {
    name: `tlr_get_${opts.noun}`,
    select: (id, company) => `SELECT * FROM ${opts.noun}s WHERE id = ${id}::uuid AND company_id = ${company} AND deleted_at IS NULL`,
  };
  const GET_SQL = standaloneSql(byId);
  const live = (scope: CompanyScope, id: string) => ({ id, company_id: scope.companyId, deleted_at: null });
  const event = (suffix: 'created' | 'updated' | 'deleted') => `${opts.noun}.${suffix}` as EventType;
  const missing = (e: unknown, id: string) => (e instanceof Prisma.PrismaClientKnownRequestError && e.code === 'P2025' ? notFound(opts.noun, id) : e);

  return {
    async create(db, scope, input) {
      await opts.check?.(db, scope, input);
      const row = await table(db).create({ data: { ...opts.toRow(input), id: newId(), company_id: scope.companyId } });
      const view = opts.view(row);
      await recordEvent(db, scope, event('created'), view);
      return view;
    },
    async get(db, scope, id, sql) {
      // The hottest read of the API: plain SQL, on the pool when given (pg's rows are what the view
      // reads: timestamps as Date, numeric as exact text), else through Prisma without its query compiler.
      const [row] = sql
        ? (await sql.query<Row>({ name: byId.name, text: GET_SQL, values: [id, scope.companyId] })).rows
        : await db.$queryRawUnsafe<Row[]>(GET_SQL, id, scope.companyId);
      if (!row) throw notFound(opts.noun, id);
      return opts.view(row);
    },
    async update(db, scope, id, input) {
      await opts.check?.(db, scope, input);
      const row = await table(db)
        .update({ where: live(scope, id), data: opts.toPatch(input) })
        .catch((e) => Promise.reject(missing(e, id)));
      const view = opts.view(row);
      await recordEvent(db, scope, event('updated'), view);
      return view;
    },
    async remove(db, scope, id) {
      await table(db)
        .update({ where: live(scope, id), data: { deleted_at: new Date() } })
        .catch((e) => Promise.reject(missing(e, id)));
      await recordEvent(db, scope, event('deleted'), { id });
      return { id, deleted: true as const };
    },
    list(db, scope, params) {
      const rows = table(db);
      const delegate: ListDelegate<Row> = {
        findMany: (args) => rows.findMany(args),
        // Filtered by nothing (the common list): the kept count of live rows, exact and O(1).
        count: (args) => (unfiltered(params, opts.list) ? countLive(db, scope.companyId, `${opts.noun}s`) : rows.count(args)),
      };
      return listPage(delegate, { company_id: scope.companyId, deleted_at: null }, params, opts.list, opts.view);
    },
    byId,
    listSpec: opts.list,
  };
}

/**
 * The schemas of a master-data resource from its body's fields: the create body, the update body (the
 * same fields, the name optional too: what is left out keeps its value) and the resource the API
 * answers with: its id, each field of the body as stored (text as a string, the others as `stored`
 * says), the fields no body sets (`derived`) and its timestamps, so that no field is listed twice.
 */
export function masterDataSchemas<
  F extends { name: z.ZodType } & Record<string, z.ZodType>,
  S extends { [K in keyof F]?: z.ZodType },
  D extends Record<string, z.ZodType> = Record<never, z.ZodType>,
>(id: string, fields: F, stored: S, derived?: D) {
  const updatable = { ...fields, name: fields.name.optional() } as Omit<F, 'name'> & { name: z.ZodOptional<F['name']> };
  const answered = Object.fromEntries(Object.keys(fields).map((key) => [key, stored[key] ?? z.string()]));
  return {
    create: z.strictObject(fields),
    update: z.strictObject(updatable),
    resource: z
      .object({
        id: z.guid(),
        ...(answered as { [K in keyof F]: K extends keyof S ? NonNullable<S[K]> : z.ZodString }),
        ...(derived as D),
        created_at: timestamp(),
        updated_at: timestamp(),
      })
      .meta({ id }),
  };
}

/**
 * A row's API view, by its resource schema: each key of the schema is read from the row's column of the
 * same name, a timestamp (Date) becoming its ISO string; `computed` gives the keys that are not a plain
 * column (a decimal written by the money module, a constant). The schema is the one list of the fields.
 */
export function viewOf<S extends z.ZodObject, Row extends object = object>(
  resource: S,
  computed: { [K in keyof z.input<S>]?: (row: Row) => z.input<S>[K] } = {},
): (row: Row) => z.input<S> {
  const keys = Object.keys(resource.shape);
  const fns = computed as Record<string, ((row: Row) => unknown) | undefined>;
  return (row) => {
    const view: Record<string, unknown> = {};
    for (const key of keys) {
      const value = fns[key] ? fns[key](row) : (row as Record<string, unknown>)[key];
      view[key] = value instanceof Date ? value.toISOString() : value;
    }
    return view as z.input<S>;
  };
}

/** Drops undefined values so that an update only touches the fields the client sent. */
export function definedOnly(input: Where): Where {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
}
