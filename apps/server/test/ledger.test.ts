// The accounting core through HTTP: the seeded chart, accounts, transactions and their refusals,
// immutability, reversal, and gapless numbering.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { today as businessDay, updateAccountingSettings } from '@tlr/domain';
import { client, newCompany, startTestService, testDb } from './helpers.ts';
import type { Service } from '../src/service.ts';

let svc: Service;
let company: Awaited<ReturnType<typeof newCompany>>;
let c: ReturnType<typeof client>;
const today = businessDay();
const year = Number(today.slice(0, 4));

beforeAll(async () => {
  svc = await startTestService();
  company = await newCompany();
  c = client(svc.url, (await company.key()).key);
});
afterAll(() => svc.stop());

const post = (lines: object[], extra: object = {}) => c.post('/transactions', { date: today, description: 'Test', lines, ...extra });
const dr = (account_number: string, debit: number | string) => ({ account_number, debit });
const cr = (account_number: string, credit: number | string) => ({ account_number, credit });

describe('chart of accounts', () => {
  it('is seeded from the Danish standard chart for every company', async () => {
    const r = await c.get('/accounts?per_page=200&order=asc');
    expect(r.status).toBe(200);
    expect(r.body.meta.total).toBe(305);
    expect(r.body.data[0]).toMatchObject({
      account_number: '1010',
      name: 'Salg af varer og ydelser',
      type: 'revenue',
      standard_account_id: '1010',
      default_vat_code: 'S25',
      group_name: 'Nettoomsætning',
      active: true,
    });
    const found = await c.get('/accounts?search=salgsmoms');
    expect(found.body.data.map((a: any) => a.account_number)).toContain('7680');
    expect((await c.get('/accounts?type=equity&per_page=200')).body.data.every((a: any) => a.type === 'equity')).toBe(true);
  });

  it('creates an account (with Idempotency-Key) and refuses a taken number', async () => {
    const r = await c.post('/accounts', {
      account_number: '1015',
      name: 'Salg af konsulentydelser',
      type: 'revenue',
      default_vat_code: 'S25',
      standard_account_id: '1010',
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ account_number: '1015', group_code: '1010-1389', active: true });
    const dup = await c.post('/accounts', { account_number: '1015', name: 'Dublet', type: 'revenue' });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('account_number_taken');
    expect((await c.post('/accounts', { account_number: '1016', name: 'X', type: 'income' })).body.field).toBe('type');
    // without a type, the number's standard-chart group decides; outside every group it must be given
    expect((await c.post('/accounts', { account_number: '2035', name: 'Husleje lager' })).body.data).toMatchObject({
      type: 'expense',
      group_code: '2030-2209',
    });
    expect((await c.post('/accounts', { account_number: '9100', name: 'Uden gruppe' })).body).toMatchObject({ code: 'invalid_request', field: 'type' });
    expect((await c.post('/accounts', { account_number: '1017', name: 'X', type: 'revenue', default_vat_code: 'NOPE' })).body.field).toBe('default_vat_code');
    expect((await c.post('/accounts', { account_number: '1018', name: 'X', type: 'revenue' }, {})).status).toBe(400);
    // the same new number from many requests at once: exactly one account, the rest 409
    const racing = await Promise.all(Array.from({ length: 8 }, () => c.post('/accounts', { account_number: '1019', name: 'Kapløb', type: 'revenue' })));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
  });

  it('keeps number and type once an account has postings, and deactivates instead of deleting', async () => {
    const acc = (await c.post('/accounts', { account_number: '2999', name: 'Diverse', type: 'expense' })).body.data;
    expect((await c.put(`/accounts/${acc.id}`, { account_number: '2998' })).body.data.account_number).toBe('2998');
    expect((await post([dr('2998', 10), cr('6470', 10)])).status).toBe(201);
    const renumber = await c.put(`/accounts/${acc.id}`, { account_number: '2997' });
    expect(renumber.status).toBe(409);
    expect(renumber.body).toMatchObject({ code: 'account_has_postings', field: 'account_number' });
    expect((await c.put(`/accounts/${acc.id}`, { type: 'asset' })).body.code).toBe('account_has_postings');
    expect((await c.put(`/accounts/${acc.id}`, { name: 'Diverse udgifter' })).body.data.name).toBe('Diverse udgifter');
    expect((await c.put(`/accounts/${acc.id}`, { active: false })).body.data.active).toBe(false);
    const inactive = await post([dr('2998', 10), cr('6470', 10)]);
    expect(inactive.status).toBe(422);
    expect(inactive.body).toMatchObject({ code: 'account_inactive', field: 'lines[0].account_number' });
    expect((await c.call('DELETE', `/accounts/${acc.id}`)).status).toBe(405);
  });
});

describe('transactions', () => {
  it('posts a balanced transaction with numbers, lines and totals', async () => {
    const r = await post([dr('6470', '1250.00'), cr('1010', 1000), { account_number: '7680', credit: 250, vat_code: 'S25', description: 'Moms' }], {
      description: 'Kontantsalg',
    });
    expect(r.status).toBe(201);
    const t = r.body.data;
    expect(t).toMatchObject({
      date: today,
      description: 'Kontantsalg',
      source: 'manual',
      total_debit: 1250,
      total_credit: 1250,
      currency: 'DKK',
      reverses_transaction_id: null,
    });
    expect(t.lines).toHaveLength(3);
    expect(t.lines[2]).toMatchObject({ account_number: '7680', credit: 250, debit: 0, vat_code: 'S25', description: 'Moms' });
    expect(Number.isInteger(t.document_number) && Number.isInteger(t.system_id)).toBe(true);
    expect((await c.get(`/transactions/${t.id}`)).body.data).toEqual(t);
    const evt = await testDb().prisma.outboxEvent.findFirst({
      where: { company_id: company.companyId, type: 'transaction.created', data: { path: ['id'], equals: t.id } },
    });
    expect(evt?.data).toMatchObject({ id: t.id, document_number: t.document_number, total_debit: 1250 });
  });

  it.each([
    ['unbalanced by one øre', [dr('6470', '100.00'), cr('1010', '99.99')], 422, 'unbalanced_transaction', 'lines'],
    ['debit and credit on one line', [{ account_number: '6470', debit: 10, credit: 10 }, cr('1010', 0)], 400, 'invalid_request', 'lines[0]'],
    ['a negative amount', [dr('6470', -10), cr('1010', -10)], 400, 'invalid_request', 'lines[0].debit'],
    ['more than 2 decimals', [dr('6470', '10.001'), cr('1010', '10.001')], 400, 'invalid_request', 'lines[0].debit'],
    ['a single line', [dr('6470', 10)], 400, 'invalid_request', 'lines'],
    ['an unknown account', [dr('9999', 10), cr('1010', 10)], 400, 'invalid_request', 'lines[0].account_number'],
    ['an unknown VAT code', [{ account_number: '6470', debit: 10, vat_code: 'X' }, cr('1010', 10)], 400, 'invalid_request', 'lines[0].vat_code'],
    ['a line without account', [{ debit: 10 }, cr('1010', 10)], 400, 'invalid_request', 'lines[0].account_id'],
  ])('refuses %s', async (_name, lines, status, code, field) => {
    const before = await testDb().prisma.ledgerTransaction.count({ where: { company_id: company.companyId } });
    const r = await post(lines as object[]);
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject({ code, field });
    expect(await testDb().prisma.ledgerTransaction.count({ where: { company_id: company.companyId } })).toBe(before);
  });

  it("refuses another company's account", async () => {
    const other = await newCompany('Anden ApS');
    const theirs = (await client(svc.url, (await other.key()).key).get('/accounts?search=1010')).body.data[0].id;
    const r = await post([{ account_id: theirs, debit: 10 }, cr('6470', 10)]);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'lines[0].account_id' });
  });

  it('refuses dates on or before the lock date, and outside any open fiscal year', async () => {
    const own = await newCompany('Låst ApS');
    const oc = client(svc.url, (await own.key()).key);
    await updateAccountingSettings(testDb().prisma, own.companyId, { lock_date: `${year}-03-31` });
    const locked = await oc.post('/transactions', { date: `${year}-03-31`, lines: [dr('6470', 10), cr('1010', 10)] });
    expect(locked.status).toBe(422);
    expect(locked.body).toMatchObject({ code: 'period_locked', field: 'date' });
    expect((await oc.post('/transactions', { date: `${year}-04-01`, lines: [dr('6470', 10), cr('1010', 10)] })).status).toBe(201);
    const before = await post([dr('6470', 10), cr('1010', 10)], { date: `${year - 1}-12-31` });
    expect(before.status).toBe(422);
    expect(before.body).toMatchObject({ code: 'fiscal_year_not_open', field: 'date' });
    const far = await oc.post('/transactions', { date: `${year + 2}-06-01`, lines: [dr('6470', 10), cr('1010', 10)] });
    expect(far.body.code).toBe('fiscal_year_not_open');
    // the year right after the last one opens automatically, with its VAT periods
    const next = await oc.post('/transactions', { date: `${year + 1}-01-15`, lines: [dr('6470', 10), cr('1010', 10)] });
    expect(next.status).toBe(201);
    const settings = (await oc.get('/settings/accounting')).body.data;
    expect(settings.fiscal_years.map((y: any) => y.start_date)).toEqual([`${year}-01-01`, `${year + 1}-01-01`]);
    expect(settings.fiscal_years[1].vat_periods).toHaveLength(4);
    expect(settings.lock_date).toBe(`${year}-03-31`);
    // numbers stayed gapless across the refusals
    const numbers = (await oc.get('/transactions?sort=created_at&order=asc')).body.data.map((t: any) => [t.document_number, t.system_id]);
    expect(numbers).toEqual([
      [1, 1],
      [2, 2],
    ]);
  });

  it('is immutable: no PUT or DELETE endpoint, and the database refuses changes', async () => {
    const t = (await post([dr('6470', 5), cr('1010', 5)])).body.data;
    expect((await c.call('PUT', `/transactions/${t.id}`, { body: { description: 'x' } })).status).toBe(405);
    expect((await c.call('DELETE', `/transactions/${t.id}`)).status).toBe(405);
    await expect(testDb().pool.query('UPDATE transaction_lines SET debit = 6 WHERE transaction_id = $1', [t.id])).rejects.toThrow(/immutable/);
    await expect(testDb().pool.query('DELETE FROM ledger_transactions WHERE id = $1', [t.id])).rejects.toThrow(/immutable/);
  });

  it('corrects by a reversing transaction, once', async () => {
    const t = (await post([dr('2200', 300), cr('6470', 300)], { description: 'Forkert konto' })).body.data;
    const rev = await c.post(`/transactions/${t.id}/reverse`, {});
    expect(rev.status).toBe(201);
    expect(rev.body.data).toMatchObject({ source: 'reversal', reverses_transaction_id: t.id, total_debit: 300 });
    expect(rev.body.data.lines.map((l: any) => [l.account_number, l.debit, l.credit])).toEqual([
      ['2200', 0, 300],
      ['6470', 300, 0],
    ]);
    expect(rev.body.data.document_number).toBeGreaterThan(t.document_number);
    expect((await c.get(`/transactions/${t.id}`)).body.data.reversed_by_transaction_id).toBe(rev.body.data.id);
    const again = await c.post(`/transactions/${t.id}/reverse`, {});
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('already_reversed');
    // an Idempotency-Key replays only the reversal it was used for
    const other = (await post([dr('2030', 50), cr('6470', 50)])).body.data;
    const keyed = await c.post(`/transactions/${t.id}/reverse`, {}, { 'Idempotency-Key': 'rev-1' });
    expect(keyed.status).toBe(409);
    const first = await c.post(`/transactions/${other.id}/reverse`, {}, { 'Idempotency-Key': 'rev-2' });
    expect(first.status).toBe(201);
    const replay = await c.post(`/transactions/${other.id}/reverse`, {}, { 'Idempotency-Key': 'rev-2' });
    expect(replay.headers.get('x-idempotency-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    const elsewhere = await c.post(`/transactions/${t.id}/reverse`, {}, { 'Idempotency-Key': 'rev-2' });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.field).toBe('Idempotency-Key');
  });

  it('lists by date with filters and validates parameters', async () => {
    const r = await c.get(`/transactions?since=${today}&until=${today}&per_page=5`);
    expect(r.status).toBe(200);
    expect(r.body.meta.per_page).toBe(5);
    expect((await c.get('/transactions?sort=amount')).body.field).toBe('sort');
    expect((await c.get('/transactions?search=Kontantsalg')).body.data[0].description).toBe('Kontantsalg');
  });
});

describe('sandbox books', () => {
  it('a sandbox gets the seeded chart, a fiscal year and VAT periods with the live frequency', async () => {
    const own = await newCompany('Månedlig ApS');
    await updateAccountingSettings(testDb().prisma, own.companyId, { vat_period_frequency: 'monthly' });
    const test = await own.key(undefined, 'test');
    const tc = client(svc.url, test.key);
    expect((await tc.get('/accounts')).body.meta.total).toBe(305);
    const s = (await tc.get('/settings/accounting')).body.data;
    expect(s.vat_period_frequency).toBe('monthly');
    expect(s.fiscal_years).toHaveLength(1);
    expect(s.fiscal_years[0].vat_periods).toHaveLength(12);
    expect((await tc.post('/transactions', { date: today, lines: [dr('6470', 1), cr('1010', 1)] })).body.data.document_number).toBe(1);
  });
});
