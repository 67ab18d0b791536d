// Fixed assets through HTTP against PostgreSQL (issue 43, item 2): the refusals by field, an asset made
// from a booked expense bought in March and depreciated monthly by the job (called with the day it runs
// on, no waiting) to the year's end, catching up a downtime, two runs at once posting each month once, a
// locked period posted on the first open day, disposals with a gain and with a loss, the register and the
// tax view (saldo method), the SAF-T file's Assets and AssetTransactions, and an asset made from one line of a
// received e-invoice with its project, carried to its depreciation; a dimension required on the depreciation
// account (refused on the asset, kept on it by the job) and a retired value kept — every figure worked out by hand here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Db } from '@tlr/db';
import { depreciateAssets, updateAccountingSettings } from '@tlr/domain';
import { countRows, created, idem, ok, testDb, twoLinePosting, useCompany, type Api } from './helpers.ts';
import { validateSaft } from './saft-schema.ts';

const t = useCompany({ name: 'Anlæg og Maskiner ApS' });
const REFERENCE = join(import.meta.dirname, '..', '..', '..', '..', 'shared', 'reference');
const path = (id: string) => ({ params: { path: { id } } });
/** A path id with an Idempotency-Key (the disposal takes one). */
const keyed = (id: string, key = idem()) => ({ params: { path: { id }, ...key } });
const db = testDb();
const run = <T>(fn: (tx: Db) => Promise<T>) => db.prisma.$transaction((tx) => fn(tx));
/** The daily job as it would run on `day`. */
const job = (day: string) => depreciateAssets(run, day);

const get = async (id: string, c: Api = t.api) => (await ok(c.GET('/assets/{id}', path(id)))).data;
const posted = async (id: string) => (await get(id)).schedule.filter((m) => m.posted).map((m) => [m.month, m.amount, m.date]);
/** The balance of an account from the postings (debit − credit), as the ledger holds it. */
const balance = async (account: string, companyId = t.company.companyId) => {
  const { rows } = await db.pool.query<{ b: string }>(
    `SELECT COALESCE(SUM(l.debit - l.credit), 0)::text AS b FROM transaction_lines l JOIN accounts a ON a.id = l.account_id
     WHERE l.company_id = $1 AND a.account_number = $2`,
    [companyId, account],
  );
  return Number(rows[0]!.b);
};

/** A booked expense: 150,000 incl. 30,000 VAT (K25) on 2810, dated 15 March: net cost 120,000. */
async function bookedExpense(c: Api = t.api) {
  const e = (await created(c.POST('/expenses', { params: idem(), body: { date: '2026-03-15', description: 'Varebil', amount: 150000, vat_amount: 30000 } })))
    .data;
  await ok(c.PUT('/expenses/{id}/status', { ...path(e.id), body: { status: 'booked' } }));
  return e.id;
}

describe('assets: create, read, update, delete', () => {
  it('refuse what cannot be, naming the field', async () => {
    const draft = (await created(t.api.POST('/expenses', { params: idem(), body: { date: '2026-03-01', amount: 1250, vat_amount: 250 } }))).data.id;
    const base = { name: 'Kaffemaskine', acquisition_date: '2026-02-01', cost: 40000, useful_life_months: 36 };
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ residual_value: 40000 }, 400, 'invalid_request', 'residual_value'],
      [{ cost: 0 }, 400, 'invalid_request', 'cost'],
      [{ useful_life_months: 0 }, 400, 'invalid_request', 'useful_life_months'],
      [{ cost: 1, useful_life_months: 120 }, 400, 'invalid_request', 'useful_life_months'],
      [{ group: 'cars' }, 400, 'invalid_request', 'group'],
      [{ asset_account_number: '2810' }, 400, 'invalid_request', 'asset_account_number'],
      [{ depreciation_account_number: '5610' }, 400, 'invalid_request', 'depreciation_account_number'],
      [{ accumulated_account_number: '9999' }, 400, 'invalid_request', 'accumulated_account_number'],
      [{ cost: undefined }, 400, 'invalid_request', 'cost'],
      [{ expense_id: draft, cost: undefined, acquisition_date: undefined }, 400, 'invalid_request', 'expense_id'],
      [{ expense_id: draft }, 400, 'invalid_request', 'cost'],
      [{ transaction_id: '00000000-0000-4000-8000-000000000000' }, 400, 'invalid_request', 'transaction_id'],
    ];
    for (const [over, status, code, field] of cases) {
      const r = await t.raw.post('/assets', { ...base, ...over });
      expect([r.status, r.body], JSON.stringify(over)).toMatchObject([status, { code, field }]);
    }
    expect((await t.raw.post('/assets', base, {})).status).toBe(400); // no Idempotency-Key
    expect((await ok(t.api.GET('/assets'))).meta.total).toBe(0);
  });

  it("are the company's own, listed, updated while nothing is posted, and deleted", async () => {
    const a = (
      await created(t.api.POST('/assets', { params: idem(), body: { name: 'Reol', acquisition_date: '2030-01-05', cost: 5000, useful_life_months: 60 } }))
    ).data;
    // Defaults: operating equipment, the standard chart's 5580, 5610, 3050; 5000 / 60 = 83.33, the last month 83.53.
    expect(a).toMatchObject({
      group: 'operating_equipment',
      asset_account_number: '5580',
      accumulated_account_number: '5610',
      depreciation_account_number: '3050',
      status: 'active',
      monthly_depreciation: 83.33,
      book_value: 5000,
      next_depreciation_month: '2030-01-01',
      capitalisation_transaction_id: null,
    });
    expect(a.schedule).toHaveLength(60);
    expect(a.schedule.at(-1)).toMatchObject({ month: '2034-12-01', amount: 83.53, accumulated_depreciation: 5000, book_value: 0, posted: false });
    const u = (await ok(t.api.PUT('/assets/{id}', { ...path(a.id), body: { name: 'Reol, lager', group: 'machinery', cost: 6000, useful_life_months: 12 } })))
      .data;
    expect(u).toMatchObject({ name: 'Reol, lager', group: 'machinery', cost: 6000, monthly_depreciation: 500, asset_account_number: '5580' });

    const other = await t.another('Fremmed Anlæg ApS');
    expect((await other.raw.get(`/assets/${a.id}`)).status).toBe(404);
    expect((await other.raw.del(`/assets/${a.id}`)).status).toBe(404);
    expect((await ok(other.api.GET('/assets'))).meta.total).toBe(0);
    const listed = await ok(t.api.GET('/assets', { params: { query: { search: 'reol', status: 'active', sort: 'acquisition_date' } } }));
    expect(listed.data.map((r) => r.id)).toEqual([a.id]);
    expect(await countRows(`SELECT count(*)::int AS n FROM outbox_events WHERE type = 'asset.created' AND data->>'id' = $1`, [a.id])).toBe(1);

    expect((await ok(t.api.DELETE('/assets/{id}', path(a.id)))).data).toEqual({ id: a.id, deleted: true });
    expect((await t.raw.get(`/assets/${a.id}`)).status).toBe(404);
  });
});

describe('depreciation', () => {
  let varebil = '';
  let pc = '';

  it('an asset bought in March from a booked expense: the cost moved to the asset account, one asset per expense', async () => {
    const expense = await bookedExpense();
    const v = (
      await created(t.api.POST('/assets', { params: idem(), body: { name: 'Varebil', expense_id: expense, useful_life_months: 60, residual_value: 10000 } }))
    ).data;
    varebil = v.id;
    // Cost 150,000 − 30,000 VAT = 120,000 on 15 March; (120,000 − 10,000) / 60 = 1,833.333 → 1,833.33 a month,
    // the last month 110,000 − 59 × 1,833.33 = 1,833.53.
    expect(v).toMatchObject({ acquisition_date: '2026-03-15', cost: 120000, monthly_depreciation: 1833.33, expense_id: expense, asset_account_number: '5580' });
    expect(v.schedule.at(-1)).toMatchObject({ month: '2031-02-01', amount: 1833.53, accumulated_depreciation: 110000, book_value: 10000 });
    expect(v.postings).toMatchObject([{ kind: 'capitalisation', date: '2026-03-15', amount: 120000, transaction_id: v.capitalisation_transaction_id }]);
    // The expense put 120,000 on 2810; the capitalisation moved it to 5580.
    expect([await balance('2810'), await balance('5580')]).toEqual([0, 120000]);
    const again = await t.raw.post('/assets', { name: 'Varebil igen', expense_id: expense, useful_life_months: 60 });
    expect([again.status, again.body]).toMatchObject([409, { code: 'asset_exists', field: 'expense_id' }]);
    // The expense stays while the asset does: cancelling it would leave the asset's cost on no expense.
    const cancel = await t.raw.put(`/expenses/${expense}/status`, { status: 'cancelled' });
    expect([cancel.status, cancel.body]).toMatchObject([409, { code: 'asset_exists', field: 'status' }]);

    // 20,000 / 36 = 555.556 → 555.56 a month, the last month 20,000 − 35 × 555.56 = 555.40.
    pc = (
      await created(t.api.POST('/assets', { params: idem(), body: { name: 'Bærbar PC', acquisition_date: '2026-05-10', cost: 20000, useful_life_months: 36 } }))
    ).data.id;
    expect((await get(pc)).schedule.at(-1)).toMatchObject({ month: '2029-04-01', amount: 555.4 });
  });

  it('posts each month on its last day, catches up a downtime in order, and two runs at once post each month once', async () => {
    await job('2026-03-30');
    expect(await posted(varebil)).toEqual([]);
    await job('2026-03-31');
    await job('2026-03-31');
    expect(await posted(varebil)).toEqual([['2026-03-01', 1833.33, '2026-03-31']]);
    // Down from April to mid July: April, May and June on the next run, in order; July not yet.
    await job('2026-07-15');
    expect((await posted(varebil)).map((m) => m[2])).toEqual(['2026-03-31', '2026-04-30', '2026-05-31', '2026-06-30']);
    expect((await posted(pc)).map((m) => m[0])).toEqual(['2026-05-01', '2026-06-01']);

    const [r1, r2] = await Promise.all([job('2026-12-31'), job('2026-12-31')]);
    expect(r1.failed.concat(r2.failed)).toEqual([]);
    // July..December of the van (6) and July..December of the PC (6), each once between the two runs.
    expect(r1.posted + r2.posted).toBe(12);
    const v = await get(varebil);
    expect(v.schedule.filter((m) => m.posted)).toHaveLength(10);
    // March..December: 10 × 1,833.33 = 18,333.30; book value 120,000 − 18,333.30 = 101,666.70.
    expect(v).toMatchObject({ months_depreciated: 10, accumulated_depreciation: 18333.3, book_value: 101666.7, next_depreciation_month: '2027-01-01' });
    expect(await countRows(`SELECT count(*)::int AS n FROM asset_depreciations WHERE asset_id = $1`, [varebil])).toBe(10);
    expect(await countRows(`SELECT count(*)::int AS n FROM ledger_transactions WHERE source = 'depreciation' AND source_id = $1`, [varebil])).toBe(10);
    expect(await countRows(`SELECT count(*)::int AS n FROM outbox_events WHERE type = 'asset.depreciated' AND data->>'asset_id' = $1`, [varebil])).toBe(10);
    // The ledger: 5610 holds the two assets' depreciation (18,333.30 + 8 × 555.56 = 22,777.78) as a credit, 3050 as a debit.
    expect([await balance('5610'), await balance('3050')]).toEqual([-22777.78, 22777.78]);
    const dec = v.postings.at(-1)!;
    const tx = (await ok(t.api.GET('/transactions/{id}', path(dec.transaction_id)))).data;
    expect(tx).toMatchObject({ date: '2026-12-31', source: 'depreciation' });
    expect(tx.lines.map((l) => [l.account_number, l.debit, l.credit])).toEqual([
      ['3050', 1833.33, 0],
      ['5610', 0, 1833.33],
    ]);

    // Once depreciated, only the name changes; the asset is disposed of, not deleted.
    const u = await t.raw.put(`/assets/${varebil}`, { useful_life_months: 48 });
    expect([u.status, u.body]).toMatchObject([409, { code: 'asset_depreciated', field: 'useful_life_months' }]);
    expect((await t.raw.del(`/assets/${varebil}`)).body).toMatchObject({ code: 'asset_depreciated' });
    const d = await t.raw.post(`/assets/${varebil}/dispose`, { date: '2026-11-15', proceeds: 100000 });
    expect([d.status, d.body]).toMatchObject([409, { code: 'asset_depreciated', field: 'date' }]);
  });

  it('posts the months of a locked period on the first open day after the lock', async () => {
    const other = await t.another('Låst Periode ApS');
    await updateAccountingSettings(db.prisma, other.company.companyId, { lock_date: '2026-02-28' });
    const a = (
      await created(
        other.api.POST('/assets', {
          params: idem(),
          body: { name: 'Truck', group: 'machinery', acquisition_date: '2026-01-10', cost: 12000, useful_life_months: 12 },
        }),
      )
    ).data;
    expect(a).toMatchObject({ asset_account_number: '5430', accumulated_account_number: '5470', depreciation_account_number: '3030' });
    await job('2026-03-31');
    expect((await get(a.id, other.api)).schedule.filter((m) => m.posted).map((m) => [m.month, m.amount, m.date])).toEqual([
      ['2026-01-01', 1000, '2026-03-01'],
      ['2026-02-01', 1000, '2026-03-01'],
      ['2026-03-01', 1000, '2026-03-31'],
    ]);
    await updateAccountingSettings(db.prisma, other.company.companyId, { lock_date: null });
  });
});

describe('an asset bought for a project', () => {
  it("its capitalisation takes the cost back out of the expense's project, also once the value is retired; the asset keeps the project", async () => {
    const other = await t.another('Projektanlæg ApS');
    const c = other.api;
    const dim = (await created(c.POST('/dimensions', { params: idem(), body: { name: 'Projekt', values: [{ code: 'X', name: 'Projekt X' }] } }))).data;
    // 50,000 incl. 10,000 VAT on 2810 in project X; the project ends before the asset is registered.
    const body = { date: '2026-04-01', amount: 50000, vat_amount: 10000, description: 'Gravemaskine', dimensions: { Projekt: 'X' }, book: true };
    const expense = (await created(c.POST('/expenses', { params: idem(), body }))).data.id;
    await ok(c.PUT('/dimensions/{id}', { ...path(dim.id), body: { values: [{ code: 'X', retired: true }] } }));
    const a = (await created(c.POST('/assets', { params: idem(), body: { name: 'Gravemaskine', expense_id: expense, useful_life_months: 40 } }))).data;
    // The asset takes the expense's project, retired or not (decisions 872, 873), and its cost line carries it.
    expect(a.dimensions).toEqual({ Projekt: 'X' });
    const tx = (await ok(c.GET('/transactions/{id}', path(a.capitalisation_transaction_id!)))).data;
    expect(tx.lines.map((l) => [l.account_number, l.debit, l.credit, l.dimensions])).toEqual([
      ['5580', 40000, 0, { Projekt: 'X' }],
      ['2810', 0, 40000, { Projekt: 'X' }],
    ]);
    // Project X's April: the 40,000 charged by the expense and taken back by the capitalisation.
    const pl = await ok(c.GET('/reports/profit-loss', { params: { query: { from: '2026-04-01', to: '2026-04-30', dimension: { Projekt: 'X' } } as never } }));
    expect((pl as { data: { totals: { result: number } } }).data.totals.result).toBe(0);
  });
});

type RegisterQuery = { as_of: string; sort?: 'acquisition_date'; order?: 'asc'; per_page?: number };
/** The register as JSON (its type also allows the CSV text). */
async function register(query: RegisterQuery) {
  const body = await ok(t.api.GET('/reports/assets', { params: { query } }));
  return body as Exclude<typeof body, string>;
}

describe('disposal', () => {
  let maskine = '';
  let skrot = '';

  it('a sale: the months before it caught up, the cost and accumulated depreciation taken off, the gain to 1530', async () => {
    // Bought for 80,000 on 20 January (a posting of its own, named as the asset's origin); (80,000 − 8,000) / 48 = 1,500 a month.
    const purchase = (await created(t.api.POST('/transactions', { params: idem(), body: twoLinePosting('2026-01-20', '5430', '6470', 80000, 'CNC-maskine') })))
      .data;
    maskine = (
      await created(
        t.api.POST('/assets', {
          params: idem(),
          body: {
            name: 'CNC-maskine',
            group: 'machinery',
            acquisition_date: '2026-01-20',
            cost: 80000,
            residual_value: 8000,
            useful_life_months: 48,
            transaction_id: purchase.id,
          },
        }),
      )
    ).data.id;
    const key = idem();
    const sold = (await ok(t.api.POST('/assets/{id}/dispose', { ...keyed(maskine, key), body: { date: '2026-09-15', proceeds: 75000 } }))).data;
    // January..August (8 months, 12,000) posted by the disposal; none for September or after.
    expect(sold).toMatchObject({
      status: 'disposed',
      months_depreciated: 8,
      accumulated_depreciation: 12000,
      book_value: 0,
      disposed_date: '2026-09-15',
      disposal_proceeds: 75000,
      next_depreciation_month: null,
    });
    expect(sold.schedule).toHaveLength(8);
    expect(sold.schedule.every((m) => m.posted)).toBe(true);
    // 75,000 + 12,000 − 80,000 = 7,000 gain.
    const tx = (await ok(t.api.GET('/transactions/{id}', path(sold.disposal_transaction_id!)))).data;
    expect(tx).toMatchObject({ date: '2026-09-15', source: 'asset' });
    expect(tx.lines.map((l) => [l.account_number, l.debit, l.credit])).toEqual([
      ['6470', 75000, 0],
      ['5470', 12000, 0],
      ['5430', 0, 80000],
      ['1530', 0, 7000],
    ]);
    // The machine is off the books: its cost and its accumulated depreciation are both 0 again.
    expect([await balance('5430'), await balance('5470')]).toEqual([0, 0]);
    // The same key replays; another disposal is refused; no more depreciation.
    const replay = await t.api.POST('/assets/{id}/dispose', { ...keyed(maskine, key), body: { date: '2026-09-15', proceeds: 75000 } });
    expect(replay.response.headers.get('x-idempotency-replayed')).toBe('true');
    expect((await t.raw.post(`/assets/${maskine}/dispose`, { date: '2026-09-16' })).body).toMatchObject({ code: 'asset_disposed' });
    await job('2027-03-31');
    expect(await countRows(`SELECT count(*)::int AS n FROM asset_depreciations WHERE asset_id = $1`, [maskine])).toBe(8);
    expect(
      await countRows(`SELECT count(*)::int AS n FROM outbox_events WHERE type = 'asset.disposed' AND data->>'id' = $1 AND (data->>'gain')::numeric = 7000`, [
        maskine,
      ]),
    ).toBe(1);
  });

  it('scrapping: the loss to 3170', async () => {
    // 10,000 / 10 = 1,000 a month from February; February..May posted by the job, scrapped in June.
    skrot = (
      await created(t.api.POST('/assets', { params: idem(), body: { name: 'Printer', acquisition_date: '2026-02-01', cost: 10000, useful_life_months: 10 } }))
    ).data.id;
    await job('2026-05-31');
    expect((await posted(skrot)).map((m) => m[0])).toEqual(['2026-02-01', '2026-03-01', '2026-04-01', '2026-05-01']);
    const early = await t.raw.post(`/assets/${skrot}/dispose`, { date: '2026-01-31' });
    expect([early.status, early.body]).toMatchObject([400, { field: 'date' }]);
    const gone = (await ok(t.api.POST('/assets/{id}/dispose', { ...keyed(skrot), body: { date: '2026-06-15' } }))).data;
    const tx = (await ok(t.api.GET('/transactions/{id}', path(gone.disposal_transaction_id!)))).data;
    // 0 + 4,000 − 10,000: a loss of 6,000.
    expect(tx.lines.map((l) => [l.account_number, l.debit, l.credit])).toEqual([
      ['5610', 4000, 0],
      ['3170', 6000, 0],
      ['5580', 0, 10000],
    ]);
  });

  it('the register at a date: cost, accumulated depreciation, book value, as JSON and CSV', async () => {
    const end = (await register({ as_of: '2026-12-31', sort: 'acquisition_date', order: 'asc' })).data;
    // The van (18,333.30) and the PC (8 × 555.56 = 4,444.48); the machine and the printer are disposed of.
    expect(end.map((r) => [r.name, r.cost, r.accumulated_depreciation, r.book_value])).toEqual([
      ['Varebil', 120000, 18333.3, 101666.7],
      ['Bærbar PC', 20000, 4444.48, 15555.52],
    ]);
    const all = await register({ as_of: '2026-12-31', per_page: 1 });
    expect(all.meta).toMatchObject({ total: 2, total_pages: 2, totals: { cost: 140000, accumulated_depreciation: 22777.78, book_value: 117222.22 } });
    // On 31 May: the van March..May (5,499.99), the PC May (555.56), the machine not yet depreciated (its months came with the
    // disposal, dated each month's end: January..May, 7,500), the printer February..May (4,000).
    const may = await register({ as_of: '2026-05-31', sort: 'acquisition_date', order: 'asc' });
    expect(may.data.map((r) => [r.name, r.accumulated_depreciation, r.book_value])).toEqual([
      ['CNC-maskine', 7500, 72500],
      ['Printer', 4000, 6000],
      ['Varebil', 5499.99, 114500.01],
      ['Bærbar PC', 555.56, 19444.44],
    ]);
    const csv = await t.raw.get('/reports/assets?as_of=2026-12-31&sort=acquisition_date&order=asc', { Accept: 'text/csv' });
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="anlaegskartotek-2026-12-31.csv"');
    const lines = csv.text.trim().split(/\r?\n/);
    expect(lines[0]).toBe('asset_id,name,group,acquisition_date,asset_account_number,accumulated_account_number,cost,accumulated_depreciation,book_value');
    expect(lines.slice(1).map((l) => l.split(',').slice(1).join(','))).toEqual([
      'Varebil,operating_equipment,2026-03-15,5580,5610,120000,18333.3,101666.7',
      'Bærbar PC,operating_equipment,2026-05-10,5580,5610,20000,4444.48,15555.52',
      'I alt,,,,,140000,22777.78,117222.22',
    ]);
  });

  it('the tax view: the saldo pool at 25 %, small assets expensed, beside the accounting depreciation', async () => {
    const y = (await ok(t.api.GET('/assets/tax', { params: { query: { year: 2026 } } }))).data;
    // Pool: the van 120,000 and the machine 80,000 join (above 36,000, the 2026 limit); the machine's 75,000 leaves.
    // Basis 125,000; 25 % = 31,250; closing 93,750. The PC (20,000) and the printer (10,000) are expensed: 30,000.
    expect(y).toMatchObject({
      year: 2026,
      from: '2026-01-01',
      to: '2026-12-31',
      small_asset_limit: 36000,
      saldo_rate: 25,
      pool: {
        opening_balance: 0,
        additions: 200000,
        disposals: 75000,
        basis: 125000,
        depreciation: 31250,
        income: 0,
        closing_balance: 93750,
        written_off: false,
      },
      small_assets_expensed: 30000,
      small_asset_proceeds: 0,
      tax_depreciation: 61250,
      // 18,333.30 + 4,444.48 + 12,000 + 4,000 = 38,777.78.
      accounting_depreciation: 38777.78,
      difference: 22472.22,
    });
    expect(y.assets.map((a) => [a.name, a.tax_treatment, a.accounting_depreciation])).toEqual([
      ['CNC-maskine', 'pool', 12000],
      ['Printer', 'expensed', 4000],
      ['Varebil', 'pool', 18333.3],
      ['Bærbar PC', 'expensed', 4444.48],
    ]);
    // The next year starts from 93,750: 25 % = 23,437.50, closing 70,312.50; the accounting year: 12 × 1,833.33 + 12 × 555.56.
    const next = (await ok(t.api.GET('/assets/tax', { params: { query: { year: 2027 } } }))).data;
    expect(next.pool).toMatchObject({ opening_balance: 93750, additions: 0, basis: 93750, depreciation: 23437.5, closing_balance: 70312.5 });

    // A company limit of 15,000: the PC joins the pool (basis 145,000, 36,250), only the printer is expensed.
    expect((await ok(t.api.PUT('/settings/assets', { body: { small_asset_limit: 15000 } }))).data.small_asset_limit).toBe(15000);
    const lower = (await ok(t.api.GET('/assets/tax', { params: { query: { year: 2026 } } }))).data;
    expect(lower).toMatchObject({ small_asset_limit: 15000, pool: { additions: 220000, basis: 145000, depreciation: 36250 }, small_assets_expensed: 10000 });
    const settings = (await ok(t.api.PUT('/settings/assets', { body: { small_asset_limit: null } }))).data;
    expect(settings).toMatchObject({ small_asset_limit: null, statutory_limits: { '2025': 34400, '2026': 36000 } });
    expect((await t.raw.get('/assets/tax?year=x')).body).toMatchObject({ code: 'invalid_request', field: 'year' });
  });
});

describe('SAF-T', () => {
  it('carries the assets of the year and their transactions, valid against the Danish XSD', async () => {
    const r = await t.api.GET('/exports/saft', { params: { query: { from: '2026-01-01', to: '2026-12-31' } }, parseAs: 'text' });
    const xml = r.data as unknown as string;
    const check = await validateSaft(xml);
    expect(check.errors).toEqual([]);
    // The van, the PC, the machine and the printer were held in 2026.
    expect(xml.match(/<Asset>/g)).toHaveLength(4);
    // 4 additions, 10 + 8 + 8 + 4 months of depreciation and 2 disposals.
    expect(xml).toContain('<NumberOfAssetTransactions>36</NumberOfAssetTransactions>');
    const van = await get((await ok(t.api.GET('/assets', { params: { query: { search: 'Varebil' } } }))).data[0]!.id);
    const capitalisation = (await ok(t.api.GET('/transactions/{id}', path(van.capitalisation_transaction_id!)))).data;
    const vanId = van.id.replace(/-/g, '');
    expect(xml).toContain(`<AssetTransactionID>${vanId}-T</AssetTransactionID><AssetID>${vanId}</AssetID><AssetTransactionType>TILGANG</AssetTransactionType>`);
    expect(xml).toContain(`<AssetTransactionDate>2026-03-15</AssetTransactionDate><TransactionID>${capitalisation.document_number}</TransactionID>`);
    // The van's valuation for 2026: bought in the year, 18,333.30 depreciated, 101,666.70 left.
    expect(xml).toContain(
      '<AcquisitionAndProductionCostsBegin>0.00</AcquisitionAndProductionCostsBegin><AcquisitionAndProductionCostsEnd>120000.00</AcquisitionAndProductionCostsEnd>' +
        '<AssetLifeMonth>60</AssetLifeMonth><AssetAddition>120000.00</AssetAddition><AssetDisposal>0.00</AssetDisposal><BookValueBegin>0.00</BookValueBegin>' +
        '<DepreciationMethod>Lineær</DepreciationMethod><DepreciationForPeriod>18333.30</DepreciationForPeriod><AccumulatedDepreciation>18333.30</AccumulatedDepreciation>' +
        '<BookValueEnd>101666.70</BookValueEnd>',
    );
  });
});

describe("an asset from one line of a received e-invoice, with the project's dimensions", () => {
  const c = () => co.api;
  let co: Awaited<ReturnType<typeof t.another>>;
  let dim = '';
  let expense = '';
  let lines: { id: string; description: string }[] = [];
  let tavle = '';
  let svejser = '';
  const tx = async (id: string) =>
    (await ok(c().GET('/transactions/{id}', path(id)))).data.lines.map((l) => [l.account_number, l.debit, l.credit, l.dimensions]);
  /**
   * The OIOUBL package's invoice of 20 November, numbered `number`, imported and booked: Hejsetavle 5,000.00 and
   * 2 × Beslag 25.00 = 50.00, 25 % VAT (1,250.00 and 12.50), both proposed to 2810. Project B, the screws' line C;
   * half the VAT deductible.
   */
  async function bookedInvoice(number: string) {
    const xml = readFileSync(join(REFERENCE, 'einvoice', 'oioubl', 'examples', 'OIOUBL_Invoice_v2p2.xml'), 'utf8')
      .replace('<cbc:ID>A00095678<', `<cbc:ID>${number}<`)
      .replace('<cbc:IssueDate>2005-11-20', '<cbc:IssueDate>2026-11-20')
      .replace('<cbc:PaymentDueDate>2005-11-25', '<cbc:PaymentDueDate>2026-11-25');
    const r = await co.raw.call<{ data: { expense_id: string } }>('POST', '/einvoices/inbound', {
      raw: xml,
      headers: { 'Content-Type': 'application/xml', ...idem().header },
    });
    expect(r.status, r.text.slice(0, 500)).toBe(201);
    const id = r.body.data.expense_id;
    const draft = await ok(c().PUT('/expenses/{id}', { ...path(id), body: { dimensions: { Projekt: 'B' }, vat_deductible_percent: 50 } }));
    const screws = draft.data.lines[1]!.id;
    await ok(c().PUT('/expenses/{id}/lines/{line_id}', { params: { path: { id, line_id: screws } }, body: { dimensions: { Projekt: 'C' } } }));
    return { expense: id, lines: (await ok(c().PUT('/expenses/{id}/status', { ...path(id), body: { status: 'booked' } }))).data.lines };
  }

  it("costs the line at its net amount with its VAT not deductible, moves it off the line's account, once per line", async () => {
    co = await t.another('Linjeanlæg ApS');
    dim = (
      await created(
        c().POST('/dimensions', {
          params: idem(),
          body: {
            name: 'Projekt',
            values: [
              { code: 'B', name: 'Projekt B' },
              { code: 'C', name: 'Projekt C' },
            ],
          },
        }),
      )
    ).data.id;
    ({ expense, lines } = await bookedInvoice('A00095678'));
    expect(lines.map((l) => l.description)).toEqual(['Hejsetavle', 'Beslag']);
    // Booked: 2810 5,050.00 + the 631.25 of VAT not deductible (50 % of 1,262.50) = 5,681.25.
    expect(await balance('2810', co.company.companyId)).toBe(5681.25);

    const refusals: [Record<string, unknown>, number, string, string][] = [
      [{ expense_line_id: '00000000-0000-4000-8000-000000000000' }, 400, 'invalid_request', 'expense_line_id'],
      [{ expense_line_id: lines[0]!.id, cost: 5000 }, 400, 'invalid_request', 'cost'],
      [{ expense_line_id: lines[0]!.id, expense_id: '00000000-0000-4000-8000-000000000000' }, 400, 'invalid_request', 'expense_line_id'],
    ];
    for (const [body, status, code, field] of refusals) {
      const res = await co.raw.post('/assets', { name: 'X', useful_life_months: 12, ...body });
      expect([res.status, res.body], JSON.stringify(body)).toMatchObject([status, { code, field }]);
    }

    const a = (await created(c().POST('/assets', { params: idem(), body: { name: 'Hejsetavle', expense_line_id: lines[0]!.id, useful_life_months: 50 } })))
      .data;
    tavle = a.id;
    // 5,000.00 + half its 1,250.00 VAT = 5,625.00 on 20 November; 5,625 / 50 = 112.50 a month; the project the expense's.
    expect(a).toMatchObject({ cost: 5625, acquisition_date: '2026-11-20', expense_id: expense, expense_line_id: lines[0]!.id, monthly_depreciation: 112.5 });
    expect(a.dimensions).toEqual({ Projekt: 'B' });
    expect(await tx(a.capitalisation_transaction_id!)).toEqual([
      ['5580', 5625, 0, { Projekt: 'B' }],
      ['2810', 0, 5625, { Projekt: 'B' }],
    ]);
    // The line again, or the expense as a whole: 409. The screws, twice at once: one asset (50 + 6.25 = 56.25),
    // in the line's own project C.
    for (const body of [{ expense_line_id: lines[0]!.id }, { expense_id: expense }]) {
      const res = await co.raw.post('/assets', { name: 'Igen', useful_life_months: 12, ...body });
      expect([res.status, res.body]).toMatchObject([409, { code: 'asset_exists', field: Object.keys(body)[0] }]);
    }
    const both = await Promise.all(
      [1, 2].map(() => co.raw.post('/assets', { name: 'Beslag', expense_id: expense, expense_line_id: lines[1]!.id, useful_life_months: 5 })),
    );
    expect(both.map((x) => x.status).sort()).toEqual([201, 409]);
    expect(both.find((x) => x.status === 201)!.body).toMatchObject({ data: { cost: 56.25, monthly_depreciation: 11.25, dimensions: { Projekt: 'C' } } });
    const screwsAsset = (both.find((x) => x.status === 201)!.body as unknown as { data: { capitalisation_transaction_id: string } }).data;
    expect(await tx(screwsAsset.capitalisation_transaction_id)).toEqual([
      ['5580', 56.25, 0, { Projekt: 'C' }],
      ['2810', 0, 56.25, { Projekt: 'C' }],
    ]);
    expect(await balance('2810', co.company.companyId)).toBe(0);
    expect(await countRows(`SELECT count(*)::int AS n FROM fixed_assets WHERE expense_id = $1`, [expense])).toBe(2);
  });

  it("the same invoice as a whole: the capitalisation credits each line's project as booking charged it (decision 876)", async () => {
    const whole = await bookedInvoice('A00095679');
    // Booking charged 2810 per set of dimensions (decision 856): B the board's 5,000.00 and the whole 631.25 of VAT
    // not deductible (the code's largest line, decision 683) = 5,631.25, C the screws' 50.00. Together 5,681.25.
    const a = (await created(c().POST('/assets', { params: idem(), body: { name: 'Tavle og beslag', expense_id: whole.expense, useful_life_months: 50 } })))
      .data;
    expect(a).toMatchObject({ cost: 5681.25, dimensions: { Projekt: 'B' } });
    expect(await tx(a.capitalisation_transaction_id!)).toEqual([
      ['5580', 5681.25, 0, { Projekt: 'B' }],
      ['2810', 0, 5631.25, { Projekt: 'B' }],
      ['2810', 0, 50, { Projekt: 'C' }],
    ]);
    expect(await balance('2810', co.company.companyId)).toBe(0);
    // Deleted, the capitalisation is reversed line by line, projects included; the next tests see only the first two assets.
    await ok(c().DELETE('/assets/{id}', path(a.id)));
    expect(await balance('2810', co.company.companyId)).toBe(5681.25);
  });

  it('a dimension the company requires on the depreciation account: refused on the asset, and the job marks the asset and goes on', async () => {
    // 1,200 / 12 = 100 a month from October, no project; then the company requires a project on 3050.
    svejser = (
      await created(c().POST('/assets', { params: idem(), body: { name: 'Svejser', acquisition_date: '2026-10-01', cost: 1200, useful_life_months: 12 } }))
    ).data.id;
    await ok(c().PUT('/dimensions/{id}', { ...path(dim), body: { required_account_numbers: ['3050'] } }));
    const refused = await co.raw.post('/assets', { name: 'Boremaskine', acquisition_date: '2026-10-01', cost: 1200, useful_life_months: 12 });
    expect([refused.status, refused.body]).toMatchObject([400, { code: 'dimension_required', field: 'dimensions.Projekt' }]);
    const renamed = await co.raw.put(`/assets/${svejser}`, { name: 'Svejser 2' });
    expect([renamed.status, renamed.body]).toMatchObject([400, { code: 'dimension_required', field: 'dimensions.Projekt' }]);

    // The run of 30 November: the welder's October refused and kept on it; the board's November posted all the same.
    const run1 = await job('2026-11-30');
    expect(run1.failed.filter((f) => f.asset_id === svejser)).toMatchObject([{ month: '2026-10-01', code: 'dimension_required' }]);
    expect((await get(svejser, c())).depreciation_failure).toMatchObject({ month: '2026-10-01', code: 'dimension_required' });
    const board = await get(tavle, c());
    expect(board.months_depreciated).toBe(1);
    expect(await tx(board.postings.at(-1)!.transaction_id)).toEqual([
      ['3050', 112.5, 0, { Projekt: 'B' }],
      ['5610', 0, 112.5, { Projekt: 'B' }],
    ]);

    // The project given: the failure cleared; the next run posts October and November with it.
    expect((await ok(c().PUT('/assets/{id}', { ...path(svejser), body: { dimensions: { Projekt: 'B' } } }))).data.depreciation_failure).toBeNull();
    await job('2026-11-30');
    expect(await get(svejser, c())).toMatchObject({ months_depreciated: 2, depreciation_failure: null });
  });

  it('project B retired: the assets keep it and their months post with it; a new asset is refused it', async () => {
    await ok(c().PUT('/dimensions/{id}', { ...path(dim), body: { values: [{ code: 'B', retired: true }] } }));
    const refused = await co.raw.post('/assets', {
      name: 'Ny',
      acquisition_date: '2026-12-01',
      cost: 1200,
      useful_life_months: 12,
      dimensions: { Projekt: 'B' },
    });
    expect([refused.status, refused.body]).toMatchObject([400, { code: 'dimension_value_retired', field: 'dimensions.Projekt' }]);
    expect((await ok(c().PUT('/assets/{id}', { ...path(svejser), body: { name: 'Svejser 2', dimensions: { Projekt: 'B' } } }))).data.name).toBe('Svejser 2');
    const run = await job('2026-12-31');
    expect(run.failed.filter((f) => [tavle, svejser].includes(f.asset_id))).toEqual([]);
    // Project B's December: the board 112.50 and the welder 100 = 212.50 of depreciation (the screws' 11.25 are C's).
    const pl = await ok(c().GET('/reports/profit-loss', { params: { query: { from: '2026-12-01', to: '2026-12-31', dimension: { Projekt: 'B' } } as never } }));
    expect((pl as { data: { totals: { result: number } } }).data.totals.result).toBe(-212.5);
  });
});
