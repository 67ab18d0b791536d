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
