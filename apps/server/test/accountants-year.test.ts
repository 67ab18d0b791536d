// A company's whole first year through HTTP (issue 43, "Done when"): two projects' sales and purchases paid
// through the bank's statement, a van bought in March and depreciated monthly by the job, a budget, every VAT
// quarter settled, a yearly insurance accrued over its twelve months, the year closed, the next year opening
// with the closing balances, and the reports an accountant works from; then the year's SAF-T file. One server, one company, the steps in order sharing
// their state. Every figure is worked out by hand below (THE YEAR).
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Db } from '@tlr/db';
import { Decimal, depreciateAssets, runAccruals, today as businessDay } from '@tlr/domain';
import { created, idem, ok as okAny, testDb, useCompany, type Api, type RequestBody } from './helpers.ts';
import { validateSaft } from './saft-schema.ts';

const t = useCompany({ name: 'Årets Gang ApS' });
/** A 2xx body as JSON: the reports also answer CSV (a string) when asked, which these calls do not. */
const ok = async <T>(call: Parameters<typeof okAny<T>>[0]) => (await okAny(call)) as Exclude<T, string>;
const Y = Number(businessDay().slice(0, 4)); // the company's first fiscal year (calendar year)
const N = Y + 1;
const d = (mmdd: string, y = Y) => `${y}-${mmdd}`;
const path = (id: string) => ({ params: { path: { id } } });
/** Adds amounts in kroner exactly (øre), as the books do. */
const sum = (...xs: number[]) => xs.reduce((a, x) => a.plus(x), new Decimal(0)).toNumber();
const neg = (x: number) => -x;

// THE YEAR, by hand (DKK; VAT 25 %). Projects A and B (the dimension Projekt).
//   Sales (invoices, net + VAT = gross):
//     I1  Alfa ApS  10 Feb  A 40,000                     = 50,000   paid 20 Feb by the bank
//     I2  Beta ApS   5 May  B 24,000                     = 30,000   paid 15 May
//     I3  Alfa ApS   1 Sep  A 16,000 + B 8,000 = 24,000  = 30,000   paid 14 Sep
//     I4  Beta ApS   2 Nov  B 12,000 (due 16 Nov)        = 15,000   left unpaid
//   Purchases (expenses, gross incl. VAT, booked to 2810):
//     E1  Byggemarked A/S  5 Mar  A 10,000 + 2,500 VAT  = 12,500   paid 18 Mar
//     E2  Underleverandør  10 Jun  B  8,000 + 2,000 VAT  = 10,000   paid 20 Jun
//     E3  Bilhuset A/S    15 Mar  B a van 120,000 + 30,000 VAT = 150,000 paid 20 Mar; capitalised to 5580,
//         which takes the 120,000 back out of project B (decision 841); the van is project B's (decision 872)
//   The van: (120,000 − 10,000 residual) / 60 months = 1,833.33 a month, March..December = 10 × 1,833.33,
//   charged to project B.
//     E4  Tryg Forsikring  1 Jul  the business insurance for July to next June, 12,000 (no VAT), paid 3 Jul;
//         accrued over its twelve months (issue 43 item 3): booked to 6390 (prepaid), 1,000 a month moved to
//         2180 (Forsikringer) by the accruals job; July..December = 6,000 this year, 6,000 still prepaid
//   The owner paid in 200,000 of share capital on 5 January (6520).
const REVENUE = { A: sum(40000, 16000), B: sum(24000, 8000, 12000) }; // A 56,000; B 44,000
const COSTS = { A: 10000, B: 8000 }; // on 2810
const INSURANCE = 12000;
const INSURANCE_COST = sum(...Array<number>(6).fill(INSURANCE / 12)); // 6,000 on 2180, no project
const MONTHS = 10;
const MONTHLY = 1833.33;
const DEPRECIATION = sum(...Array<number>(MONTHS).fill(MONTHLY)); // 18,333.30, project B's
const REVENUE_TOTAL = sum(REVENUE.A, REVENUE.B); // 100,000
const COSTS_TOTAL = sum(COSTS.A, COSTS.B, INSURANCE_COST); // 24,000 (other external expenses)
const RESULT = sum(REVENUE_TOTAL, neg(COSTS_TOTAL), neg(DEPRECIATION)); // 57,666.70
// The bank: 200,000 + 50,000 − 12,500 − 150,000 + 30,000 − 10,000 − 12,000 + 30,000 = 125,500.
const BANK = sum(200000, 50000, -12500, -150000, 30000, -10000, -INSURANCE, 30000);
// VAT by quarter (output 25 % of the sales, input the expenses'): Q1 10,000 − (2,500 + 30,000) = −22,500;
// Q2 6,000 − 2,000 = 4,000; Q3 6,000; Q4 3,000. The year: 25,000 − 34,500 = −9,500, owed to the company.
const VAT = { Q1: -22500, Q2: 4000, Q3: 6000, Q4: 3000 };

const ids: Record<string, string> = {};
const invoiceNumbers: Record<string, string> = {};

afterAll(() => vi.useRealTimers());

/** A Danske Bank CSV export (known by its header), newest line first as the bank writes it. */
function danskeCsv(lines: { date: string; text: string; amount: number }[]): string {
  const dk = (iso: string) => iso.split('-').reverse().join('.');
  const kr = (x: number) => new Decimal(x).toFixed(2).replace('.', ',');
  let balance = 0;
  const rows = lines.map((l) => ((balance = sum(balance, l.amount)), `"${dk(l.date)}";"${l.text}";"${kr(l.amount)}";"${kr(balance)}";"Udført";"Nej"`));
  return ['"Dato";"Tekst";"Beløb";"Saldo";"Status";"Afstemt"', ...rows.reverse()].join('\r\n');
}

type Line = RequestBody<'/invoices', 'post'>['lines'][number];
const item = (description: string, unit_price: number, project: 'A' | 'B'): Line => ({
  description,
  quantity: 1,
  unit_price,
  dimensions: { Projekt: project },
});

/** The depreciation job as it would run on `day` (what the nightly schedule calls). */
const db = testDb();
const run = <T>(fn: (tx: Db) => Promise<T>) => db.prisma.$transaction((tx) => fn(tx));
const depreciationJob = (day: string) => depreciateAssets(run, day);

describe("the accountant's year", () => {
  let c: Api;

  it('sets up the projects, the customers and suppliers, the bank account', async () => {
    c = t.api;
    // Projekt A from the start; B added when it begins (a value is added later, decision 581).
    const dim = (await created(c.POST('/dimensions', { params: idem(), body: { name: 'Projekt', values: [{ code: 'A', name: 'Projekt A' }] } }))).data;
    const both = await ok(c.PUT('/dimensions/{id}', { ...path(dim.id), body: { values: [{ code: 'B', name: 'Projekt B' }] } }));
    expect(both.data.values.map((v) => [v.code, v.retired])).toEqual([
      ['A', false],
      ['B', false],
    ]);
    for (const name of ['Alfa ApS', 'Beta ApS']) ids[name] = (await created(c.POST('/customers', { params: idem(), body: { name } }))).data.id;
    for (const name of ['Byggemarked A/S', 'Underleverandør ApS', 'Bilhuset A/S', 'Tryg Forsikring A/S'])
      ids[name] = (await created(c.POST('/suppliers', { params: idem(), body: { name } }))).data.id;
    ids.bank = (await created(c.POST('/bank-accounts', { params: idem(), body: { name: 'Driftskonto' } }))).data.id;
  });

  it('invoices the sales and books the purchases, each line in its project', async () => {
    const invoice = async (key: string, customer: string, issue: string, due: string, lines: Line[]) => {
      const inv = (
        await created(
          c.POST('/invoices', { params: idem(), body: { customer_id: ids[customer]!, issue_date: d(issue), due_date: d(due), auto_approve: true, lines } }),
        )
      ).data;
      ids[key] = inv.id;
      invoiceNumbers[key] = inv.invoice_number!;
      return inv;
    };
    expect((await invoice('I1', 'Alfa ApS', '02-10', '02-24', [item('Rådgivning', 40000, 'A')])).total).toBe(50000);
    await invoice('I2', 'Beta ApS', '05-05', '05-19', [item('Montage', 24000, 'B')]);
    const i3 = await invoice('I3', 'Alfa ApS', '09-01', '09-15', [item('Rådgivning', 16000, 'A'), item('Montage', 8000, 'B')]);
    expect(i3.total).toBe(30000);
    await invoice('I4', 'Beta ApS', '11-02', '11-16', [item('Montage', 12000, 'B')]);

    const expense = async (key: string, supplier: string, description: string, date: string, amount: number, project?: 'A' | 'B') => {
      const e = (
        await created(
          c.POST('/expenses', {
            params: idem(),
            body: {
              supplier_id: ids[supplier]!,
              date: d(date),
              amount,
              vat_amount: amount / 5,
              description,
              book: true,
              ...(project ? { dimensions: { Projekt: project } } : {}),
            },
          }),
        )
      ).data;
      ids[key] = e.id;
    };
    await expense('E1', 'Byggemarked A/S', 'Materialer', '03-05', 12500, 'A');
    await expense('E2', 'Underleverandør ApS', 'Montagehjælp', '06-10', 10000, 'B');
    await expense('E3', 'Bilhuset A/S', 'Varebil', '03-15', 150000, 'B');
    // The insurance: no VAT; spread over July to next June, so booking puts all of it on 6390.
    const insurance = (
      await created(
        c.POST('/expenses', {
          params: idem(),
          body: {
            supplier_id: ids['Tryg Forsikring A/S']!,
            date: d('07-01'),
            amount: INSURANCE,
            account_number: '2180',
            description: 'Erhvervsforsikring juli-juni',
            accrual: { from: `${Y}-07`, to: `${N}-06` },
            book: true,
          },
        }),
      )
    ).data;
    ids.E4 = insurance.id;
    expect(insurance.accrual!.schedule.map((m) => m.amount)).toEqual(Array<number>(12).fill(INSURANCE / 12));
  });

  it('the van bought in March becomes an asset from its booked expense in one call', async () => {
    const van = (
      await created(c.POST('/assets', { params: idem(), body: { name: 'Varebil', expense_id: ids.E3!, useful_life_months: 60, residual_value: 10000 } }))
    ).data;
    ids.van = van.id;
    // 150,000 − 30,000 VAT = 120,000 on 15 March, moved from 2810 to 5580.
    expect(van).toMatchObject({ acquisition_date: d('03-15'), cost: 120000, monthly_depreciation: MONTHLY, asset_account_number: '5580' });
    expect(van.postings).toMatchObject([{ kind: 'capitalisation', date: d('03-15'), amount: 120000 }]);
    // The expense charged project B with the van on 2810; its capitalisation takes it back out of B, onto
    // the van, which is B's as the expense was (its depreciation is B's).
    expect(van.dimensions).toEqual({ Projekt: 'B' });
    const capitalisation = (await ok(c.GET('/transactions/{id}', path(van.capitalisation_transaction_id!)))).data;
    expect(capitalisation.lines.map((l) => [l.account_number, l.debit, l.credit, l.dimensions])).toEqual([
      ['5580', 120000, 0, { Projekt: 'B' }],
      ['2810', 0, 120000, { Projekt: 'B' }],
    ]);
  });

  it("the bank's statement pays the invoices and the expenses by its own matching; the capital is posted by hand", async () => {
    const csv = danskeCsv([
      { date: d('01-05'), text: 'Indskud selskabskapital', amount: 200000 },
      { date: d('02-20'), text: `Alfa ApS faktura ${invoiceNumbers.I1}`, amount: 50000 },
      { date: d('03-18'), text: 'Byggemarked A/S', amount: -12500 },
      { date: d('03-20'), text: 'Bilhuset A/S', amount: -150000 },
      { date: d('05-15'), text: `Beta ApS faktura ${invoiceNumbers.I2}`, amount: 30000 },
      { date: d('06-20'), text: 'Underleverandør ApS', amount: -10000 },
      { date: d('07-03'), text: 'Tryg Forsikring A/S', amount: -INSURANCE },
      { date: d('09-14'), text: `Alfa ApS faktura ${invoiceNumbers.I3}`, amount: 30000 },
    ]);
    const res = await fetch(`${t.svc.url}/api/v1/bank-accounts/${ids.bank}/statements`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/csv; charset=utf-8', 'X-API-Key': t.key, ...idem().header },
      body: csv,
    });
    const statement = (await res.json()) as { data: { lines: unknown; balance: unknown } };
    expect(res.status).toBe(201);
    expect(statement.data).toMatchObject({ lines: { total: 8, new: 8, duplicates: 0 }, balance: { status: 'ok', closing: BANK } });
    const unmatched = (await ok(c.GET('/bank-accounts/{id}/lines', { params: { path: { id: ids.bank! }, query: { status: 'unmatched' } } }))).data;
    expect(unmatched.map((l) => l.text)).toEqual(['Indskud selskabskapital']);
    await ok(c.POST('/bank-lines/{id}/post', { params: { path: { id: unmatched[0]!.id }, ...idem() }, body: { account_number: '6520' } }));
    for (const key of ['I1', 'I2', 'I3']) expect((await ok(c.GET('/invoices/{id}', path(ids[key]!)))).data.status, key).toBe('paid');
    expect((await ok(c.GET('/invoices/{id}', path(ids.I4!)))).data.status).toBe('approved');
    for (const key of ['E1', 'E2', 'E3', 'E4']) expect((await ok(c.GET('/expenses/{id}', path(ids[key]!)))).data.status, key).toBe('paid');
  });

  it('the nightly jobs post each month once, on its last day: the van from March, the insurance from July', async () => {
    const ends = Array.from({ length: 12 }, (_, m) => new Date(Date.UTC(Y, m + 1, 0)).toISOString().slice(0, 10));
    for (const day of ends) await Promise.all([depreciationJob(day), runAccruals(run, day)]);
    await Promise.all([depreciationJob(d('12-31')), runAccruals(run, d('12-31'))]); // again: nothing more
    const insurance = (await ok(c.GET('/expenses/{id}', path(ids.E4!)))).data.accrual!.schedule;
    // July..December moved to 2180, each dated its month's last day; next year's six months wait on 6390.
    expect(insurance.map((m) => [m.status, m.date ?? null])).toEqual([
      ...ends.slice(6).map((end) => ['posted', end]),
      ...Array.from({ length: 6 }, () => ['pending', null]),
    ]);
    const van = (await ok(c.GET('/assets/{id}', path(ids.van!)))).data;
    expect(van.schedule.filter((m) => m.posted).map((m) => m.date)).toEqual(ends.slice(2));
    // 10 × 1,833.33 = 18,333.30; book value 120,000 − 18,333.30 = 101,666.70.
    expect(van).toMatchObject({ months_depreciated: MONTHS, accumulated_depreciation: DEPRECIATION, book_value: sum(120000, neg(DEPRECIATION)) });
    // The register at year end: what 5580 and 5610 hold (the trial balance below).
    const register = await ok(c.GET('/reports/assets', { params: { query: { as_of: d('12-31') } } }));
    expect(register.meta.totals).toEqual({ cost: 120000, accumulated_depreciation: DEPRECIATION, book_value: sum(120000, neg(DEPRECIATION)) });
  });
});

describe("the accountant's year, closed", () => {
  const c = () => t.api;
  const YS = d('01-01');
  const YE = d('12-31');
  type Section = { key: string; total: number; accounts: { account_number: string; amount: number }[] };
  const section = (r: { sections: Section[] }, key: string) => r.sections.find((s) => s.key === key)!;
  const profitLoss = async (query: Record<string, unknown> = {}) =>
    (await ok(c().GET('/reports/profit-loss', { params: { query: { from: YS, to: YE, ...query } as never } }))).data;

  it('a budget for the year beside the actuals, with the variance per line and in total', async () => {
    const months = (from: number, amount: number, account_number: string) =>
      Array.from({ length: 13 - from }, (_, i) => ({ account_number, month: `${Y}-${String(from + i).padStart(2, '0')}`, amount }));
    // Revenue 9,000 a month (108,000), other external expenses 1,250 a month (15,000), depreciation 2,000 a
    // month from March (20,000): a budgeted result of 108,000 − 15,000 − 20,000 = 73,000. Entered with the
    // revenue first; the bulk put then replaces every line with the whole budget.
    const budget = (
      await created(c().POST('/budgets', { params: idem(), body: { name: `Budget ${Y}`, fiscal_year: YS, lines: [...months(1, 9000, '1010')] } }))
    ).data;
    const put = await ok(
      c().PUT('/budgets/{id}/lines', {
        ...path(budget.id),
        body: { lines: [...months(1, 9000, '1010'), ...months(1, 1250, '2810'), ...months(3, 2000, '3050')] },
      }),
    );
    expect(put.data.lines).toHaveLength(12 + 12 + 10);
    const r = await profitLoss({ budget: budget.id });
    type Budgeted = Section & { budget: number; variance: number };
    const line = (key: string) => {
      const s = section(r, key) as Budgeted;
      return [s.total, s.budget, s.variance];
    };
    // Variance = actual − budget: revenue 100,000 − 108,000; costs 18,000 + the insurance's 6,000 − 15,000;
    // depreciation 18,333.30 − 20,000.
    expect(line('revenue')).toEqual([REVENUE_TOTAL, 108000, sum(REVENUE_TOTAL, -108000)]);
    expect(line('other_external_expenses')).toEqual([COSTS_TOTAL, 15000, sum(COSTS_TOTAL, -15000)]);
    expect(line('depreciation')).toEqual([DEPRECIATION, 20000, sum(DEPRECIATION, -20000)]);
    expect([r.totals.result, r.budget_totals!.result, r.variance_totals!.result]).toEqual([RESULT, 73000, sum(RESULT, -73000)]);
  });

  it('every VAT quarter is settled in January, in order; then the year closes, the result to equity', async () => {
    // The accountant's January: every quarter of the year has ended (the service runs in this process).
    vi.setSystemTime(`${N}-01-12T09:00:00Z`);
    const periods = Object.keys(VAT) as (keyof typeof VAT)[];
    for (const q of periods) {
      const settled = (await created(c().POST('/vat-returns/{period}/settle', { params: { path: { period: `${Y}-${q}` }, ...idem() }, body: {} }))).data;
      expect([q, settled.exact_fields.net_vat]).toEqual([q, VAT[q]]);
    }
    const r = await c().POST('/fiscal-years/{start}/close', { params: { path: { start: YS }, ...idem() } });
    expect(r.response.status).toBe(201);
    const year = r.data!.data;
    // The bank reconciles at year end (every line matched or posted): no warning.
    expect(year).toMatchObject({ start_date: YS, end_date: YE, state: 'closed', result: RESULT, warnings: [] });
    const closing = (await ok(c().GET('/transactions/{id}', path(year.closing_transaction_id!)))).data;
    // Each P&L account's balance moved to 6940: 1010 debited 100,000; 2180 credited the insurance's 6,000; 2810
    // credited 18,000; 3050 credited 18,333.30.
    expect(closing).toMatchObject({ date: YE, source: 'year_end' });
    expect(closing.lines.map((l) => [l.account_number, l.debit, l.credit])).toEqual([
      ['1010', REVENUE_TOTAL, 0],
      ['2180', 0, INSURANCE_COST],
      ['2810', 0, sum(COSTS.A, COSTS.B)],
      ['3050', 0, DEPRECIATION],
      ['6940', 0, RESULT],
    ]);
    const years = (await ok(c().GET('/fiscal-years'))).data;
    expect(years.find((y) => y.start_date === YS)).toEqual({
      start_date: YS,
      end_date: YE,
      state: 'closed',
      result: RESULT,
      closing_transaction_id: closing.id,
      closed_at: year.closed_at,
    });
    vi.useRealTimers();
  });

  it("next year's opening balances are the closing balances, account by account; equity holds the result", async () => {
    // The year's trial balance beside the next: every balance-sheet account opens the next year with what it
    // closed with; revenue and expenses open at 0, their year closed into 6940.
    const tb = await ok(c().GET('/reports/trial-balance', { params: { query: { from: d('01-01', N), to: d('12-31', N), order: 'asc', per_page: 200 } } }));
    const rows = tb.data.map((a) => [a.account_number, a.opening_balance, a.prior_year.closing_balance]);
    // Nothing is posted in the next year yet: its closing is its opening.
    expect(tb.data.every((a) => a.debit === 0 && a.credit === 0 && a.closing_balance === a.opening_balance)).toBe(true);
    // 6190: 125,000 invoiced − 110,000 paid = I4's 15,000; 6390: the insurance's six months still prepaid; 7440:
    // 184,500 booked and paid; 7680/7740 settled into 7840: 22,500 back − 4,000 − 6,000 − 3,000 = 9,500 owed to
    // the company; 5610 the van's depreciation.
    expect(rows).toEqual([
      ['1010', 0, 0],
      ['2180', 0, 0],
      ['2810', 0, 0],
      ['3050', 0, 0],
      ['5580', 120000, 120000],
      ['5610', neg(DEPRECIATION), neg(DEPRECIATION)],
      ['6190', 15000, 15000],
      ['6390', sum(INSURANCE, neg(INSURANCE_COST)), sum(INSURANCE, neg(INSURANCE_COST))],
      ['6470', BANK, BANK],
      ['6520', -200000, -200000],
      ['6940', neg(RESULT), neg(RESULT)],
      ['7440', 0, 0],
      ['7680', 0, 0],
      ['7740', 0, 0],
      ['7840', -sum(...Object.values(VAT)), -sum(...Object.values(VAT))],
    ]);
    // The year's own movements (the closing entry among them, decision 551): 1010 credited by the sales and
    // debited by the close.
    expect(tb.data.find((a) => a.account_number === '1010')!.prior_year).toEqual({
      opening_balance: 0,
      debit: REVENUE_TOTAL,
      credit: REVENUE_TOTAL,
      closing_balance: 0,
    });
    expect(tb.meta.totals.opening_balance).toBe(0);
    const bs = (await ok(c().GET('/reports/balance', { params: { query: { as_of: d('01-31', N) } } }))).data;
    const equity = bs.liabilities_and_equity.find((s) => s.key === 'equity')!;
    expect(equity.groups.map((g) => [g.key, g.total])).toEqual([
      ['posted_equity', sum(200000, RESULT)],
      ['result_for_the_year', 0],
      ['prior_years_result', 0],
    ]);
    expect(bs.balanced).toBe(true);
    // The next January's SAF-T file opens every account with the same balance (debit positive here).
    const saft = (await c().GET('/exports/saft', { params: { query: { from: d('01-01', N), to: d('01-31', N) } }, parseAs: 'text' })).data as unknown as string;
    const opening = [...saft.matchAll(/<Account><AccountID>(\d+)<\/AccountID>.*?<Opening(Debit|Credit)Balance>([\d.]+)</g)]
      .filter((m) => m[3] !== '0.00')
      .map((m) => [m[1], m[2] === 'Debit' ? Number(m[3]) : -Number(m[3])]);
    expect(opening).toEqual(rows.filter((r) => r[1] !== 0).map((r) => [r[0], r[1]]));
  });

  it('the profit and loss of the closed year: whole, by project and for project A', async () => {
    const whole = await profitLoss();
    expect([section(whole, 'revenue').total, section(whole, 'other_external_expenses').total, section(whole, 'depreciation').total]).toEqual([
      REVENUE_TOTAL,
      COSTS_TOTAL,
      DEPRECIATION,
    ]);
    expect(whole.totals.result).toBe(RESULT);
    // A: 56,000 − 10,000 = 46,000; B: 44,000 − 8,000 − 18,333.30 of the van's depreciation = 17,666.70 (the
    // van's 120,000 on 2810 and its capitalisation cancel out in B); without a project: the insurance's 6,000.
    const grouped = await profitLoss({ group_by: 'dimension:Projekt' });
    expect(grouped.totals.result).toBe(RESULT);
    expect(grouped.groups!.map((g) => [g.value, section(g, 'revenue').total, section(g, 'other_external_expenses').total, g.totals.result])).toEqual([
      ['A', REVENUE.A, COSTS.A, sum(REVENUE.A, neg(COSTS.A))],
      ['B', REVENUE.B, COSTS.B, sum(REVENUE.B, neg(COSTS.B), neg(DEPRECIATION))],
      [null, 0, INSURANCE_COST, neg(INSURANCE_COST)],
    ]);
    const a = await profitLoss({ dimension: { Projekt: 'A' } });
    expect(section(a, 'revenue').accounts).toMatchObject([{ account_number: '1010', amount: REVENUE.A }]);
    expect(a.totals.result).toBe(sum(REVENUE.A, neg(COSTS.A)));
  });

  it("the bank account's general ledger: every payment with its counterpart and the running balance", async () => {
    const gl = await ok(c().GET('/reports/general-ledger', { params: { query: { account: '6470', from: YS, to: YE, order: 'asc' } } }));
    expect(gl.data.map((l) => [l.date, l.debit, l.credit, l.balance, l.counterparts.map((x) => x.account_number)])).toEqual([
      [d('01-05'), 200000, 0, 200000, ['6520']],
      [d('02-20'), 50000, 0, 250000, ['6190']],
      [d('03-18'), 0, 12500, 237500, ['7440']],
      [d('03-20'), 0, 150000, 87500, ['7440']],
      [d('05-15'), 30000, 0, 117500, ['6190']],
      [d('06-20'), 0, 10000, 107500, ['7440']],
      [d('07-03'), 0, INSURANCE, 95500, ['7440']],
      [d('09-14'), 30000, 0, BANK, ['6190']],
    ]);
    expect(gl.meta).toMatchObject({ opening_balance: 0, debit: 310000, credit: 184500, closing_balance: BANK });
  });

  it('aged receivables at year end: the unpaid invoice 45 days overdue; the customer statement and its PDF', async () => {
    const aged = await ok(c().GET('/reports/aged-receivables', { params: { query: { as_of: YE } } }));
    // I4, due 16 November: 14 days of November + 31 of December = 45 days, in 31–60.
    expect(aged.data.map(({ documents, ...p }) => [p, documents.map((x) => [x.invoice_id, x.days_overdue, x.bucket, x.open_amount])])).toEqual([
      [
        { customer_id: ids['Beta ApS'], name: 'Beta ApS', not_due: 0, days_1_30: 0, days_31_60: 15000, days_61_90: 0, days_over_90: 0, total: 15000 },
        [[ids.I4, 45, 'days_31_60', 15000]],
      ],
    ]);
    const statement = (await ok(c().GET('/customers/{id}/statement', { params: { path: { id: ids['Beta ApS']! }, query: { from: YS, to: YE } } }))).data;
    // I2 30,000, paid 15 May; I4 15,000 open: what aged receivables shows.
    expect(statement).toMatchObject({ opening_balance: 0, debit: 45000, credit: 30000, closing_balance: 15000 });
    expect(statement.lines.map((l) => [l.date, l.type, l.invoice_id, l.debit, l.credit, l.balance])).toEqual([
      [d('05-05'), 'invoice', ids.I2, 30000, 0, 30000],
      [d('05-15'), 'payment', ids.I2, 0, 30000, 0],
      [d('11-02'), 'invoice', ids.I4, 15000, 0, 15000],
    ]);
    const pdf = await fetch(`${t.svc.url}/api/v1/customers/${ids['Beta ApS']}/statement/pdf?from=${YS}&to=${YE}`, { headers: { 'X-API-Key': t.key } });
    expect([pdf.status, pdf.headers.get('content-type')]).toEqual([200, 'application/pdf']);
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(await pdf.arrayBuffer())), { mergePages: true });
    expect(text.replace(/\s+/g, ' ')).toContain('Saldo til betaling: DKK 15.000,00.');
  });

  it("the year's SAF-T file is valid against the Danish XSD, with the projects as Analysis and the van's asset transactions", async () => {
    const r = await c().GET('/exports/saft', { params: { query: { from: YS, to: YE } }, parseAs: 'text' });
    const xml = r.data as unknown as string;
    expect(r.response.status).toBe(200);
    expect((await validateSaft(xml)).errors).toEqual([]);
    const table = /<AnalysisTypeTable>(.*?)<\/AnalysisTypeTable>/.exec(xml)![1]!;
    expect([...table.matchAll(/<AnalysisType>(.*?)<\/AnalysisType>.*?<AnalysisID>(.*?)<\/AnalysisID>/g)].map((m) => `${m[1]}:${m[2]}`)).toEqual([
      'Projekt:A',
      'Projekt:B',
    ]);
    // The journal's lines carrying a project: the revenue lines of I1 (A), I2 (B), I3 (A and B), I4 (B), the
    // cost lines of E1 (A), E2 (B) and E3 (B), both lines of the capitalisation and of each month's
    // depreciation of the van (B's, decision 872); the invoices' own lines in SalesInvoices carry theirs too
    // (decision 840).
    const [journal, invoices] = xml.split('<SalesInvoices>') as [string, string];
    const analysed = (part: string) =>
      [...part.matchAll(/<AnalysisID>(\w)<\/AnalysisID><AnalysisAmount><Amount>([\d.]+)<\/Amount>/g)].map((m) => `${m[1]} ${m[2]}`);
    expect(analysed(journal)).toEqual([
      ...['A 40000.00', 'B 24000.00', 'A 16000.00', 'B 8000.00', 'B 12000.00'], // I1..I4
      ...['A 10000.00', 'B 8000.00', 'B 120000.00'], // E1..E3
      ...['B 120000.00', 'B 120000.00'], // the van's capitalisation
      ...Array<string>(2 * MONTHS).fill(`B ${MONTHLY.toFixed(2)}`), // its depreciation, March..December
    ]);
    expect(analysed(invoices)).toEqual(['A 40000.00', 'B 24000.00', 'A 16000.00', 'B 8000.00', 'B 12000.00']);
    expect(invoices).toContain(
      '<LineNumber>1</LineNumber><AccountID>1010</AccountID><Analysis><AnalysisType>Projekt</AnalysisType><AnalysisID>A</AnalysisID>' +
        '<AnalysisAmount><Amount>40000.00</Amount><CurrencyCode>DKK</CurrencyCode><CurrencyAmount>40000.00</CurrencyAmount><ExchangeRate>1.000000</ExchangeRate></AnalysisAmount></Analysis><GoodsServicesID>',
    );
    // The van: one Asset; its addition and ten months of depreciation.
    expect(xml.match(/<Asset>/g)).toHaveLength(1);
    expect(xml).toContain(`<NumberOfAssetTransactions>${1 + MONTHS}</NumberOfAssetTransactions>`);
    expect(xml).toContain(`<DepreciationForPeriod>${new Decimal(DEPRECIATION).toFixed(2)}</DepreciationForPeriod>`);
  });
});
