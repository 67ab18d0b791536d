// The accounting core through HTTP: the seeded chart, accounts, transactions and their refusals,
// immutability, reversal, and gapless numbering.
import { describe, expect, it } from 'vitest';
import type { Db } from '@tlr/db';
import { Decimal, openJournalBatch, today as businessDay, updateAccountingSettings } from '@tlr/domain';
import { api, created, idem, ok, testDb, useCompany, type Api, type RequestBody } from './helpers.ts';

const t = useCompany();
const today = businessDay();
const year = Number(today.slice(0, 4));

type Posting = RequestBody<'/transactions', 'post'>;
type Line = Posting['lines'][number];
const postWith = (c: Api, body: Posting) => c.POST('/transactions', { params: idem(), body });
const post = (lines: Line[], extra: Partial<Posting> = {}) => postWith(t.api, { date: today, description: 'Test', lines, ...extra });
const dr = (account_number: string, debit: number | string): Line => ({ account_number, debit });
const cr = (account_number: string, credit: number | string): Line => ({ account_number, credit });
const reverse = (id: string, key?: string) => t.api.POST('/transactions/{id}/reverse', { params: { path: { id }, ...idem(key) }, body: {} });
const createAccount = (body: RequestBody<'/accounts', 'post'>) => t.api.POST('/accounts', { params: idem(), body });
const updateAccount = (id: string, body: RequestBody<'/accounts/{id}', 'put'>) => t.api.PUT('/accounts/{id}', { params: { path: { id } }, body });

describe('chart of accounts', () => {
  it('is seeded from the Danish standard chart for every company', async () => {
    const r = await t.api.GET('/accounts', { params: { query: { per_page: 200, order: 'asc' } } });
    expect(r.response.status).toBe(200);
    expect(r.data?.meta.total).toBe(305);
    expect(r.data?.data[0]).toMatchObject({
      account_number: '1010',
      name: 'Salg af varer og ydelser',
      type: 'revenue',
      standard_account_id: '1010',
      default_vat_code: 'S25',
      group_name: 'Nettoomsætning',
      active: true,
    });
    const found = await ok(t.api.GET('/accounts', { params: { query: { search: 'salgsmoms' } } }));
    expect(found.data.map((a) => a.account_number)).toContain('7680');
    const equity = (await ok(t.api.GET('/accounts', { params: { query: { type: 'equity', per_page: 200 } } }))).data;
    expect(equity.length).toBeGreaterThan(0);
    expect(equity.every((a) => a.type === 'equity')).toBe(true);
  });

  it('creates an account (with Idempotency-Key) and refuses a taken number', async () => {
    const r = await createAccount({
      account_number: '1015',
      name: 'Salg af konsulentydelser',
      type: 'revenue',
      default_vat_code: 'S25',
      standard_account_id: '1010',
    });
    expect(r.response.status).toBe(201);
    expect(r.data?.data).toMatchObject({ account_number: '1015', group_code: '1010-1389', active: true });
    const dup = await createAccount({ account_number: '1015', name: 'Dublet', type: 'revenue' });
    expect(dup.response.status).toBe(409);
    expect(dup.error?.code).toBe('account_number_taken');
    // A type outside the enum: malformed on purpose, so through the untyped client.
    expect((await t.raw.post('/accounts', { account_number: '1016', name: 'X', type: 'income' })).body.field).toBe('type');
    // without a type, the number's standard-chart group decides; outside every group it must be given
    expect((await ok(createAccount({ account_number: '2035', name: 'Husleje lager' }))).data).toMatchObject({
      type: 'expense',
      group_code: '2030-2209',
    });
    expect((await createAccount({ account_number: '9100', name: 'Uden gruppe' })).error).toMatchObject({ code: 'invalid_request', field: 'type' });
    expect((await createAccount({ account_number: '1017', name: 'X', type: 'revenue', default_vat_code: 'NOPE' })).error?.field).toBe('default_vat_code');
    // Without the Idempotency-Key the typed client always sends.
    expect((await t.raw.post('/accounts', { account_number: '1018', name: 'X', type: 'revenue' }, {})).status).toBe(400);
    // the same new number from many requests at once: exactly one account, the rest 409
    const racing = await Promise.all(Array.from({ length: 8 }, () => createAccount({ account_number: '1019', name: 'Kapløb', type: 'revenue' })));
    expect(racing.map((r) => r.response.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
  });

  it('keeps number and type once an account has postings, and deactivates instead of deleting', async () => {
    const acc = (await created(createAccount({ account_number: '2999', name: 'Diverse', type: 'expense' }))).data;
    expect((await ok(updateAccount(acc.id, { account_number: '2998' }))).data.account_number).toBe('2998');
    expect((await post([dr('2998', 10), cr('6470', 10)])).response.status).toBe(201);
    const renumber = await updateAccount(acc.id, { account_number: '2997' });
    expect(renumber.response.status).toBe(409);
    expect(renumber.error).toMatchObject({ code: 'account_has_postings', field: 'account_number' });
    expect((await updateAccount(acc.id, { type: 'asset' })).error?.code).toBe('account_has_postings');
    expect((await ok(updateAccount(acc.id, { name: 'Diverse udgifter' }))).data.name).toBe('Diverse udgifter');
    expect((await ok(updateAccount(acc.id, { active: false }))).data.active).toBe(false);
    const inactive = await post([dr('2998', 10), cr('6470', 10)]);
    expect(inactive.response.status).toBe(422);
    expect(inactive.error).toMatchObject({ code: 'account_inactive', field: 'lines[0].account_number' });
    // The document has no such operation, so the typed client cannot send it.
    expect((await t.raw.del(`/accounts/${acc.id}`)).status).toBe(405);
  });
});

describe('transactions', () => {
  it('posts a balanced transaction with numbers, lines and totals', async () => {
    const tx = (
      await created(
        post([dr('6470', '1250.00'), cr('1010', 1000), { account_number: '7680', credit: 250, vat_code: 'S25', description: 'Moms' }], {
          description: 'Kontantsalg',
        }),
      )
    ).data;
    expect(tx).toMatchObject({
      date: today,
      description: 'Kontantsalg',
      source: 'manual',
      total_debit: 1250,
      total_credit: 1250,
      currency: 'DKK',
      reverses_transaction_id: null,
    });
    expect(tx.lines).toHaveLength(3);
    expect(tx.lines[2]).toMatchObject({ account_number: '7680', credit: 250, debit: 0, vat_code: 'S25', description: 'Moms' });
    expect(Number.isInteger(tx.document_number) && Number.isInteger(tx.system_id)).toBe(true);
    expect((await ok(t.api.GET('/transactions/{id}', { params: { path: { id: tx.id } } }))).data).toEqual(tx);
    const evt = await testDb().prisma.outboxEvent.findFirst({
      where: { company_id: t.company.companyId, type: 'transaction.created', data: { path: ['id'], equals: tx.id } },
    });
    expect(evt?.data).toMatchObject({ id: tx.id, document_number: tx.document_number, total_debit: 1250 });
  });

  it('keeps texts as given: quotes, backslashes, commas, braces and the word NULL (the journal writer quotes its columns itself)', async () => {
    const odd = 'Sagt: "NULL", {a,b} \\ C:\\temp\\ 50% rabat';
    const tx = (
      await created(
        post(
          [
            { account_number: '6470', debit: 10, description: 'NULL' },
            { ...cr('1010', 10), description: odd },
          ],
          { description: odd },
        ),
      )
    ).data;
    const read = (await ok(t.api.GET('/transactions/{id}', { params: { path: { id: tx.id } } }))).data;
    expect(read.description).toBe(odd);
    expect(read.lines.map((l) => l.description)).toEqual(['NULL', odd]);
  });

  it.each<[string, Line[], number, string, string]>([
    ['unbalanced by one øre', [dr('6470', '100.00'), cr('1010', '99.99')], 422, 'unbalanced_transaction', 'lines'],
    ['debit and credit on one line', [{ account_number: '6470', debit: 10, credit: 10 }, cr('1010', 0)], 400, 'invalid_request', 'lines[0]'],
    ['a negative amount', [dr('6470', -10), cr('1010', -10)], 400, 'invalid_request', 'lines[0].debit'],
    ['more than 2 decimals', [dr('6470', '10.001'), cr('1010', '10.001')], 400, 'invalid_request', 'lines[0].debit'],
    ['a single line', [dr('6470', 10)], 400, 'invalid_request', 'lines'],
    ['an unknown account', [dr('9999', 10), cr('1010', 10)], 400, 'invalid_request', 'lines[0].account_number'],
    ['an unknown VAT code', [{ account_number: '6470', debit: 10, vat_code: 'X' }, cr('1010', 10)], 400, 'invalid_request', 'lines[0].vat_code'],
    ['a line without account', [{ debit: 10 }, cr('1010', 10)], 400, 'invalid_request', 'lines[0].account_id'],
  ])('refuses %s', async (_name, lines, status, code, field) => {
    const before = await testDb().prisma.ledgerTransaction.count({ where: { company_id: t.company.companyId } });
    const r = await post(lines);
    expect(r.response.status).toBe(status);
    expect(r.error).toMatchObject({ code, field });
    expect(await testDb().prisma.ledgerTransaction.count({ where: { company_id: t.company.companyId } })).toBe(before);
  });

  it("refuses another company's account", async () => {
    const other = await t.another('Anden ApS');
    const theirs = (await ok(other.api.GET('/accounts', { params: { query: { search: '1010' } } }))).data[0]?.id;
    expect(theirs).toBeDefined();
    const r = await post([{ account_id: theirs, debit: 10 }, cr('6470', 10)]);
    expect(r.response.status).toBe(400);
    expect(r.error).toMatchObject({ code: 'invalid_request', field: 'lines[0].account_id' });
  });

  it("reports a batch's write that send() started at the next flush: a lock date set meanwhile refuses it, nothing posted", async () => {
    const own = await t.another('Batch ApS');
    const scope = { companyId: own.company.companyId, livemode: true };
    const outcome = await testDb().prisma.$transaction(async (txc) => {
      const tx = txc as Db;
      const id = async (n: string) => (await tx.account.findFirstOrThrow({ where: { company_id: scope.companyId, account_number: n } })).id;
      const [bank, sales] = [await id('6470'), await id('1010')];
      const batch = await openJournalBatch(tx, scope, { events: false });
      const ten = new Decimal(10);
      const zero = new Decimal(0);
      await batch.add({
        date: today,
        description: 'Batch',
        source: 'manual',
        lines: [
          { accountId: bank, debit: ten, credit: zero, description: '', vatCode: '' },
          { accountId: sales, debit: zero, credit: ten, description: '', vatCode: '' },
        ],
      });
      // The batch read the company when it opened; the statement reads the lock date again under the lock.
      await tx.company.update({ where: { id: scope.companyId }, data: { lock_date: new Date(`${today}T00:00:00Z`) } });
      await batch.send();
      return batch.flush().then(
        () => 'written',
        (e: unknown) => e,
      );
    });
    expect(outcome).toMatchObject({ code: 'period_locked' });
    expect(await testDb().prisma.ledgerTransaction.count({ where: { company_id: scope.companyId } })).toBe(0);
  });

  it('refuses dates on or before the lock date, and outside any open fiscal year', async () => {
    const own = await t.another('Låst ApS');
    const oc = own.api;
    await updateAccountingSettings(testDb().prisma, own.company.companyId, { lock_date: `${year}-03-31` });
    const locked = await postWith(oc, { date: `${year}-03-31`, lines: [dr('6470', 10), cr('1010', 10)] });
    expect(locked.response.status).toBe(422);
    expect(locked.error).toMatchObject({ code: 'period_locked', field: 'date' });
    expect((await postWith(oc, { date: `${year}-04-01`, lines: [dr('6470', 10), cr('1010', 10)] })).response.status).toBe(201);
    const before = await post([dr('6470', 10), cr('1010', 10)], { date: `${year - 1}-12-31` });
    expect(before.response.status).toBe(422);
    expect(before.error).toMatchObject({ code: 'fiscal_year_not_open', field: 'date' });
    const far = await postWith(oc, { date: `${year + 2}-06-01`, lines: [dr('6470', 10), cr('1010', 10)] });
    expect(far.error?.code).toBe('fiscal_year_not_open');
    // the year right after the last one opens automatically, with its VAT periods
    const next = await postWith(oc, { date: `${year + 1}-01-15`, lines: [dr('6470', 10), cr('1010', 10)] });
    expect(next.response.status).toBe(201);
    const settings = (await ok(oc.GET('/settings/accounting'))).data;
    expect(settings.fiscal_years.map((y) => y.start_date)).toEqual([`${year}-01-01`, `${year + 1}-01-01`]);
    expect(settings.fiscal_years[1]?.vat_periods).toHaveLength(4);
    expect(settings.lock_date).toBe(`${year}-03-31`);
    // numbers stayed gapless across the refusals
    const listed = (await ok(oc.GET('/transactions', { params: { query: { sort: 'created_at', order: 'asc' } } }))).data;
    expect(listed.map((tx) => [tx.document_number, tx.system_id])).toEqual([
      [1, 1],
      [2, 2],
    ]);
  });

  it('is immutable: no PUT or DELETE endpoint, and the database refuses changes', async () => {
    const tx = (await created(post([dr('6470', 5), cr('1010', 5)]))).data;
    // The document has no such operations, so the typed client cannot send them.
    expect((await t.raw.put(`/transactions/${tx.id}`, { description: 'x' })).status).toBe(405);
    expect((await t.raw.del(`/transactions/${tx.id}`)).status).toBe(405);
    await expect(testDb().pool.query('UPDATE transaction_lines SET debit = 6 WHERE transaction_id = $1', [tx.id])).rejects.toThrow(/immutable/);
    await expect(testDb().pool.query('DELETE FROM ledger_transactions WHERE id = $1', [tx.id])).rejects.toThrow(/immutable/);
  });

  it('corrects by a reversing transaction, once', async () => {
    const tx = (await created(post([dr('2200', 300), cr('6470', 300)], { description: 'Forkert konto' }))).data;
    const reversal = (await created(reverse(tx.id))).data;
    expect(reversal).toMatchObject({ source: 'reversal', reverses_transaction_id: tx.id, total_debit: 300 });
    expect(reversal.lines.map((l) => [l.account_number, l.debit, l.credit])).toEqual([
      ['2200', 0, 300],
      ['6470', 300, 0],
    ]);
    expect(reversal.document_number).toBeGreaterThan(tx.document_number);
    expect((await ok(t.api.GET('/transactions/{id}', { params: { path: { id: tx.id } } }))).data.reversed_by_transaction_id).toBe(reversal.id);
    const again = await reverse(tx.id);
    expect(again.response.status).toBe(409);
    expect(again.error?.code).toBe('already_reversed');
    // an Idempotency-Key replays only the reversal it was used for
    const other = (await created(post([dr('2030', 50), cr('6470', 50)]))).data;
    const keyed = await reverse(tx.id, 'rev-1');
    expect(keyed.response.status).toBe(409);
    const first = await reverse(other.id, 'rev-2');
    expect(first.response.status).toBe(201);
    const replay = await reverse(other.id, 'rev-2');
    expect(replay.response.headers.get('x-idempotency-replayed')).toBe('true');
    expect(replay.data).toEqual(first.data);
    const elsewhere = await reverse(tx.id, 'rev-2');
    expect(elsewhere.response.status).toBe(400);
    expect(elsewhere.error?.field).toBe('Idempotency-Key');
  });

  it('lists by date with filters and validates parameters', async () => {
    const r = await t.api.GET('/transactions', { params: { query: { since: today, until: today, per_page: 5 } } });
    expect(r.response.status).toBe(200);
    expect(r.data?.meta.per_page).toBe(5);
    // A sort field outside the enum: malformed on purpose, so through the untyped client.
    expect((await t.raw.get('/transactions?sort=amount')).body.field).toBe('sort');
    expect((await ok(t.api.GET('/transactions', { params: { query: { search: 'Kontantsalg' } } }))).data[0]?.description).toBe('Kontantsalg');
  });
});

describe('sandbox books', () => {
  it('a sandbox gets the seeded chart, a fiscal year and VAT periods with the live frequency', async () => {
    const { company: own } = await t.another('Månedlig ApS');
    await updateAccountingSettings(testDb().prisma, own.companyId, { vat_period_frequency: 'monthly' });
    const tc = api(t.svc.url, (await own.key(undefined, 'test')).key);
    expect((await ok(tc.GET('/accounts'))).meta.total).toBe(305);
    const s = (await ok(tc.GET('/settings/accounting'))).data;
    expect(s.vat_period_frequency).toBe('monthly');
    expect(s.fiscal_years).toHaveLength(1);
    expect(s.fiscal_years[0]?.vat_periods).toHaveLength(12);
    expect((await ok(postWith(tc, { date: today, lines: [dr('6470', 1), cr('1010', 1)] }))).data.document_number).toBe(1);
  });
});
