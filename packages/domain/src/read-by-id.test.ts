import { describe, expect, it } from 'vitest';
import type { Queryable } from '@tlr/db';
import { primed } from './read-by-id.ts';

/** A pool that records what reaches it and answers every statement with one row naming it. */
function fakePool() {
  const asked: unknown[][] = [];
  const pool = {
    query(...args: unknown[]) {
      asked.push(args);
      return Promise.resolve({ rows: [{ from: 'pool' }] });
    },
  };
  return { pool: pool as unknown as Queryable, asked };
}

const ask = (db: Queryable, name: string, values: unknown[]) => db.query({ name, text: 'SELECT 1', values }).then((r) => r.rows);

describe('primed', () => {
  const prefetched = { name: 'tlr_get_customer', values: ['id-1', 'company-1'], rows: [{ from: 'memory' }] };

  it('answers the statement already answered from memory, once; a second ask goes to the pool', async () => {
    const { pool, asked } = fakePool();
    const db = primed(pool, prefetched);
    expect(await ask(db, 'tlr_get_customer', ['id-1', 'company-1'])).toEqual([{ from: 'memory' }]);
    expect(asked).toHaveLength(0);
    expect(await ask(db, 'tlr_get_customer', ['id-1', 'company-1'])).toEqual([{ from: 'pool' }]);
    expect(asked).toHaveLength(1);
  });

  it('sends anything else to the pool: another name, other values, another company', async () => {
    const { pool, asked } = fakePool();
    const db = primed(pool, prefetched);
    expect(await ask(db, 'tlr_get_product', ['id-1', 'company-1'])).toEqual([{ from: 'pool' }]);
    expect(await ask(db, 'tlr_get_customer', ['id-2', 'company-1'])).toEqual([{ from: 'pool' }]);
    expect(await ask(db, 'tlr_get_customer', ['id-1', 'company-2'])).toEqual([{ from: 'pool' }]);
    expect(await ask(db, 'tlr_get_customer', ['id-1'])).toEqual([{ from: 'pool' }]);
    expect(asked).toHaveLength(4);
    // Still unspent: the matching statement is answered from memory.
    expect(await ask(db, 'tlr_get_customer', ['id-1', 'company-1'])).toEqual([{ from: 'memory' }]);
  });

  it('is the pool itself when nothing was read along', () => {
    const { pool } = fakePool();
    expect(primed(pool, undefined)).toBe(pool);
  });
});
