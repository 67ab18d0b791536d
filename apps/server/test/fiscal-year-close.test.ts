// Closing the fiscal year through HTTP (docs/reports.md#closing-the-fiscal-year): the blockers (a draft, an
// unsettled VAT period, an earlier open year), the closing entry moving the year's result to 6940 through
// the journal writer, the closed year refusing postings, the profit and loss still showing the result,
// the next year's opening balances, reopening with a reason (control trail, reversing entry), closing
// again, two closes at once giving one closing entry, the events. Every figure by hand.
// Contract, Conventions 2: "Same key on the same endpoint again: the original stored response (same status
// and body) is returned with header X-Idempotency-Replayed: true and nothing new is created."
import { beforeAll, describe, expect, it } from 'vitest';
import { today as businessDay } from '@tlr/domain';
import { created, idem, ok, testDb, useCompany, type Api, type RequestBody } from './helpers.ts';

const t = useCompany({ name: 'Årsafslutning ApS' });
const Y = Number(businessDay().slice(0, 4)); // the company's first fiscal year (calendar year)
const N = Y + 1;
const YS = `${Y}-01-01`;

type Line = RequestBody<'/transactions', 'post'>['lines'][number];
const dr = (account_number: string, debit: number): Line => ({ account_number, debit });
const cr = (account_number: string, credit: number): Line => ({ account_number, credit });
const post = (c: Api, date: string, description: string, lines: Line[]) => c.POST('/transactions', { params: idem(), body: { date, description, lines } });
const close = (start: string, key = `close-${crypto.randomUUID()}`, c = t.api) =>
  c.POST('/fiscal-years/{start}/close', { params: { path: { start }, ...idem(key) } });
const reopen = (start: string, reason: string, c = t.api) =>
  c.POST('/fiscal-years/{start}/reopen', { params: { path: { start }, ...idem() }, body: { reason } });
const lines = async (id: string) =>
  (await ok(t.api.GET('/transactions/{id}', { params: { path: { id } } }))).data.lines.map((l) => [l.account_number, l.debit, l.credit]);
const events = (type: string) => testDb().prisma.outboxEvent.findMany({ where: { company_id: t.company.companyId, type }, orderBy: { sequence: 'asc' } });
let draftId: string;

beforeAll(async () => {
  // Not VAT registered: no VAT period of the year waits for a settlement (another company tests that).
  await testDb().prisma.company.update({ where: { id: t.company.companyId }, data: { vat_registered: false } });
  const c = t.api;
  await created(post(c, `${Y}-01-10`, 'Indskud', [dr('6470', 10000), cr('6520', 10000)]));
  await created(post(c, `${Y}-03-01`, 'Salg', [dr('6470', 5000), cr('1010', 5000)]));
  await created(post(c, `${Y}-04-01`, 'Husleje', [dr('2030', 1200), cr('6470', 1200)]));
  await created(post(c, `${Y}-05-01`, 'Renter', [dr('6470', 100), cr('3470', 100)]));
  // Year N: opened by posting into it.
  await created(post(c, `${N}-01-05`, 'Salg', [dr('6470', 1000), cr('1010', 1000)]));
  const customer = (await created(c.POST('/customers', { params: idem(), body: { name: 'Kunde ApS' } }))).data.id;
  draftId = (
    await created(
      c.POST('/invoices', {
        params: idem(),
        body: { customer_id: customer, issue_date: `${Y}-06-01`, due_date: `${Y}-06-15`, lines: [{ description: 'Kladde', quantity: 1, unit_price: 100 }] },
      }),
    )
  ).data.id;
  // A bank account on 6470 without statements: the bank side is nil, the ledger's is not.
  await created(c.POST('/bank-accounts', { params: idem(), body: { name: 'Driftskonto', account_number: '6470' } }));
});

describe('POST /fiscal-years/{start}/close', () => {
  it('is refused with every blocker listed: a draft dated in the year; for the next year, the open year before it', async () => {
    const r = await close(YS);
    expect(r.response.status).toBe(409);
    expect(r.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.error).toMatchObject({ code: 'fiscal_year_blocked', field: 'start', blockers: [{ kind: 'draft_invoice', id: draftId }] });
    const next = await close(`${N}-01-01`);
    expect(next.error).toMatchObject({ code: 'fiscal_year_blocked', blockers: [{ kind: 'earlier_year_open', id: YS }] });
    // Nothing was posted or closed.
    expect(await testDb().prisma.ledgerTransaction.count({ where: { company_id: t.company.companyId, source: 'year_end' } })).toBe(0);
    expect((await close('2019-01-01')).response.status).toBe(404);
    expect((await t.raw.post('/fiscal-years/2026-13-01/close', undefined)).status).toBe(400);
    expect((await t.raw.post(`/fiscal-years/${YS}/close`, undefined, {})).body).toMatchObject({ status: 400, code: 'invalid_request' });
  });

  it('posts the closing entry on the last day, moving the result (5000 + 100 − 1200 = 3900) to 6940, closes the year and warns of the bank', async () => {
    await ok(t.api.DELETE('/invoices/{id}', { params: { path: { id: draftId } } }));
    const key = `close-${crypto.randomUUID()}`;
    const r = await close(YS, key);
    // As the VAT settlement: 201, the closing entry made.
    expect(r.response.status).toBe(201);
    const year = r.data!.data;
    expect(year).toMatchObject({ start_date: YS, end_date: `${Y}-12-31`, state: 'closed', result: 3900, closed_at: expect.any(String) });
    // The ledger side of 6470 at year end is 10000 + 5000 − 1200 + 100 = 13900; the bank side nil.
    expect(year.warnings).toEqual([
      { kind: 'bank_unreconciled', bank_account_id: expect.any(String), difference: -13900, detail: expect.stringContaining('Driftskonto') },
    ]);
    const closing = (await ok(t.api.GET('/transactions/{id}', { params: { path: { id: year.closing_transaction_id! } } }))).data;
    expect(closing).toMatchObject({ date: `${Y}-12-31`, source: 'year_end' });
    expect(await lines(closing.id)).toEqual([
      ['1010', 5000, 0],
      ['2030', 0, 1200],
      ['3470', 100, 0],
      ['6940', 0, 3900],
    ]);
    // The same key again: the stored answer, nothing new.
    const again = await close(YS, key);
    expect(again.response.headers.get('x-idempotency-replayed')).toBe('true');
    expect(again.data).toEqual(r.data);
    // Another key: closed already.
    expect((await close(YS)).error).toMatchObject({ code: 'fiscal_year_closed' });
    expect(await testDb().prisma.ledgerTransaction.count({ where: { company_id: t.company.companyId, source: 'year_end' } })).toBe(1);
    const [event] = await events('fiscal_year.closed');
    expect(event).toMatchObject({ type: 'fiscal_year.closed', data: { start_date: YS, state: 'closed', result: 3900, closing_transaction_id: closing.id } });
  });

  it('refuses postings into the closed year; the closing entry cannot be reversed as a posting', async () => {
    const r = await post(t.api, `${Y}-06-01`, 'For sent', [dr('2030', 10), cr('6470', 10)]);
    expect(r.response.status).toBe(422);
    expect(r.error).toMatchObject({ code: 'fiscal_year_not_open', field: 'date' });
    const [year] = (await ok(t.api.GET('/fiscal-years'))).data;
    const rev = await t.api.POST('/transactions/{id}/reverse', { params: { path: { id: year!.closing_transaction_id! }, ...idem() }, body: {} });
    expect(rev.response.status).toBe(409);
  });

  it('the closed year still shows its result in the profit and loss; the balance sheet holds it in equity', async () => {
    const pl = (await ok(t.api.GET('/reports/profit-loss', { params: { query: { from: YS, to: `${Y}-12-31` } } }))).data;
    expect(pl.totals.result).toBe(3900);
    expect(pl.sections.find((s) => s.key === 'revenue')?.total).toBe(5000);
    const bs = (await ok(t.api.GET('/reports/balance', { params: { query: { as_of: `${Y}-12-31` } } }))).data;
    const equity = bs.liabilities_and_equity.find((s) => s.key === 'equity')!;
    // 6520 10000 + 6940 3900; nothing left as a computed result.
    expect(equity.groups.map((g) => [g.key, g.total, g.accounts.map((a) => [a.account_number, a.amount])])).toEqual([
      [
        'posted_equity',
        13900,
        [
          ['6520', 10000],
          ['6940', 3900],
        ],
      ],
      ['result_for_the_year', 0, []],
      ['prior_years_result', 0, []],
    ]);
    expect(bs.balanced).toBe(true);
  });

  it("the next year's opening balances are the closing balances, equity holding the result", async () => {
    const tb = (await ok(t.api.GET('/reports/trial-balance', { params: { query: { from: `${N}-01-01`, to: `${N}-01-31`, order: 'asc' } } }))) as {
      data: { account_number: string; opening_balance: number; closing_balance: number }[];
      meta: { totals: { opening_balance: number } };
    };
    expect(tb.data.map((a) => [a.account_number, a.opening_balance, a.closing_balance])).toEqual([
      // 2030 and 3470 have nothing in either January: not listed.
      ['1010', 0, -1000],
      ['6470', 13900, 14900],
      ['6520', -10000, -10000],
      ['6940', -3900, -3900],
    ]);
    // Closed: the opening column sums to nil (decision 541).
    expect(tb.meta.totals.opening_balance).toBe(0);
    const bs = (await ok(t.api.GET('/reports/balance', { params: { query: { as_of: `${N}-01-31` } } }))).data;
    const groups = bs.liabilities_and_equity.find((s) => s.key === 'equity')!.groups.map((g) => [g.key, g.total]);
    expect(groups).toEqual([
      ['posted_equity', 13900],
      ['result_for_the_year', 1000],
      ['prior_years_result', 0],
    ]);
  });

  it('GET /fiscal-years: each year with its state, result and closing entry', async () => {
    const r = await ok(t.api.GET('/fiscal-years'));
    expect(r.data).toEqual([
      { start_date: YS, end_date: `${Y}-12-31`, state: 'closed', result: 3900, closing_transaction_id: expect.any(String), closed_at: expect.any(String) },
      { start_date: `${N}-01-01`, end_date: `${N}-12-31`, state: 'open', result: 1000, closing_transaction_id: null, closed_at: null },
    ]);
  });
});

describe('POST /fiscal-years/{start}/reopen', () => {
  let firstClosing: string;

  it('reverses the closing entry with an entry that says why, recorded in the control trail; the year takes postings again', async () => {
    firstClosing = (await ok(t.api.GET('/fiscal-years'))).data[0]!.closing_transaction_id!;
    const r = await reopen(YS, 'Husleje for december mangler');
    expect(r.response.status).toBe(201);
    const year = r.data!.data;
    expect(year).toMatchObject({ state: 'open', result: 3900, closing_transaction_id: null, reason: 'Husleje for december mangler' });
    const reversal = (await ok(t.api.GET('/transactions/{id}', { params: { path: { id: year.reopening_transaction_id! } } }))).data;
    expect(reversal.description).toContain('Husleje for december mangler');
    expect(reversal).toMatchObject({ date: `${Y}-12-31`, source: 'year_end' });
    expect(await lines(reversal.id)).toEqual([
      ['1010', 0, 5000],
      ['2030', 1200, 0],
      ['3470', 0, 100],
      ['6940', 3900, 0],
    ]);
    const trail = await ok(t.api.GET('/audit-trail', { params: { query: { resource_id: reversal.id } } }));
    expect(trail.data[0]).toMatchObject({ action: 'posted', registered_by: { type: 'api_key' } });
    const [event] = await events('fiscal_year.reopened');
    expect(event).toMatchObject({ data: { start_date: YS, state: 'open', reason: 'Husleje for december mangler' } });
    await created(post(t.api, `${Y}-12-01`, 'Husleje december', [dr('2030', 300), cr('6470', 300)]));
    expect((await reopen(YS, 'igen')).error).toMatchObject({ code: 'fiscal_year_not_closed' });
    expect((await t.raw.post(`/fiscal-years/${YS}/reopen`, {})).body).toMatchObject({ status: 400, field: 'reason' });
  });

  it('closing again: two closes at once give one closing entry, of the new result 3600', async () => {
    const answers = await Promise.all([close(YS), close(YS)]);
    expect(answers.map((a) => a.response.status).sort()).toEqual([201, 409]);
    expect(answers.find((a) => a.response.status === 409)!.error).toMatchObject({ code: 'fiscal_year_closed' });
    const year = answers.find((a) => a.response.status === 201)!.data!.data;
    expect(year).toMatchObject({ state: 'closed', result: 3600 });
    expect(year.closing_transaction_id).not.toBe(firstClosing);
    expect(await lines(year.closing_transaction_id!)).toEqual([
      ['1010', 5000, 0],
      ['2030', 0, 1500],
      ['3470', 100, 0],
      ['6940', 0, 3600],
    ]);
    // The first closing entry, its reversal and the new one.
    expect(await testDb().prisma.ledgerTransaction.count({ where: { company_id: t.company.companyId, source: 'year_end' } })).toBe(3);
    const pl = (await ok(t.api.GET('/reports/profit-loss', { params: { query: { from: YS, to: `${Y}-12-31` } } }))).data;
    expect(pl.totals.result).toBe(3600);
  });

  it('a year is reopened only while no later year is closed', async () => {
    const next = await close(`${N}-01-01`);
    expect(next.response.status).toBe(201);
    const r = await reopen(YS, 'for sent');
    expect(r.error).toMatchObject({ code: 'fiscal_year_not_closed', blockers: [{ kind: 'later_year_closed', id: `${N}-01-01` }] });
  });

  it('needs transactions:write to close and reopen, accounts:read to list', async () => {
    const k = await t.newKey(['reports:read', 'accounts:read']);
    expect((await k.raw.post(`/fiscal-years/${YS}/close`, undefined)).status).toBe(403);
    expect((await k.raw.post(`/fiscal-years/${YS}/reopen`, { reason: 'x' })).status).toBe(403);
    expect((await k.raw.get('/fiscal-years')).status).toBe(200);
  });
});

describe('a VAT-registered company', () => {
  it('cannot close a year whose VAT periods are not settled, nor one with a draft expense', async () => {
    const other = await t.another('Moms ApS');
    await created(other.api.POST('/expenses', { params: idem(), body: { date: `${Y}-02-01`, amount: 125, vat_amount: 25 } }));
    const r = await close(YS, undefined, other.api);
    expect(r.response.status).toBe(409);
    const blockers = (r.error as { blockers: { kind: string; id: string }[] }).blockers;
    const settings = (await ok(other.api.GET('/settings/accounting'))).data;
    const periods = settings.fiscal_years[0]!.vat_periods.length;
    expect(blockers.filter((b) => b.kind === 'vat_period_unsettled')).toHaveLength(periods);
    expect(blockers.filter((b) => b.kind === 'vat_period_unsettled').map((b) => b.id)[0]).toMatch(new RegExp(`^${Y}-`));
    expect(blockers.filter((b) => b.kind === 'draft_expense')).toHaveLength(1);
  });
});

// Where the books begin (docs/reports.md#where-the-books-begin): the year before the first, opened to
// bring last year's books; the opening balances of a company that starts here mid-life.
describe('POST /fiscal-years', () => {
  const P = Y - 1;
  const open = (c: Api, start: string, key?: string) => c.POST('/fiscal-years', { params: idem(key), body: { start } });

  it("opens the year before the first, which then takes last year's postings; 400 for another start, 409 when it exists", async () => {
    const other = await t.another('Tidligere År ApS');
    // Before: a date in last year lies outside the company's years.
    expect((await post(other.api, `${P}-06-01`, 'Husleje', [dr('2030', 800), cr('6470', 800)])).error).toMatchObject({
      code: 'fiscal_year_not_open',
      detail: expect.stringContaining('the year before the first by POST /fiscal-years'),
    });
    const wrong = await open(other.api, `${P}-02-01`);
    expect(wrong.response.status).toBe(400);
    expect(wrong.error).toMatchObject({ code: 'invalid_request', field: 'start', detail: expect.stringContaining(`start is ${P}-01-01`) });
    expect((await open(other.api, `${P - 2}-01-01`)).error).toMatchObject({ code: 'invalid_request', field: 'start' });
    const key = `open-${crypto.randomUUID()}`;
    const r = await open(other.api, `${P}-01-01`, key);
    expect(r.response.status).toBe(201);
    const year = { start_date: `${P}-01-01`, end_date: `${P}-12-31`, state: 'open', result: 0, closing_transaction_id: null, closed_at: null };
    expect(r.data!.data).toEqual(year);
    const replay = await open(other.api, `${P}-01-01`, key);
    expect(replay.response.headers.get('x-idempotency-replayed')).toBe('true');
    expect(replay.data!.data).toEqual(year);
    expect((await open(other.api, `${P}-01-01`)).error).toMatchObject({ code: 'fiscal_year_exists', status: 409, field: 'start' });
    // Last year takes postings now (and its VAT periods exist); and the year before it opens in turn.
    await created(post(other.api, `${P}-06-01`, 'Husleje', [dr('2030', 800), cr('6470', 800)]));
    // Two at once: the company's row lock orders them; one opens it, the other finds it open.
    const both = await Promise.all([open(other.api, `${P - 1}-01-01`), open(other.api, `${P - 1}-01-01`)]);
    expect(both.map((b) => b.response.status).sort()).toEqual([201, 409]);
    const years = (await ok(other.api.GET('/fiscal-years'))).data;
    expect(years.map((y) => [y.start_date, y.result])).toEqual([
      [`${P - 1}-01-01`, 0],
      [`${P}-01-01`, -800],
      [YS, 0],
    ]);
    const settings = (await ok(other.api.GET('/settings/accounting'))).data;
    expect(settings.fiscal_years[1]!.vat_periods[0]).toMatchObject({ start_date: `${P}-01-01` });
  });
});

describe('POST /opening-balances', () => {
  const ob = (c: Api, lines: unknown[], key?: string) =>
    c.POST('/opening-balances', { params: idem(key), body: { lines } as RequestBody<'/opening-balances', 'post'> });

  it('entered four times at once (four Idempotency-Keys): one entry, the others 409 opening_balances_exist', async () => {
    const other = await t.another('Samtidig Åbning ApS');
    const lines = [
      { account_number: '6470', debit: 100 },
      { account_number: '6520', credit: 100 },
    ];
    const answers = await Promise.all(Array.from({ length: 4 }, () => ob(other.api, lines)));
    expect(answers.map((a) => a.response.status).sort()).toEqual([201, 409, 409, 409]);
    expect(answers.filter((a) => a.error).map((a) => a.error)).toEqual(Array(3).fill(expect.objectContaining({ code: 'opening_balances_exist' })));
    expect(await testDb().prisma.ledgerTransaction.count({ where: { company_id: other.company.companyId } })).toBe(1);
  });

  it("posts one balanced entry the day before the first year, receivables and payables per customer and supplier; the first year's trial balance and balance sheet open with it", async () => {
    const other = await t.another('Åbningsbalance ApS');
    const c = other.api;
    const customer = (await created(c.POST('/customers', { params: idem(), body: { name: 'Kunde A/S' } }))).data.id;
    const supplier = (await created(c.POST('/suppliers', { params: idem(), body: { name: 'Leverandør ApS' } }))).data.id;
    const good = [
      { account_number: '6470', debit: 20000 },
      { account_number: '6190', debit: 3000, customer_id: customer },
      { account_number: '7440', credit: 2000, supplier_id: supplier, due_date: `${Y}-01-10` },
      { account_number: '6520', credit: 21000 },
    ];
    // Refusals, each naming the line and the rule; nothing is posted. The second line balances the first.
    const refusals: [Record<string, unknown>, number, string, string | undefined][] = [
      [{ account_number: '1010', credit: 100 }, 400, 'invalid_request', 'lines[0].account_number'],
      [{ account_number: '6190', debit: 100 }, 400, 'invalid_request', 'lines[0].customer_id'],
      [{ account_number: '6470', debit: 100, supplier_id: supplier }, 400, 'invalid_request', 'lines[0].supplier_id'],
      [{ account_number: '6190', debit: 100, customer_id: crypto.randomUUID() }, 400, 'invalid_request', 'lines[0].customer_id'],
      [{ account_number: '6470', debit: 101 }, 422, 'unbalanced_transaction', undefined],
      [{ account_number: '6470', debit: 100, vat_code: 'S25' }, 400, 'invalid_request', undefined], // no VAT codes
      [{ account_number: '6470', debit: 100, due_date: `${Y}-02-01` }, 400, 'invalid_request', 'lines[0].due_date'], // no party
      [{ account_number: '6190', debit: 100, customer_id: customer, due_date: `${Y - 1}-12-30` }, 400, 'invalid_request', 'lines[0].due_date'],
    ];
    for (const [line, status, code, field] of refusals) {
      const other = 'credit' in line ? { account_number: '6470', debit: 100 } : { account_number: '6520', credit: 100 };
      const r = await ob(c, [line, other]);
      expect(r.response.status).toBe(status);
      expect(r.error).toMatchObject({ code, ...(field ? { field } : {}) });
    }
    expect(await testDb().prisma.ledgerTransaction.count({ where: { company_id: other.company.companyId } })).toBe(0);

    const r = await ob(c, good);
    expect(r.response.status).toBe(201);
    const entry = r.data!.data;
    expect(entry).toMatchObject({ date: `${Y - 1}-12-31`, source: 'opening_balance', total_debit: 23000, total_credit: 23000 });
    expect(entry.lines.map((l) => [l.account_number, l.debit, l.credit, l.description])).toEqual([
      ['6470', 20000, 0, ''],
      ['6190', 3000, 0, 'Åbningssaldo Kunde A/S'],
      ['7440', 0, 2000, 'Åbningssaldo Leverandør ApS'],
      ['6520', 0, 21000, ''],
    ]);
    // Once only; and no year before the first can be opened under it.
    expect((await ob(c, good)).error).toMatchObject({ code: 'opening_balances_exist', status: 409 });
    expect((await c.POST('/fiscal-years', { params: idem(), body: { start: `${Y - 1}-01-01` } })).error).toMatchObject({
      code: 'postings_before_first_year',
      status: 409,
      field: 'start',
    });
    // Not reversed as a manual posting: corrected by an entry in the first year.
    expect((await c.POST('/transactions/{id}/reverse', { params: { path: { id: entry.id }, ...idem() }, body: {} })).error).toMatchObject({
      code: 'reversal_of_document',
    });

    // The party lines are open items where money is chased (decisions 850-852). The customer's has no due
    // date: due on the entry's date, 31 December Y-1, so 10 days overdue on 10 January (1-30) and 41 on
    // 10 February (31-60); the supplier's falls due 10 January: not due on the 10th, 31 days on 10 February.
    const aged = async (path: '/reports/aged-receivables' | '/reports/aged-payables', as_of: string) =>
      (await ok(c.GET(path, { params: { query: { as_of } } }))) as {
        data: { name: string; total: number; documents: Record<string, unknown>[] }[];
        meta: { totals: Record<string, number> };
      };
    const receivables = await aged('/reports/aged-receivables', `${Y}-01-10`);
    expect(receivables.data).toEqual([
      expect.objectContaining({
        customer_id: customer,
        name: 'Kunde A/S',
        days_1_30: 3000,
        total: 3000,
        documents: [
          {
            invoice_id: null,
            kind: 'opening_balance',
            document_number: String(entry.document_number),
            date: `${Y - 1}-12-31`,
            due_date: `${Y - 1}-12-31`,
            days_overdue: 10,
            bucket: 'days_1_30',
            open_amount: 3000,
          },
        ],
      }),
    ]);
    expect((await aged('/reports/aged-receivables', `${Y}-02-10`)).meta.totals).toMatchObject({ days_31_60: 3000, total: 3000 });
    expect((await aged('/reports/aged-receivables', `${Y - 1}-12-30`)).data).toEqual([]); // before the entry's date
    const payables = await aged('/reports/aged-payables', `${Y}-01-10`);
    expect(payables.data.map((p) => [p.name, p.total, p.documents.map((d) => [d.kind, d.expense_id, d.due_date, d.bucket, d.open_amount])])).toEqual([
      ['Leverandør ApS', 2000, [['opening_balance', null, `${Y}-01-10`, 'not_due', 2000]]],
    ]);
    expect((await aged('/reports/aged-payables', `${Y}-02-10`)).meta.totals).toMatchObject({ days_31_60: 2000, total: 2000 });
    // The statement: the first year's opens with what the customer owed; one from December Y-1 shows the entry.
    const statement = async (from: string) => {
      const r = await ok(c.GET('/customers/{id}/statement', { params: { path: { id: customer }, query: { from, to: `${Y}-01-31` } } }));
      if (typeof r === 'string') throw new Error('the statement came as CSV');
      return r.data;
    };
    expect(await statement(YS)).toMatchObject({ opening_balance: 3000, debit: 0, credit: 0, closing_balance: 3000, lines: [] });
    expect(await statement(`${Y - 1}-12-01`)).toMatchObject({
      opening_balance: 0,
      debit: 3000,
      closing_balance: 3000,
      lines: [
        {
          date: `${Y - 1}-12-31`,
          type: 'opening_entry',
          document_number: String(entry.document_number),
          invoice_id: null,
          due_date: `${Y - 1}-12-31`,
          debit: 3000,
          credit: 0,
          balance: 3000,
        },
      ],
    });

    // Paid through POST /opening-balances/payments (decision 853): the customer pays 1,000 on 15 January and
    // the rest on the 20th; the company pays the supplier 500 on the 20th (bank 6470 both ways).
    const pay = (body: RequestBody<'/opening-balances/payments', 'post'>) => c.POST('/opening-balances/payments', { params: idem(), body });
    const first = await pay({ customer_id: customer, amount: 1000, date: `${Y}-01-15` });
    expect(first.response.status).toBe(201);
    expect(first.data!.data).toMatchObject({ customer_id: customer, supplier_id: null, date: `${Y}-01-15`, amount: 1000, open_amount: 2000 });
    const paidWith = (await ok(c.GET('/transactions/{id}', { params: { path: { id: first.data!.data.transaction_id } } }))).data;
    expect(paidWith.lines.map((l) => [l.account_number, l.debit, l.credit])).toEqual([
      ['6470', 1000, 0],
      ['6190', 0, 1000],
    ]);
    // Refused by name: more than is open (2,000), no party, a customer without an opening balance.
    const stranger = (await created(c.POST('/customers', { params: idem(), body: { name: 'Ny Kunde ApS' } }))).data.id;
    expect((await pay({ customer_id: customer, amount: 2000.01 })).error).toMatchObject({ code: 'overpayment', status: 422, field: 'amount' });
    expect((await pay({ amount: 10 })).error).toMatchObject({ code: 'invalid_request', field: 'customer_id' });
    expect((await pay({ customer_id: stranger, amount: 10 })).error).toMatchObject({ code: 'invalid_request', field: 'customer_id' });
    // 3,000 less 1,000: 2,000 open on the 16th, 16 days overdue; on the 14th, before the payment, 3,000.
    expect((await aged('/reports/aged-receivables', `${Y}-01-16`)).meta.totals).toMatchObject({ days_1_30: 2000, total: 2000 });
    expect((await aged('/reports/aged-receivables', `${Y}-01-14`)).meta.totals).toMatchObject({ total: 3000 });
    expect((await pay({ customer_id: customer, amount: 2000, date: `${Y}-01-20` })).data!.data.open_amount).toBe(0);
    expect((await aged('/reports/aged-receivables', `${Y}-01-31`)).data).toEqual([]);
    const paidSupplier = await pay({ supplier_id: supplier, amount: 500, date: `${Y}-01-20` });
    expect(paidSupplier.data!.data).toMatchObject({ supplier_id: supplier, open_amount: 1500 });
    expect((await aged('/reports/aged-payables', `${Y}-02-10`)).meta.totals).toMatchObject({ days_31_60: 1500, total: 1500 });
    // The statement: 3,000 owed at the start of the year, two payments, nothing at the end of January.
    expect(await statement(YS)).toMatchObject({
      opening_balance: 3000,
      debit: 0,
      credit: 3000,
      closing_balance: 0,
      lines: [
        { date: `${Y}-01-15`, type: 'payment', invoice_id: null, credit: 1000, balance: 2000 },
        { date: `${Y}-01-20`, type: 'payment', invoice_id: null, credit: 2000, balance: 0 },
      ],
    });
    const tb = (await ok(c.GET('/reports/trial-balance', { params: { query: { from: YS, to: `${Y}-01-31`, order: 'asc' } } }))) as {
      data: { account_number: string; opening_balance: number; closing_balance: number }[];
      meta: { totals: { opening_balance: number } };
    };
    // 6470: 20,000 + 3,000 from the customer − 500 to the supplier; 7440: −2,000 + 500.
    expect(tb.data.map((a) => [a.account_number, a.opening_balance, a.closing_balance])).toEqual([
      ['6190', 3000, 0],
      ['6470', 20000, 22500],
      ['6520', -21000, -21000],
      ['7440', -2000, -1500],
    ]);
    expect(tb.meta.totals.opening_balance).toBe(0);
    const bs = (await ok(c.GET('/reports/balance', { params: { query: { as_of: `${Y}-01-31` } } }))).data;
    expect(bs.balanced).toBe(true);
    expect(bs.liabilities_and_equity.find((s) => s.key === 'equity')!.groups.map((g) => [g.key, g.total])).toEqual([
      ['posted_equity', 21000],
      ['result_for_the_year', 0],
      ['prior_years_result', 0],
    ]);

    // From the bank statement in one step (decisions 877, 878): the supplier's remaining 1,500 leaves the bank on
    // the 25th; the line (written as an import stores it) pays it and is matched to the payment's posting.
    const bank = (await created(c.POST('/bank-accounts', { params: idem(), body: { name: 'Driftskonto' } }))).data.id;
    const statementId = crypto.randomUUID();
    const lineId = crypto.randomUUID();
    const { pool } = testDb();
    await pool.query(`INSERT INTO bank_statements (id, company_id, bank_account_id, format, file_sha256) VALUES ($1, $2, $3, 'csv', $4)`, [
      statementId,
      other.company.companyId,
      bank,
      crypto.randomUUID(),
    ]);
    await pool.query(
      `INSERT INTO bank_lines (id, company_id, bank_account_id, statement_id, identity, booking_date, amount, currency, text)
       VALUES ($1, $2, $3, $4, $5, $6, -1500, 'DKK', 'Leverandør ApS')`,
      [lineId, other.company.companyId, bank, statementId, `test:${lineId}`, `${Y}-01-25`],
    );
    // Refused by name: a date beside the line, a line of another company, money out for a customer, an amount that is not the line's.
    expect((await pay({ supplier_id: supplier, bank_line_id: lineId, date: `${Y}-01-25` })).error).toMatchObject({ status: 400, field: 'date' });
    const foreign = await t.api.POST('/opening-balances/payments', { params: idem(), body: { supplier_id: supplier, bank_line_id: lineId } });
    expect(foreign.error).toMatchObject({ status: 400, field: 'bank_line_id', detail: expect.stringContaining('No bank line') });
    expect((await pay({ customer_id: customer, bank_line_id: lineId })).error).toMatchObject({
      status: 400,
      field: 'bank_line_id',
      detail: expect.stringContaining('money in'),
    });
    expect((await pay({ supplier_id: supplier, bank_line_id: lineId, amount: 1000 })).error).toMatchObject({ status: 400, field: 'amount' });
    const fromLine = await pay({ supplier_id: supplier, bank_line_id: lineId });
    expect(fromLine.response.status).toBe(201);
    expect(fromLine.data!.data).toMatchObject({ date: `${Y}-01-25`, amount: 1500, open_amount: 0, bank_line_id: lineId });
    const paidFromLine = fromLine.data!.data.transaction_id;
    const fromLineTx = (await ok(c.GET('/transactions/{id}', { params: { path: { id: paidFromLine } } }))).data;
    expect(fromLineTx.lines.map((l) => [l.account_number, l.debit, l.credit])).toEqual([
      ['7440', 1500, 0],
      ['6470', 0, 1500],
    ]);
    const bankLine = async () => (await ok(c.GET('/bank-lines/{id}', { params: { path: { id: lineId } } }))).data;
    expect(await bankLine()).toMatchObject({ status: 'matched', match: { type: 'posting', transaction_id: paidFromLine } });
    expect((await pay({ supplier_id: supplier, bank_line_id: lineId })).error).toMatchObject({ status: 409, code: 'bank_line_matched' });
    expect((await aged('/reports/aged-payables', businessDay())).data).toEqual([]);
    // Unmatched: the payment reversed (today), the line open again, and the supplier owed 1,500 again.
    await ok(c.POST('/bank-lines/{id}/unmatch', { params: { path: { id: lineId }, ...idem() } }));
    expect(await bankLine()).toMatchObject({ status: 'unmatched' });
    expect((await aged('/reports/aged-payables', businessDay())).meta.totals).toMatchObject({ total: 1500 });
    // Before the reversal's date the payment still counts: the payables of 10 February are nil.
    expect((await aged('/reports/aged-payables', `${Y}-02-10`)).data).toEqual([]);
    expect((await pay({ supplier_id: supplier, amount: 1500.01 })).error).toMatchObject({ code: 'overpayment', balance_due: 1500 });

    // Undone without a bank line (decision 890): 400 paid to the supplier on 1 February by mistake, reversed.
    // The lock date is today, so the reversal takes the first open day, tomorrow.
    const reverse = (id: string) => c.POST('/opening-balances/payments/{id}/reverse', { params: { path: { id }, ...idem() } });
    const mistake = (await created(pay({ supplier_id: supplier, amount: 400, date: `${Y}-02-01` }))).data;
    expect(mistake.open_amount).toBe(1100);
    await testDb().prisma.company.update({ where: { id: other.company.companyId }, data: { lock_date: new Date(`${businessDay()}T00:00:00Z`) } });
    const undone = await reverse(mistake.id);
    expect(undone.response.status).toBe(201);
    // 1,500 open again: 1,500 owed, the 400 no longer counts.
    expect(undone.data!.data).toMatchObject({ id: mistake.id, amount: 400, open_amount: 1500, reversed_transaction_id: expect.any(String) });
    const reversal = (await ok(c.GET('/transactions/{id}', { params: { path: { id: undone.data!.data.reversed_transaction_id! } } }))).data;
    const tomorrow = new Date(Date.parse(`${businessDay()}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    expect(reversal).toMatchObject({ date: tomorrow, source: 'reversal' });
    expect(reversal.lines.map((l) => [l.account_number, l.debit, l.credit])).toEqual([
      ['7440', 0, 400],
      ['6470', 400, 0],
    ]);
    const trail = await ok(c.GET('/audit-trail', { params: { query: { resource_id: reversal.id } } }));
    expect(trail.data[0]).toMatchObject({ action: 'posted', registered_by: { type: 'api_key' } });
    await testDb().prisma.company.update({ where: { id: other.company.companyId }, data: { lock_date: null } });
    // Refused: the second time, the one already reversed by unmatching its line, one whose line is matched, another company's.
    expect((await reverse(mistake.id)).error).toMatchObject({ status: 409, code: 'already_reversed' });
    expect((await reverse(fromLine.data!.data.id)).error).toMatchObject({ status: 409, code: 'already_reversed' });
    const again = (await created(pay({ supplier_id: supplier, bank_line_id: lineId }))).data;
    expect((await reverse(again.id)).error).toMatchObject({ status: 409, code: 'bank_line_matched', detail: expect.stringContaining(lineId) });
    expect((await t.api.POST('/opening-balances/payments/{id}/reverse', { params: { path: { id: again.id }, ...idem() } })).error).toMatchObject({
      status: 404,
    });

    // At the same moment (two Idempotency-Keys each): one bank line pays one payment, and one payment is
    // reversed once; the other request is 409 and writes nothing.
    await ok(c.POST('/bank-lines/{id}/unmatch', { params: { path: { id: lineId }, ...idem() } }));
    const twoPays = await Promise.all([pay({ supplier_id: supplier, bank_line_id: lineId }), pay({ supplier_id: supplier, bank_line_id: lineId })]);
    expect(twoPays.map((r) => r.response.status).sort()).toEqual([201, 409]);
    expect(twoPays.find((r) => r.error)!.error).toMatchObject({ code: 'bank_line_matched' });
    const paidOnce = twoPays.find((r) => r.data)!.data!.data;
    expect(await bankLine()).toMatchObject({ status: 'matched', match: { type: 'posting', transaction_id: paidOnce.transaction_id } });
    await ok(c.POST('/bank-lines/{id}/unmatch', { params: { path: { id: lineId }, ...idem() } }));
    const twice = (await created(pay({ supplier_id: supplier, amount: 300, date: `${Y}-02-02` }))).data;
    const twoReversals = await Promise.all([reverse(twice.id), reverse(twice.id)]);
    expect(twoReversals.map((r) => r.response.status).sort()).toEqual([201, 409]);
    expect(twoReversals.find((r) => r.error)!.error).toMatchObject({ code: 'already_reversed' });
    const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ledger_transactions WHERE reverses_id = $1`, [twice.transaction_id]);
    expect(rows[0]!.n).toBe(1);
  });
});
