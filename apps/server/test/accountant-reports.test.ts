// The accountant's reports through HTTP (docs/reports.md): the trial balance with the year before, an
// account's general ledger with its running balance, receivables and payables by age, the customer
// statement, each as JSON (the list envelope for lists) and as CSV; every figure worked out by hand.
// Contract, Envelopes: "List | { data: [<resource>], meta: { page, per_page, total, total_pages } }";
// List parameters: "per_page | integer | 50 | 1 to 200"; Conventions 3: "Malformed query parameters,
// UUIDs and dates answer 400 invalid_request"; Scopes: "reports:read covers reports".
import { extractText, getDocumentProxy } from 'unpdf';
import { beforeAll, describe, expect, it } from 'vitest';
import { today as businessDay } from '@tlr/domain';
import { created, idem, ok as okAny, useCompany, type Api, type RequestBody } from './helpers.ts';

const t = useCompany({ name: 'Saldobalance ApS' });
/** A 2xx body as JSON: the reports also answer CSV (a string) when asked, which these calls do not. */
const ok = async <T>(call: Parameters<typeof okAny<T>>[0]) => (await okAny(call)) as Exclude<T, string>;
const Y = Number(businessDay().slice(0, 4)); // the company's first fiscal year (calendar year)
const N = Y + 1;

type Line = RequestBody<'/transactions', 'post'>['lines'][number];
const dr = (account_number: string, debit: number): Line => ({ account_number, debit });
const cr = (account_number: string, credit: number): Line => ({ account_number, credit });
const post = async (c: Api, date: string, description: string, lines: Line[]) =>
  (await created(c.POST('/transactions', { params: idem(), body: { date, description, lines } }))).data;

/** The second company: invoices, payments and expenses for the aged lists and the statement. */
let s: Awaited<ReturnType<typeof t.another>>;
const ids: Record<string, string> = {};

beforeAll(async () => {
  const c = t.api;
  await post(c, `${Y}-01-01`, 'Indskud', [dr('6470', 50000), cr('6520', 50000)]);
  await post(c, `${Y}-02-10`, 'Salg', [dr('6470', 25000), cr('1010', 20000), cr('7680', 5000)]);
  await post(c, `${Y}-03-05`, 'Husleje', [dr('2030', 1500), cr('6470', 1500)]);
  await post(c, `${Y}-06-01`, 'Husleje', [dr('2030', 1500), cr('6470', 1500)]); // after the compared period
  ids.sale = (await post(c, `${N}-01-15`, 'Salg', [dr('6470', 2500), cr('1010', 2000), cr('7680', 500)])).id;
  ids.rent = (await post(c, `${N}-02-10`, 'Husleje', [dr('2030', 1000), cr('6470', 1000)])).id;
  ids.sale2 = (await post(c, `${N}-03-20`, 'Salg', [dr('6470', 1250), cr('1010', 1000), cr('7680', 250)])).id;

  s = await t.another('Debitor ApS');
  const customer = async (name: string) => (await created(s.api.POST('/customers', { params: idem(), body: { name } }))).data.id;
  ids.alfa = await customer('Alfa ApS');
  ids.beta = await customer('Beta ApS');
  const invoice = async (customer_id: string, issue_date: string, due_date: string, unit_price: number) =>
    (
      await created(
        s.api.POST('/invoices', {
          params: idem(),
          body: { customer_id, issue_date, due_date, auto_approve: true, lines: [{ description: 'Ydelse', quantity: 1, unit_price }] },
        }),
      )
    ).data;
  const pay = (id: string, amount: number, date: string) =>
    created(s.api.POST('/invoices/{id}/payments', { params: { path: { id }, ...idem() }, body: { amount, date } }));
  const inv1 = await invoice(ids.alfa, `${Y}-08-01`, `${Y}-09-01`, 1000); // 1250 with VAT
  await pay(inv1.id, 250, `${Y}-10-01`);
  ids.inv1 = inv1.id;
  ids.inv2 = (await invoice(ids.alfa, `${Y}-11-01`, `${Y}-12-01`, 400)).id; // 500
  ids.inv3 = (await invoice(ids.beta, `${Y}-10-01`, `${Y}-11-01`, 2000)).id; // 2500
  ids.inv4 = (await invoice(ids.beta, `${Y}-12-20`, `${N}-01-03`, 100)).id; // 125
  const inv5 = await invoice(ids.beta, `${Y}-09-01`, `${Y}-10-01`, 500); // 625, paid 15 October
  await pay(inv5.id, 625, `${Y}-10-15`);
  ids.inv5 = inv5.id;
  ids.inv7 = (await invoice(ids.alfa, `${Y}-09-10`, `${Y}-10-10`, 200)).id; // 250
  for (const [k, v] of Object.entries({ inv1, inv5 })) ids[`${k}no`] = v.invoice_number;

  const supplier = (await created(s.api.POST('/suppliers', { params: idem(), body: { name: 'Papir A/S' } }))).data.id;
  ids.papir = supplier;
  const expense = async (date: string, due_date: string, amount: number) =>
    (
      await created(
        s.api.POST('/expenses', {
          params: idem(),
          body: { supplier_id: supplier, date, due_date, amount, vat_amount: amount / 5, description: 'Papir', book: true },
        }),
      )
    ).data;
  ids.exp1 = (await expense(`${Y}-11-01`, `${Y}-11-15`, 1250)).id;
  ids.exp2 = (await expense(`${Y}-12-01`, `${Y}-12-31`, 500)).id;
  const exp3 = await expense(`${Y}-12-01`, `${Y}-12-20`, 100);
  await ok(s.api.PUT('/expenses/{id}/status', { params: { path: { id: exp3.id } }, body: { status: 'paid', date: `${Y}-12-10` } }));
  ids.exp3 = exp3.id;
  // A bill without a supplier (a till receipt).
  ids.exp4 = (await created(s.api.POST('/expenses', { params: idem(), body: { date: `${Y}-12-28`, amount: 62.5, vat_amount: 12.5, book: true } }))).data.id;
});

const f = (opening_balance: number, debit: number, credit: number, closing_balance: number) => ({ opening_balance, debit, credit, closing_balance });

describe('GET /reports/trial-balance', () => {
  const from = `${N}-01-01`;
  const to = `${N}-03-15`;

  it('every account with its opening, debit, credit and closing, and the same period of the year before', async () => {
    const r = await t.api.GET('/reports/trial-balance', { params: { query: { from, to, order: 'asc' } } });
    expect(r.response.status).toBe(200);
    expect(r.response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = r.data as Exclude<typeof r.data, string | undefined>;
    const rows = body.data.map(({ account_number, type, opening_balance, debit, credit, closing_balance, prior_year }) => [
      account_number,
      type,
      f(opening_balance, debit, credit, closing_balance),
      prior_year,
    ]);
    // Current period (N-01-01..N-03-15): 6470 opens with year Y's 50000 + 25000 − 1500 − 1500 = 72000,
    // then +2500 −1000 = 73500. A revenue or expense account opens at 0 in a new fiscal year. The sale of
    // N-03-20 lies after the period. Prior period (Y-01-01..Y-03-15): the rent of Y-06-01 lies after it.
    expect(rows).toEqual([
      ['1010', 'revenue', f(0, 0, 2000, -2000), f(0, 0, 20000, -20000)],
      ['2030', 'expense', f(0, 1000, 0, 1000), f(0, 1500, 0, 1500)],
      ['6470', 'asset', f(72000, 2500, 1000, 73500), f(0, 75000, 1500, 73500)],
      ['6520', 'equity', f(-50000, 0, 0, -50000), f(0, 0, 50000, -50000)],
      ['7680', 'liability', f(-5000, 0, 500, -5500), f(0, 0, 5000, -5000)],
    ]);
    expect(body.data[0]).toMatchObject({ name: expect.any(String), account_id: expect.any(String) });
    // Debit equals credit in each period; the opening column sums to year Y's result, not closed into
    // equity: 20000 − 1500 − 1500 = 17000 (decision 541).
    expect(body.meta).toEqual({
      page: 1,
      per_page: 50,
      total: 5,
      total_pages: 1,
      from,
      to,
      prior_from: `${Y}-01-01`,
      prior_to: `${Y}-03-15`,
      totals: { ...f(17000, 3500, 3500, 17000), prior_year: f(0, 76500, 76500, 0) },
    });
  });

  it('defaults to the fiscal year so far; pages are cut after the totals; another company sees none of it', async () => {
    const page2 = await ok(t.api.GET('/reports/trial-balance', { params: { query: { from, to, per_page: 2, page: 2, order: 'asc' } } }));
    expect(page2.data.map((a) => a.account_number)).toEqual(['6470', '6520']);
    expect(page2.meta).toMatchObject({ page: 2, per_page: 2, total: 5, total_pages: 3, totals: { debit: 3500, credit: 3500 } });
    const past = await ok(t.api.GET('/reports/trial-balance', { params: { query: { from, to, page: 9 } } }));
    expect(past).toMatchObject({ data: [], meta: { page: 9, total: 5, total_pages: 1 } });
    // to defaults to today (in year Y), from to the start of its fiscal year.
    const dflt = await ok(t.api.GET('/reports/trial-balance'));
    expect(dflt.meta).toMatchObject({ from: `${Y}-01-01`, to: businessDay() });
    const other = await ok(s.api.GET('/reports/trial-balance', { params: { query: { from, to } } }));
    expect(other.data.map((a) => a.account_number)).not.toContain('6520');
  });

  it('takes the list parameters: order desc by default, sort by name, search, since and until narrow the period', async () => {
    const numbers = async (query: Record<string, string | number>) =>
      (await ok(t.api.GET('/reports/trial-balance', { params: { query: { from, to, ...query } } }))).data.map((a) => a.account_number);
    // Contract, List parameters: "order | string | desc".
    expect(await numbers({})).toEqual(['7680', '6520', '6470', '2030', '1010']);
    const byName = (await ok(t.api.GET('/reports/trial-balance', { params: { query: { from, to, sort: 'name', order: 'asc' } } }))).data.map((a) => a.name);
    expect(byName).toEqual([...byName].sort((a, b) => a.localeCompare(b, 'da')));
    // A search selects accounts by number or name; the totals are the selected accounts'.
    const found = await ok(t.api.GET('/reports/trial-balance', { params: { query: { from, to, search: '647' } } }));
    expect(found.data.map((a) => a.account_number)).toEqual(['6470']);
    expect(found.meta).toMatchObject({ total: 1, totals: { opening_balance: 72000, debit: 2500, credit: 1000, closing_balance: 73500 } });
    // since and until narrow from..to: here to N-01-31 (the period and its year before both shrink).
    const narrow = await ok(t.api.GET('/reports/trial-balance', { params: { query: { from, to, until: `${N}-01-31`, order: 'asc' } } }));
    expect(narrow.meta).toMatchObject({ from, to: `${N}-01-31`, prior_to: `${Y}-01-31`, totals: { debit: 2500, credit: 2500 } });
    // 2030 has nothing in either January: it is left out.
    expect(narrow.data.map((a) => a.account_number)).toEqual(['1010', '6470', '6520', '7680']);
  });

  it('as CSV with Accept: text/csv: every row, the columns of the JSON', async () => {
    const r = await t.raw.get(`/reports/trial-balance?from=${from}&to=${to}&per_page=1&order=asc`, { Accept: 'text/csv' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(r.headers.get('content-disposition')).toBe(`attachment; filename="saldobalance-${from}-${to}.csv"`);
    expect(r.headers.get('vary')).toMatch(/Accept/);
    const lines = r.text.split('\r\n');
    // 2030's standard name holds commas, so it is quoted.
    expect(lines[2]).toMatch(/^2030,"[^"]+,[^"]+",expense,/);
    expect(lines[0]).toBe(
      'account_number,name,type,opening_balance,debit,credit,closing_balance,prior_year.opening_balance,prior_year.debit,prior_year.credit,prior_year.closing_balance',
    );
    expect(
      lines
        .slice(1)
        .map((l) => l.replace(/"[^"]*"/, 'NAME').split(','))
        .map((c) => [c[0], ...c.slice(2)]),
    ).toEqual([
      ['1010', 'revenue', '0', '0', '2000', '-2000', '0', '0', '20000', '-20000'],
      ['2030', 'expense', '0', '1000', '0', '1000', '0', '1500', '0', '1500'],
      ['6470', 'asset', '72000', '2500', '1000', '73500', '0', '75000', '1500', '73500'],
      ['6520', 'equity', '-50000', '0', '0', '-50000', '0', '0', '50000', '-50000'],
      ['7680', 'liability', '-5000', '0', '500', '-5500', '0', '0', '5000', '-5000'],
      [''],
    ]);
    // A client that takes both gets JSON, the default.
    const both = await t.raw.get(`/reports/trial-balance?from=${from}&to=${to}`, { Accept: 'application/json, text/csv;q=0.5' });
    expect(both.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('refuses a bad period or page with a problem naming the parameter', async () => {
    const bad = async (query: string, field: string) => {
      const r = await t.raw.get(`/reports/trial-balance?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.body).toMatchObject({ code: 'invalid_request', field });
    };
    await bad(`from=${N}-03-01&to=${N}-02-01`, 'from');
    await bad('to=2026-02-30', 'to');
    await bad('per_page=201', 'per_page');
    await bad('page=0', 'page');
    await bad('sort=created_at', 'sort');
    await bad('order=up', 'order');
    await bad(`from=${N}-02-01&since=${N}-03-01&to=${N}-02-15`, 'since');
    // Also in CSV: the problem is JSON.
    const r = await t.raw.get('/reports/trial-balance?from=x', { Accept: 'text/csv' });
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('needs reports:read', async () => {
    const k = await t.newKey(['transactions:read']);
    expect((await k.raw.get('/reports/trial-balance')).status).toBe(403);
    expect((await k.raw.get('/reports/general-ledger?account=6470')).status).toBe(403);
    expect((await k.raw.get('/reports/aged-receivables')).status).toBe(403);
    expect((await k.raw.get('/reports/aged-payables')).status).toBe(403);
    expect((await k.raw.get(`/customers/${crypto.randomUUID()}/statement`)).status).toBe(403);
  });
});

describe('GET /reports/general-ledger', () => {
  it("an account's lines with the running balance from its opening balance, the voucher number and the counterparts", async () => {
    const r = await ok(t.api.GET('/reports/general-ledger', { params: { query: { account: '6470', from: `${N}-01-01`, to: `${N}-03-31`, order: 'asc' } } }));
    expect(r.data.map((l) => [l.date, l.transaction_id, l.description, l.debit, l.credit, l.balance, l.counterparts.map((c) => c.account_number)])).toEqual([
      [`${N}-01-15`, ids.sale, 'Salg', 2500, 0, 74500, ['1010', '7680']],
      [`${N}-02-10`, ids.rent, 'Husleje', 0, 1000, 73500, ['2030']],
      [`${N}-03-20`, ids.sale2, 'Salg', 1250, 0, 74750, ['1010', '7680']],
    ]);
    expect(r.data[0]).toMatchObject({ document_number: expect.any(Number), system_id: expect.any(Number), voucher_id: '', source: 'manual' });
    expect(r.data[1]!.counterparts[0]!.name).toBeTruthy();
    expect(r.meta).toMatchObject({
      page: 1,
      per_page: 50,
      total: 3,
      total_pages: 1,
      account: { account_number: '6470', type: 'asset' },
      opening_balance: 72000,
      debit: 3750,
      credit: 1000,
      closing_balance: 74750,
    });
  });

  it('a later page keeps the running balance; a revenue account opens from its fiscal year', async () => {
    const p2 = await ok(
      t.api.GET('/reports/general-ledger', {
        params: { query: { account: '6470', from: `${N}-01-01`, to: `${N}-03-31`, per_page: 2, page: 2, order: 'asc' } },
      }),
    );
    expect(p2.data.map((l) => [l.date, l.balance])).toEqual([[`${N}-03-20`, 74750]]);
    expect(p2.meta).toMatchObject({ page: 2, per_page: 2, total: 3, total_pages: 2 });
    const beyond = await ok(t.api.GET('/reports/general-ledger', { params: { query: { account: '6470', from: `${N}-01-01`, to: `${N}-03-31`, page: 5 } } }));
    expect(beyond).toMatchObject({ data: [], meta: { total: 3, total_pages: 1, closing_balance: 74750 } });
    // 1010 from N-02-01: opens with January's −2000 of year N (not year Y's −20000).
    const rev = await ok(t.api.GET('/reports/general-ledger', { params: { query: { account: '1010', from: `${N}-02-01`, to: `${N}-03-31`, order: 'asc' } } }));
    expect(rev.meta).toMatchObject({ opening_balance: -2000, debit: 0, credit: 1000, closing_balance: -3000 });
    expect(rev.data.map((l) => [l.date, l.credit, l.balance])).toEqual([[`${N}-03-20`, 1000, -3000]]);
  });

  it("newest first by default; a search keeps each line's balance", async () => {
    const q = { account: '6470', from: `${N}-01-01`, to: `${N}-03-31` };
    const desc = await ok(t.api.GET('/reports/general-ledger', { params: { query: q } }));
    expect(desc.data.map((l) => [l.date, l.balance])).toEqual([
      [`${N}-03-20`, 74750],
      [`${N}-02-10`, 73500],
      [`${N}-01-15`, 74500],
    ]);
    // A later page newest first: its balances from the period's net less the lines after each.
    const second = await ok(t.api.GET('/reports/general-ledger', { params: { query: { ...q, per_page: 1, page: 2 } } }));
    expect(second.data.map((l) => [l.date, l.balance])).toEqual([[`${N}-02-10`, 73500]]);
    const rent = await ok(t.api.GET('/reports/general-ledger', { params: { query: { ...q, search: 'husleje' } } }));
    expect(rent.data.map((l) => [l.transaction_id, l.balance])).toEqual([[ids.rent, 73500]]);
    expect(rent.meta).toMatchObject({ total: 1, total_pages: 1, closing_balance: 74750 });
    const none = await ok(t.api.GET('/reports/general-ledger', { params: { query: { ...q, search: 'intet', page: 2 } } }));
    expect(none.meta).toMatchObject({ total: 0, total_pages: 0 });
  });

  it('as CSV: primo, every line, ultimo', async () => {
    const r = await t.raw.get(`/reports/general-ledger?account=6470&from=${N}-01-01&to=${N}-03-31&per_page=1&order=asc`, { Accept: 'text/csv' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-disposition')).toBe(`attachment; filename="kontokort-6470-${N}-01-01-${N}-03-31.csv"`);
    const rows = r.text
      .trimEnd()
      .split('\r\n')
      .map((l) => l.split(','));
    expect(rows[0]).toEqual([
      'date',
      'document_number',
      'system_id',
      'transaction_id',
      'voucher_id',
      'description',
      'counterparts',
      'debit',
      'credit',
      'balance',
    ]);
    expect(rows.slice(1).map((c) => [c[0], c[3], c[5], c[6], c[7], c[8], c[9]])).toEqual([
      [`${N}-01-01`, '', 'Primo', '', '', '', '72000'],
      [`${N}-01-15`, ids.sale, 'Salg', '1010 7680', '2500', '0', '74500'],
      [`${N}-02-10`, ids.rent, 'Husleje', '2030', '0', '1000', '73500'],
      [`${N}-03-20`, ids.sale2, 'Salg', '1010 7680', '1250', '0', '74750'],
      [`${N}-03-31`, '', 'Ultimo', '', '3750', '1000', '74750'],
    ]);
  });

  it('refuses an unknown or missing account and a reversed period', async () => {
    const bad = async (query: string, field: string) => {
      const r = await t.raw.get(`/reports/general-ledger?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body).toMatchObject({ code: 'invalid_request', field });
    };
    await bad('account=9999', 'account');
    await bad('', 'account');
    await bad('account=abc', 'account');
    await bad(`account=6470&from=${N}-02-01&to=${N}-01-01`, 'from');
  });
});

describe('GET /reports/aged-receivables and aged-payables', () => {
  it('open invoices per customer in buckets by days past due, at the end of as_of', async () => {
    const r = await ok(s.api.GET('/reports/aged-receivables', { params: { query: { as_of: `${Y}-12-31`, order: 'asc' } } }));
    // Alfa: invoice 1 (1250 − 250 paid = 1000, due 1 Sep: 121 days), invoice 7 (250, due 10 Oct: 82 days),
    // invoice 2 (500, due 1 Dec: 30 days). Beta: invoice 3 (2500, due 1 Nov: 60 days), invoice 4 (125, due
    // 3 January next year: not due); invoice 5 is paid.
    expect(r.data.map(({ documents, ...p }) => [p, documents.map((d) => [d.invoice_id, d.days_overdue, d.bucket, d.open_amount])])).toEqual([
      [
        { customer_id: ids.alfa, name: 'Alfa ApS', not_due: 0, days_1_30: 500, days_31_60: 0, days_61_90: 250, days_over_90: 1000, total: 1750 },
        // By due date.
        [
          [ids.inv1, 121, 'days_over_90', 1000],
          [ids.inv7, 82, 'days_61_90', 250],
          [ids.inv2, 30, 'days_1_30', 500],
        ],
      ],
      [
        { customer_id: ids.beta, name: 'Beta ApS', not_due: 125, days_1_30: 0, days_31_60: 2500, days_61_90: 0, days_over_90: 0, total: 2625 },
        [
          [ids.inv3, 60, 'days_31_60', 2500],
          [ids.inv4, 0, 'not_due', 125],
        ],
      ],
    ]);
    expect(r.meta).toEqual({
      page: 1,
      per_page: 50,
      total: 2,
      total_pages: 1,
      as_of: `${Y}-12-31`,
      currency: 'DKK',
      totals: { not_due: 125, days_1_30: 500, days_31_60: 2500, days_61_90: 250, days_over_90: 1000, total: 4375 },
    });
  });

  it('reads the past: on 10 October invoice 5 was open and invoice 1 unpaid', async () => {
    const r = await ok(s.api.GET('/reports/aged-receivables', { params: { query: { as_of: `${Y}-10-10`, order: 'asc' } } }));
    // Alfa: invoice 1 (1250 − 250 paid 1 Oct, due 1 Sep: 39 days), invoice 7 (due 10 Oct: not due).
    // Beta: invoice 3 (issued 1 Oct, due 1 Nov: not due), invoice 5 (625, due 1 Oct: 9 days).
    expect(r.data.map((p) => [p.name, p.not_due, p.days_1_30, p.days_31_60, p.total])).toEqual([
      ['Alfa ApS', 250, 0, 1000, 1250],
      ['Beta ApS', 2500, 625, 0, 3125],
    ]);
    expect(r.data[1]!.documents.find((d) => d.invoice_id === ids.inv5)).toMatchObject({ document_number: ids.inv5no, days_overdue: 9, bucket: 'days_1_30' });
  });

  it('sorts by total, searches by name or invoice number, and since/until select by due date', async () => {
    const q = { as_of: `${Y}-12-31` };
    const byTotal = await ok(s.api.GET('/reports/aged-receivables', { params: { query: { ...q, sort: 'total' } } }));
    expect(byTotal.data.map((p) => [p.name, p.total])).toEqual([
      ['Beta ApS', 2625],
      ['Alfa ApS', 1750],
    ]);
    const inv3 = (await ok(s.api.GET('/invoices/{id}', { params: { path: { id: ids.inv3! } } }))).data.invoice_number;
    const found = await ok(s.api.GET('/reports/aged-receivables', { params: { query: { ...q, search: inv3 } } }));
    expect(found.data.map((p) => p.name)).toEqual(['Beta ApS']);
    expect(found.meta).toMatchObject({ total: 1, totals: { total: 2625 } });
    // Due in November or December: invoice 3 (1 Nov) and invoice 2 (1 Dec).
    const due = await ok(s.api.GET('/reports/aged-receivables', { params: { query: { ...q, since: `${Y}-11-01`, until: `${Y}-12-31`, order: 'asc' } } }));
    expect(due.data.map((p) => [p.name, p.total, p.documents.map((d) => d.invoice_id)])).toEqual([
      ['Alfa ApS', 500, [ids.inv2]],
      ['Beta ApS', 2500, [ids.inv3]],
    ]);
    expect(due.meta.totals).toMatchObject({ days_1_30: 500, days_31_60: 2500, total: 3000 });
  });

  it('as CSV: one row per open invoice, its amount in its bucket column', async () => {
    const r = await s.raw.get(`/reports/aged-receivables?as_of=${Y}-12-31`, { Accept: 'text/csv' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-disposition')).toBe(`attachment; filename="debitorer-${Y}-12-31.csv"`);
    const rows = r.text
      .trimEnd()
      .split('\r\n')
      .map((l) => l.split(','));
    expect(rows[0]).toEqual([
      'customer_id',
      'name',
      'invoice_id',
      'document_number',
      'date',
      'due_date',
      'days_overdue',
      'not_due',
      'days_1_30',
      'days_31_60',
      'days_61_90',
      'days_over_90',
    ]);
    expect(
      rows
        .slice(1)
        .map((c) => [c[1], c[2], ...c.slice(6)])
        .sort(),
    ).toEqual(
      [
        ['Alfa ApS', ids.inv1, '121', '0', '0', '0', '0', '1000'],
        ['Alfa ApS', ids.inv2, '30', '0', '500', '0', '0', '0'],
        ['Alfa ApS', ids.inv7, '82', '0', '0', '0', '250', '0'],
        ['Beta ApS', ids.inv3, '60', '0', '0', '2500', '0', '0'],
        ['Beta ApS', ids.inv4, '0', '125', '0', '0', '0', '0'],
      ].sort(),
    );
  });

  it('open expenses per supplier; a paid one only before its payment; a bill without supplier on its own line', async () => {
    const r = await ok(s.api.GET('/reports/aged-payables', { params: { query: { as_of: `${Y}-12-31`, order: 'asc' } } }));
    // Expense 1 (1250, due 15 Nov: 46 days), expense 2 (500, due 31 Dec: not due); expense 3 paid 10 Dec;
    // the till receipt of 28 December (62.50, due that day: 3 days).
    expect(r.data.map(({ documents, ...p }) => [p, documents.map((d) => [d.expense_id, d.days_overdue, d.bucket, d.open_amount])])).toEqual([
      [
        { supplier_id: null, name: '', not_due: 0, days_1_30: 62.5, days_31_60: 0, days_61_90: 0, days_over_90: 0, total: 62.5 },
        [[ids.exp4, 3, 'days_1_30', 62.5]],
      ],
      [
        { supplier_id: ids.papir, name: 'Papir A/S', not_due: 500, days_1_30: 0, days_31_60: 1250, days_61_90: 0, days_over_90: 0, total: 1750 },
        [
          [ids.exp1, 46, 'days_31_60', 1250],
          [ids.exp2, 0, 'not_due', 500],
        ],
      ],
    ]);
    expect(r.meta.totals).toEqual({ not_due: 500, days_1_30: 62.5, days_31_60: 1250, days_61_90: 0, days_over_90: 0, total: 1812.5 });
    const before = await ok(s.api.GET('/reports/aged-payables', { params: { query: { as_of: `${Y}-12-05` } } }));
    // On 5 December: expense 1 (20 days), expense 2 (not due) and expense 3 (100, due 20 Dec: not due).
    expect(before.data.map((p) => [p.name, p.not_due, p.days_1_30, p.total])).toEqual([['Papir A/S', 600, 1250, 1850]]);
  });
});

describe('GET /customers/{id}/statement', () => {
  it('the opening balance, each invoice and payment with the balance after it, and the closing balance', async () => {
    const r = await ok(s.api.GET('/customers/{id}/statement', { params: { path: { id: ids.alfa! }, query: { from: `${Y}-09-01`, to: `${Y}-12-31` } } }));
    // Before 1 September: invoice 1 (1250). Then invoice 7 (+250), the payment on invoice 1 (−250),
    // invoice 2 (+500): 1750, what aged receivables shows for Alfa at 31 December.
    expect(r.data).toMatchObject({
      customer: { id: ids.alfa, name: 'Alfa ApS' },
      from: `${Y}-09-01`,
      to: `${Y}-12-31`,
      currency: 'DKK',
      opening_balance: 1250,
      debit: 750,
      credit: 250,
      closing_balance: 1750,
    });
    expect(r.data.lines.map((l) => [l.date, l.type, l.invoice_id, l.due_date, l.debit, l.credit, l.balance])).toEqual([
      [`${Y}-09-10`, 'invoice', ids.inv7, `${Y}-10-10`, 250, 0, 1500],
      [`${Y}-10-01`, 'payment', ids.inv1, null, 0, 250, 1250],
      [`${Y}-11-01`, 'invoice', ids.inv2, `${Y}-12-01`, 500, 0, 1750],
    ]);
  });

  it('as CSV; refuses an unknown customer (404) and another company’s', async () => {
    const r = await s.raw.get(`/customers/${ids.alfa}/statement?from=${Y}-09-01&to=${Y}-12-31`, { Accept: 'text/csv' });
    expect(r.status).toBe(200);
    const rows = r.text
      .trimEnd()
      .split('\r\n')
      .map((l) => l.split(','));
    expect(rows.map((c) => [c[0], c[1], c[5], c[6], c[7]])).toEqual([
      ['date', 'type', 'debit', 'credit', 'balance'],
      [`${Y}-09-01`, 'opening_balance', '', '', '1250'],
      [`${Y}-09-10`, 'invoice', '250', '0', '1500'],
      [`${Y}-10-01`, 'payment', '0', '250', '1250'],
      [`${Y}-11-01`, 'invoice', '500', '0', '1750'],
      [`${Y}-12-31`, 'closing_balance', '750', '250', '1750'],
    ]);
    expect((await s.raw.get(`/customers/${crypto.randomUUID()}/statement`)).status).toBe(404);
    expect((await t.raw.get(`/customers/${ids.alfa}/statement`)).status).toBe(404);
    expect(await t.raw.get('/customers/not-a-uuid/statement')).toMatchObject({ status: 400, body: { field: 'id' } });
  });

  it('as a PDF for the customer: the same figures, in Danish', async () => {
    const res = await fetch(`${t.svc.url}/api/v1/customers/${ids.alfa}/statement/pdf?from=${Y}-09-01&to=${Y}-12-31`, { headers: { 'X-API-Key': s.key } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="kontoudtog-${Y}-09-01-${Y}-12-31.pdf"`);
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(await res.arrayBuffer())), { mergePages: true });
    const flat = text.replace(/\s+/g, ' ');
    expect(flat).toContain('KONTOUDTOG');
    expect(flat).toContain('Alfa ApS');
    expect(flat).toContain(`Periode 01.09.${Y} – 31.12.${Y}`);
    expect(flat).toMatch(/Saldo primo 1\.250,00/);
    expect(flat).toMatch(new RegExp(`01\\.10\\.${Y} Indbetaling \\S+ 250,00 1\\.250,00`));
    expect(flat).toMatch(/Saldo ultimo 750,00 250,00 1\.750,00/);
    expect(flat).toContain('Saldo til betaling: DKK 1.750,00.');
    const other = await fetch(`${t.svc.url}/api/v1/customers/${ids.alfa}/statement/pdf`, { headers: { 'X-API-Key': t.key } });
    expect(other.status).toBe(404);
  });
});
