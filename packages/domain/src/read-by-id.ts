// A read of one row by id within a company, written once as SQL that can run on its own (a named
// statement) or ride on the authentication statement of a GET by id, so that the request costs one
// database round trip instead of two (decision 148). Either way the same domain code maps the row.
import type { Queryable } from '@tlr/db';

export interface ReadById {
  /** The name of the statement on its own (planned once per pooled connection). */
  name: string;
  /** The SELECT, given the SQL expressions of the id and of the company id; its rows have an `id`. */
  select(id: string, company: string): string;
}

/** The answer of a read that rode on another statement: what the statement `name` with `values` returned. */
export interface Prefetched {
  name: string;
  values: readonly unknown[];
  rows: Record<string, unknown>[];
}

/** The read on its own: `$1` the id, `$2` the company id. */
export const standaloneSql = (read: ReadById): string => read.select('$1', '$2::uuid');

/** A read by id to run along with a credential's statement, on its company: a GET by id then costs one round trip. */
export interface ReadAlong {
  read: ReadById;
  /** The id from the path, already valid by the endpoint's input schema. */
  id: string;
}

/**
 * A credential's statement (`$1` its digest) that can carry a read: `head` (its CTEs), then `columns` of
 * `from`, which come first and count `columnCount`, the company id the one at `companyColumn` and the
 * SQL expression `company`. With a read, its row's columns follow, joined laterally on that company,
 * and the id is `$2`.
 */
export function carrier(opts: { name: string; head: string; columns: string; columnCount: number; companyColumn: number; from: string; company: string }) {
  const statements = new Map<string, { name: string; text: string }>();
  const statement = (read?: ReadById) => {
    const key = read?.name ?? '';
    let s = statements.get(key);
    if (!s) {
      const text = read
        ? `${opts.head} SELECT ${opts.columns}, r.* FROM ${opts.from} LEFT JOIN LATERAL (${read.select('$2', opts.company)}) r ON true`
        : `${opts.head} SELECT ${opts.columns} FROM ${opts.from}`;
      statements.set(key, (s = { name: read ? `${opts.name}_${read.name}` : opts.name, text }));
    }
    return s;
  };
  return {
    /** Runs the statement: the credential's columns, and what the read found. */
    async run(db: Queryable, digest: unknown, along: ReadAlong | undefined): Promise<{ columns: unknown[]; prefetched?: Prefetched } | undefined> {
      const { rows, fields } = await db.query<unknown[]>({
        ...statement(along?.read),
        values: along ? [digest, along.id] : [digest],
        // Arrays: the credential's columns and the read's may share names (id, company_id).
        rowMode: 'array',
      });
      const row = rows[0];
      if (!row) return undefined;
      const own = row.slice(0, opts.columnCount);
      if (!along) return { columns: own };
      const read = Object.fromEntries(fields.slice(opts.columnCount).map((f, i) => [f.name, row[opts.columnCount + i]]));
      // The lateral join leaves the columns null when the company has no such row.
      const prefetched: Prefetched = { name: along.read.name, values: [along.id, own[opts.companyColumn]], rows: read.id === null ? [] : [read] };
      return { columns: own, prefetched };
    },
  };
}

const sameValues = (a: readonly unknown[] | undefined, b: readonly unknown[]) => a?.length === b.length && a.every((v, i) => v === b[i]);

/**
 * `db`, except that the statement already answered is answered from memory, once, when it is asked by
 * the same name with the same values; anything else goes to `db`.
 */
export function primed(db: Queryable, prefetched: Prefetched | undefined): Queryable {
  if (!prefetched) return db;
  let pending: Prefetched | undefined = prefetched;
  const query = (config: { name?: string; values?: unknown[] }, ...rest: unknown[]) => {
    if (pending && rest.length === 0 && config.name === pending.name && sameValues(config.values, pending.values)) {
      const { rows } = pending;
      pending = undefined;
      return Promise.resolve({ command: 'SELECT', rowCount: rows.length, oid: 0, fields: [], rows });
    }
    return (db as { query(...args: unknown[]): unknown }).query(config, ...rest);
  };
  return { query } as unknown as Queryable;
}
