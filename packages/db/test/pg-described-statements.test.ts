// Our patch of pg (patches/pg@8.23.1.patch, decision 151): a named statement's RowDescription is asked
// for and parsed once per connection, then its columns come from memory. What must hold: the rows and
// fields are those of a described execution, whatever the row mode and however many rows; a changed
// result shape fails as PostgreSQL says rather than mapping columns wrongly; a new connection, another
// statement text or unnamed statements describe as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileDatabaseUrl } from '../../../test/file-database.ts';
import pg from 'pg';
// The type parsers the service runs with (numeric as text, bigint as a number).
import '../src/client.ts';

type WithConnection = { connection: { on(event: 'rowDescription', fn: () => void): void } };

let client: pg.Client;
let descriptions = 0;
const table = `described_${process.pid}`;

async function connect(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: fileDatabaseUrl() });
  await c.connect();
  (c as unknown as WithConnection).connection.on('rowDescription', () => (descriptions += 1));
  return c;
}

beforeAll(async () => {
  client = await connect();
  await client.query(`CREATE TABLE ${table} (id int PRIMARY KEY, name text, amount numeric(14,2), at timestamptz, big bigint)`);
  await client.query(`INSERT INTO ${table} VALUES (1, 'Søren', 12.50, '2026-11-25T10:00:00Z', 9007199254740991), (2, NULL, -0.01, NULL, 2)`);
});

afterAll(async () => {
  await client.query(`DROP TABLE IF EXISTS ${table}`);
  await client.end();
});

describe('named statements on a connection (pg patch)', () => {
  it('are described once and give the same rows and fields every time', async () => {
    const query = { name: `described_all_${process.pid}`, text: `SELECT id, name, amount, at, big FROM ${table} WHERE id >= $1 ORDER BY id` };
    const before = descriptions;
    const first = await client.query({ ...query, values: [1] });
    expect(descriptions - before).toBe(1);
    const again = await client.query({ ...query, values: [1] });
    const some = await client.query({ ...query, values: [2] });
    const none = await client.query({ ...query, values: [3] });
    // Three more executions, no further RowDescription (unpatched pg: one per execution).
    expect(descriptions - before).toBe(1);
    const expected = [
      { id: 1, name: 'Søren', amount: '12.50', at: new Date('2026-11-25T10:00:00Z'), big: 9007199254740991 },
      { id: 2, name: null, amount: '-0.01', at: null, big: 2 },
    ];
    expect(first.rows).toEqual(expected);
    expect(again.rows).toEqual(expected);
    expect(some.rows).toEqual(expected.slice(1));
    expect(none.rows).toEqual([]);
    // The type parsers of client.ts apply from memory too: numeric stays text, bigint becomes a number.
    expect(typeof again.rows[0].amount).toBe('string');
    for (const r of [again, some, none]) {
      expect(r.fields.map((f) => f.name)).toEqual(['id', 'name', 'amount', 'at', 'big']);
      expect(r.command).toBe('SELECT');
    }
    expect(none.rowCount).toBe(0);
    expect(again.rowCount).toBe(2);
  });

  it('keep array rows, and a row event listener still sees every row', async () => {
    const query = { name: `described_array_${process.pid}`, text: `SELECT id, name FROM ${table} ORDER BY id`, rowMode: 'array' as const };
    await client.query(query);
    const before = descriptions;
    expect((await client.query(query)).rows).toEqual([
      [1, 'Søren'],
      [2, null],
    ]);
    const seen: unknown[] = [];
    const events = new pg.Query(query);
    events.on('row', (row: unknown) => seen.push(row));
    const ended = new Promise<void>((resolve, reject) => {
      events.on('end', () => resolve());
      events.on('error', reject);
    });
    void client.query(events);
    await ended;
    expect(seen).toEqual([
      [1, 'Søren'],
      [2, null],
    ]);
    expect(descriptions).toBe(before);
  });

  it('fail as PostgreSQL says when the result shape changed, never with columns mapped wrongly', async () => {
    const query = { name: `described_star_${process.pid}`, text: `SELECT * FROM ${table} WHERE id = 1` };
    expect((await client.query(query)).rows[0]).toMatchObject({ id: 1, name: 'Søren' });
    await client.query(`ALTER TABLE ${table} ADD COLUMN extra text DEFAULT 'x'`);
    await expect(client.query(query)).rejects.toThrow(/cached plan must not change result type/);
    await client.query(`ALTER TABLE ${table} DROP COLUMN extra`);
  });

  it('are described again on a new connection, and unnamed statements are described every time', async () => {
    const query = { name: `described_new_${process.pid}`, text: `SELECT name FROM ${table} WHERE id = $1` };
    await client.query({ ...query, values: [1] });
    const other = await connect();
    try {
      const before = descriptions;
      expect((await other.query({ ...query, values: [1] })).rows).toEqual([{ name: 'Søren' }]);
      expect(descriptions - before).toBe(1);
      await other.query(`SELECT name FROM ${table} WHERE id = $1`, [1]);
      await other.query(`SELECT name FROM ${table} WHERE id = $1`, [2]);
      expect(descriptions - before).toBe(3);
    } finally {
      await other.end();
    }
  });
});
