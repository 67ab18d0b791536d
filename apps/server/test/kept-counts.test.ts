// The totals of the customer, product and supplier lists (contract, Lists: meta.total) come from counts
// kept by statement triggers (lists/kept-counts.ts, migration master_data_counts) when the list is not
// filtered; a search or date range counts the rows. Either way the total must equal the live rows.
import { describe, expect, it } from 'vitest';
import { FOLD_ABOVE } from '@tlr/domain';
import { countRows, idem, internal, newCompany, ok, testDb, useServers, type Api } from './helpers.ts';

const servers = useServers(1);

const KINDS = ['customers', 'products', 'suppliers'] as const;

/** What the lists must say: the company's live rows of each kind, counted. */
async function liveRows(companyId: string) {
  const out: Record<string, number> = {};
  for (const kind of KINDS) {
    out[kind] = await countRows(`SELECT count(*)::int AS n FROM ${kind} WHERE company_id = $1 AND deleted_at IS NULL`, [companyId]);
  }
  return out;
}

async function listTotals(c: Api) {
  const out: Record<string, number> = {};
  for (const kind of KINDS) out[kind] = (await ok(c.GET(`/${kind}`))).meta.total;
  return out;
}

const createCustomer = (c: Api, name: string) => c.POST('/customers', { params: idem(), body: { name } });

/** The whole customer list's meta.total, or a filtered one's. */
const customerTotal = async (c: Api, query: { search?: string; since?: string } = {}) => (await ok(c.GET('/customers', { params: { query } }))).meta.total;

const keptRows = (companyId: string) => countRows(`SELECT count(*)::int AS n FROM master_data_count_deltas WHERE company_id = $1`, [companyId]);

describe('meta.total of the master data lists', () => {
  it('equals the live rows through creates, updates, soft deletes, rows brought back, bulk SQL, and folds racing creates on two servers', async () => {
    const company = await newCompany('Tællemester ApS');
    const key = (await company.key()).key;
    const a = servers.api(0, key);
    const b = servers.api(1, key);
    const deleteCustomer = (c: Api, id: string) => c.DELETE('/customers/{id}', { params: { path: { id } } });
    for (let i = 0; i < 4; i++) expect((await createCustomer(a, `Kunde ${i}`)).response.status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await a.POST('/products', { params: idem(), body: { name: `Vare ${i}`, unit_price: 10 } })).response.status).toBe(201);
    const supplier = (await ok(a.POST('/suppliers', { params: idem(), body: { name: 'Leverandør' } }))).data;
    const customers = (await ok(a.GET('/customers'))).data;
    expect(customers).toHaveLength(4);
    const [first = '', second = ''] = customers.map((c) => c.id);
    expect((await a.PUT('/customers/{id}', { params: { path: { id: first } }, body: { name: 'Omdøbt' } })).response.status).toBe(200);
    expect((await deleteCustomer(a, second)).response.status).toBe(200);
    expect((await a.DELETE('/suppliers/{id}', { params: { path: { id: supplier.id } } })).response.status).toBe(200);
    // A deleted row asked to be deleted again is 404 and changes nothing.
    expect((await deleteCustomer(a, second)).response.status).toBe(404);
    expect(await liveRows(company.companyId)).toEqual({ customers: 3, products: 3, suppliers: 0 });
    expect(await listTotals(a)).toEqual({ customers: 3, products: 3, suppliers: 0 });

    // A row brought back by hand (support, a restore) and rows loaded in bulk are counted too.
    await testDb().pool.query(`UPDATE suppliers SET deleted_at = NULL WHERE id = $1`, [supplier.id]);
    await testDb().pool.query(`INSERT INTO customers (id, company_id, name) SELECT gen_random_uuid(), $1, 'Bulk ' || g FROM generate_series(1, 250) g`, [
      company.companyId,
    ]);
    // An update that touches every row but deletes none adds nothing.
    await testDb().pool.query(`UPDATE customers SET notes = 'x' WHERE company_id = $1`, [company.companyId]);
    expect(await listTotals(b)).toEqual({ customers: 253, products: 3, suppliers: 1 });

    // Creates and deletes on two servers at once, racing the fold: nothing lost or counted twice.
    const ops = internal().internal;
    const [made] = await Promise.all([
      Promise.all(Array.from({ length: 16 }, (_, i) => createCustomer(i % 2 ? a : b, `Samtidig ${i}`))),
      (async () => {
        for (let i = 0; i < 5; i++) await ops.foldKeptCounts({});
      })(),
    ]);
    expect(made.map((r) => r.response.status)).toEqual(Array(16).fill(201));
    const madeIds = made.map((r) => r.data?.data.id ?? '');
    const deleted = await Promise.all(madeIds.slice(0, 6).map((id, i) => deleteCustomer(i % 2 ? a : b, id)));
    expect(deleted.map((r) => r.response.status)).toEqual(Array(6).fill(200));
    const expected = await liveRows(company.companyId);
    expect(expected).toEqual({ customers: 263, products: 3, suppliers: 1 });
    expect(await listTotals(a)).toEqual(expected);
    // The fold takes only companies with more than FOLD_ABOVE rows: how many the racing creates left
    // after the last fold above depends on the race, so both outcomes are checked.
    const beforeFold = await keptRows(company.companyId);
    await ops.foldKeptCounts({});
    if (beforeFold > FOLD_ABOVE) expect(await keptRows(company.companyId)).toBeLessThanOrEqual(3);
    else expect(await keptRows(company.companyId)).toBe(beforeFold);
    expect(await listTotals(b)).toEqual(expected);

    // A filtered list counts its rows (the kept count is for the whole list only).
    expect(await customerTotal(a, { search: 'Samtidig' })).toBe(10);
    expect(await customerTotal(a, { since: '2000-01-01' })).toBe(263);
    // Which total comes from where: a stray kept row moves the whole list's total only.
    const stray = await testDb().pool.query<{ id: string }>(
      `INSERT INTO master_data_count_deltas (company_id, kind, delta) VALUES ($1, 'customers', 1000) RETURNING id`,
      [company.companyId],
    );
    expect(await customerTotal(a)).toBe(1263);
    expect(await customerTotal(a, { since: '2000-01-01' })).toBe(263);
    await testDb().pool.query(`DELETE FROM master_data_count_deltas WHERE id = $1`, [stray.rows[0]?.id]);
  });

  it('counts a sandbox apart from its live company, and a sandbox reset empties its counts', async () => {
    const company = await newCompany('Sandkasse Tæller ApS');
    const live = servers.api(0, (await company.key()).key);
    const sandbox = servers.api(1, (await company.key(undefined, 'test')).key);
    expect((await createCustomer(live, 'Live')).response.status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await createCustomer(sandbox, `Test ${i}`)).response.status).toBe(201);
    expect((await sandbox.POST('/products', { params: idem(), body: { name: 'Testvare' } })).response.status).toBe(201);
    expect(await customerTotal(live)).toBe(1);
    expect(await listTotals(sandbox)).toEqual({ customers: 3, products: 1, suppliers: 0 });

    expect((await sandbox.POST('/sandbox/reset')).response.status).toBe(200);
    expect(await listTotals(sandbox)).toEqual({ customers: 0, products: 0, suppliers: 0 });
    expect(await customerTotal(live)).toBe(1);
    expect((await createCustomer(sandbox, 'Efter')).response.status).toBe(201);
    expect(await customerTotal(sandbox)).toBe(1);
  });
});
