// The reports through HTTP: a hand-checked set of postings over two fiscal years, the profit and loss
// statement and the balance sheet with every number asserted, filters, isolation and refusals.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { today as businessDay } from '@tlr/domain';
import { api, created, idem, ok, useCompany, type Api, type RequestBody } from './helpers.ts';

const t = useCompany({ name: 'Rapport ApS' });
const today = businessDay();
const Y = Number(today.slice(0, 4)); // the company's first fiscal year (calendar year)
const N = Y + 1; // the next one, opened by posting into it

type Line = RequestBody<'/transactions', 'post'>['lines'][number];
/** account_number -> { id, name }, from the posted lines. */
const accounts = new Map<string, { id: string; name: string }>();
const dr = (account_number: string, debit: number): Line => ({ account_number, debit });
const cr = (account_number: string, credit: number): Line => ({ account_number, credit });

async function post(cl: Api, date: string, description: string, lines: Line[]) {
  const posted = (await created(cl.POST('/transactions', { params: idem(), body: { date, description, lines } }))).data;
  if (cl === t.api) for (const l of posted.lines) accounts.set(l.account_number, { id: l.account_id, name: l.account_name });
  return posted;
}

beforeAll(async () => {
  const c = t.api;
  // Fiscal year Y. Hand-checked totals are in the tests below.
  await post(c, `${Y}-01-01`, 'Indskud af kapital', [dr('6470', 50000), cr('6520', 50000)]);
  await post(c, `${Y}-02-10`, 'Salg', [dr('6470', 25000), cr('1010', 20000), cr('7680', 5000)]);
  await post(c, `${Y}-03-05`, 'Varekøb', [dr('1610', 4000), dr('7740', 1000), cr('6470', 5000)]);
  await post(c, `${Y}-03-31`, 'Husleje', [dr('2030', 1500), cr('6470', 1500)]);
  await post(c, `${Y}-04-30`, 'Løn', [dr('2850', 3000), cr('6470', 3000)]);
  await post(c, `${Y}-05-01`, 'Køb af inventar', [dr('5580', 8000), cr('6470', 8000)]);
  await post(c, `${Y}-06-30`, 'Renteindtægt', [dr('6470', 45.55), cr('3470', 45.55)]);
  await post(c, `${Y}-06-30`, 'Renteudgift', [dr('3670', 10.1), cr('6470', 10.1)]);
  const wrong = await post(c, `${Y}-07-01`, 'Fejlpostering', [dr('2200', 300), cr('6470', 300)]);
  await created(c.POST('/transactions/{id}/reverse', { params: { path: { id: wrong.id }, ...idem() }, body: { date: `${Y}-07-01` } }));
  await post(c, `${Y}-12-31`, 'Afskrivning', [dr('3050', 1600), cr('5610', 1600)]);
  await post(c, `${Y}-12-31`, 'Selskabsskat', [dr('3740', 2185.8), cr('7250', 2185.8)]);
  // Fiscal year N.
  await post(c, `${N}-01-15`, 'Salg', [dr('6470', 2500), cr('1010', 2000), cr('7680', 500)]);

  // Another company's sale on the same day: never in this company's reports.
  const other = await t.another('Anden Rapport ApS');
  await post(other.api, `${Y}-02-10`, 'Andet firmas salg', [dr('6470', 999), cr('1010', 999)]);
});

const line = (n: string, amount: number) => ({ account_id: accounts.get(n)?.id, account_number: n, name: accounts.get(n)?.name, amount });
const profitLoss = (query: { from?: string; to?: string } = {}, c = t.api) => c.GET('/reports/profit-loss', { params: { query } });
const balance = (query: { as_of?: string } = {}, c = t.api) => c.GET('/reports/balance', { params: { query } });

const PL_SECTIONS: [string, string][] = [
  ['revenue', 'Nettoomsætning'],
  ['other_operating_income', 'Andre driftsindtægter'],
  ['cost_of_sales', 'Omkostninger til råvarer og hjælpematerialer'],
  ['other_external_expenses', 'Andre eksterne omkostninger'],
  ['staff', 'Personaleomkostninger'],
  ['depreciation', 'Af- og nedskrivninger'],
  ['other_operating_expenses', 'Andre driftsomkostninger'],
  ['other_income', 'Øvrige indtægter'],
  ['other_expenses', 'Øvrige omkostninger'],
  ['financial_income', 'Finansielle indtægter'],
  ['financial_expenses', 'Finansielle omkostninger'],
  ['tax', 'Skat af årets resultat'],
];
/** Every section, in order; the given ones with [total, ...[account, amount]], the rest empty. */
const plSections = (given: Record<string, [number, ...[string, number][]]>) =>
  PL_SECTIONS.map(([key, name]) => {
    const [total, ...lines] = given[key] ?? [0];
    return { key, name, accounts: lines.map(([n, a]) => line(n, a)), total };
  });

const BS_GROUPS: Record<string, [string, string][]> = {
  fixed_assets: [
    ['intangible_fixed_assets', 'Immaterielle anlægsaktiver'],
    ['tangible_fixed_assets', 'Materielle anlægsaktiver'],
    ['financial_fixed_assets', 'Finansielle anlægsaktiver'],
    ['other_fixed_assets', 'Øvrige anlægsaktiver'],
  ],
  current_assets: [
    ['inventories', 'Varebeholdninger'],
    ['receivables', 'Tilgodehavender'],
    ['securities', 'Værdipapirer og kapitalandele'],
    ['cash', 'Likvide beholdninger'],
    ['other_current_assets', 'Øvrige omsætningsaktiver'],
  ],
  equity: [
    ['posted_equity', 'Bogført egenkapital'],
    ['result_for_the_year', 'Årets resultat'],
    ['prior_years_result', 'Overført resultat fra tidligere år'],
  ],
  provisions: [['provisions', 'Hensatte forpligtelser']],
  long_term_liabilities: [['long_term_liabilities', 'Langfristede gældsforpligtelser']],
  short_term_liabilities: [['short_term_liabilities', 'Kortfristede gældsforpligtelser']],
};
const BS_NAMES: Record<string, string> = {
  fixed_assets: 'Anlægsaktiver',
  current_assets: 'Omsætningsaktiver',
  equity: 'Egenkapital',
  provisions: 'Hensatte forpligtelser',
  long_term_liabilities: 'Langfristede gældsforpligtelser',
  short_term_liabilities: 'Kortfristede gældsforpligtelser',
};
/** Sections with every group; the given groups with [total, ...[account, amount]], the rest empty. */
const bsSections = (keys: string[], totals: number[], given: Record<string, [number, ...[string, number][]]>) =>
  keys.map((key, i) => ({
    key,
    name: BS_NAMES[key],
    groups: BS_GROUPS[key]!.map(([g, name]) => {
      const [total, ...lines] = given[g] ?? [0];
      return { key: g, name, accounts: lines.map(([n, a]) => line(n, a)), total };
    }),
    total: totals[i],
  }));
const ASSETS = ['fixed_assets', 'current_assets'];
const LIABILITIES = ['equity', 'provisions', 'long_term_liabilities', 'short_term_liabilities'];

describe('GET /reports/profit-loss', () => {
  it('the fiscal year Y, every number by hand; the reversed posting nets to zero and is not listed', async () => {
    const r = await profitLoss({ from: `${Y}-01-01`, to: `${Y}-12-31` });
    expect(r.response.status).toBe(200);
    expect(r.response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.response.headers.get('x-request-id')).toBeTruthy();
    expect(r.response.headers.get('x-api-version')).toBe('2026-04-10');
    expect(Object.keys(r.data ?? {})).toEqual(['data']);
    expect(r.data?.data).toEqual({
      from: `${Y}-01-01`,
      to: `${Y}-12-31`,
      currency: 'DKK',
      sections: plSections({
        revenue: [20000, ['1010', 20000]],
        cost_of_sales: [4000, ['1610', 4000]],
        other_external_expenses: [1500, ['2030', 1500]],
        staff: [3000, ['2850', 3000]],
        depreciation: [1600, ['3050', 1600]],
        financial_income: [45.55, ['3470', 45.55]],
        financial_expenses: [10.1, ['3670', 10.1]],
        tax: [2185.8, ['3740', 2185.8]],
      }),
      // gross 20000 − 4000 − 1500 = 14500; operating 14500 − 3000 − 1600 = 9900;
      // before tax 9900 + 45.55 − 10.10 = 9935.45; result 9935.45 − 2185.80 = 7749.65
      // = revenues (20000 + 45.55) − costs (4000 + 1500 + 3000 + 1600 + 10.10 + 2185.80)
      totals: { gross_profit: 14500, operating_profit: 9900, profit_before_tax: 9935.45, result: 7749.65 },
    });
  });

  it('a period filter excludes postings outside it (dates inclusive)', async () => {
    const march = (await ok(profitLoss({ from: `${Y}-03-01`, to: `${Y}-03-31` }))).data;
    expect(march.sections).toEqual(plSections({ cost_of_sales: [4000, ['1610', 4000]], other_external_expenses: [1500, ['2030', 1500]] }));
    expect(march.totals).toEqual({ gross_profit: -5500, operating_profit: -5500, profit_before_tax: -5500, result: -5500 });
    // the day of the wrong posting and its reversal: nothing
    const reversed = (await ok(profitLoss({ from: `${Y}-07-01`, to: `${Y}-07-01` }))).data;
    expect(reversed.sections).toEqual(plSections({}));
    expect(reversed.totals.result).toBe(0);
    const next = (await ok(profitLoss({ from: `${N}-01-01`, to: `${N}-12-31` }))).data;
    expect(next.sections).toEqual(plSections({ revenue: [2000, ['1010', 2000]] }));
    expect(next.totals.result).toBe(2000);
    const both = (await ok(profitLoss({ from: `${Y}-01-01`, to: `${N}-12-31` }))).data;
    expect(both.sections[0]).toEqual({ key: 'revenue', name: 'Nettoomsætning', accounts: [line('1010', 22000)], total: 22000 });
    expect(both.totals.result).toBe(9749.65);
  });

  it('defaults: to = today, from = the start of the fiscal year containing to', async () => {
    const r = await profitLoss();
    expect(r.response.status).toBe(200);
    expect(r.data?.data).toMatchObject({ from: `${Y}-01-01`, to: today });
    expect(r.data).toEqual((await profitLoss({ from: `${Y}-01-01`, to: today })).data);
    expect((await ok(profitLoss({ to: `${N}-06-30` }))).data).toMatchObject({ from: `${N}-01-01`, to: `${N}-06-30`, totals: { result: 2000 } });
  });

  it("'today' is the business day in Denmark: at 23:30 UTC on 30 June the defaults are already 1 July", async () => {
    const own = (await t.another('Sen Aften ApS')).api;
    const posted = await post(own, `${Y}-06-30`, 'Rettes', [dr('6470', 1), cr('1010', 1)]);
    // The service runs in this process, so its clock is the mocked one (Date only; timers run as usual).
    vi.setSystemTime(`${Y}-06-30T23:30:00Z`);
    try {
      expect((await ok(profitLoss({}, own))).data).toMatchObject({ from: `${Y}-01-01`, to: `${Y}-07-01` });
      expect((await ok(balance({}, own))).data.as_of).toBe(`${Y}-07-01`);
      const reversal = await created(own.POST('/transactions/{id}/reverse', { params: { path: { id: posted.id }, ...idem() }, body: {} }));
      expect(reversal.data.date).toBe(`${Y}-07-01`);
    } finally {
      vi.useRealTimers();
    }
  });

  it("never shows another company's postings", async () => {
    const revenue = (await ok(profitLoss({ from: `${Y}-02-10`, to: `${Y}-02-10` }))).data.sections[0];
    expect(revenue).toEqual({ key: 'revenue', name: 'Nettoomsætning', accounts: [line('1010', 20000)], total: 20000 });
  });

  // Malformed on purpose, so through the untyped client.
  it.each([
    ['from=2026-02-30', 'from'],
    ['from=10-04-2026', 'from'],
    ['to=2026-4-1', 'to'],
    [`from=${Y}-05-01&to=${Y}-04-30`, 'from'],
    ['period=2026', 'period'],
  ])('refuses %s with 400 invalid_request naming %s', async (query, field) => {
    const r = await t.raw.get(`/reports/profit-loss?${query}`);
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.body).toMatchObject({ status: 400, code: 'invalid_request', field });
  });
});

describe('GET /reports/balance', () => {
  it("at the end of fiscal year Y, every number by hand: balanced, the year's result in equity", async () => {
    const r = await balance({ as_of: `${Y}-12-31` });
    expect(r.response.status).toBe(200);
    expect(r.response.headers.get('x-request-id')).toBeTruthy();
    expect(r.response.headers.get('x-api-version')).toBe('2026-04-10');
    expect(Object.keys(r.data ?? {})).toEqual(['data']);
    // cash 50000 + 25000 − 5000 − 1500 − 3000 − 8000 + 45.55 − 10.10 − 300 + 300 = 57535.45
    // tangible 8000 − 1600 = 6400; assets 63935.45
    // equity 50000 + result 7749.65 = 57749.65; long-term 2185.80; short-term 5000 − 1000 = 4000; total 63935.45
    expect(r.data?.data).toEqual({
      as_of: `${Y}-12-31`,
      currency: 'DKK',
      fiscal_year: { start_date: `${Y}-01-01`, end_date: `${Y}-12-31` },
      assets: bsSections(ASSETS, [6400, 57535.45], { tangible_fixed_assets: [6400, ['5580', 8000], ['5610', -1600]], cash: [57535.45, ['6470', 57535.45]] }),
      total_assets: 63935.45,
      liabilities_and_equity: bsSections(LIABILITIES, [57749.65, 0, 2185.8, 4000], {
        posted_equity: [50000, ['6520', 50000]],
        result_for_the_year: [7749.65],
        long_term_liabilities: [2185.8, ['7250', 2185.8]],
        short_term_liabilities: [4000, ['7680', 5000], ['7740', -1000]],
      }),
      total_liabilities_and_equity: 63935.45,
      balanced: true,
    });
  });

  it('as_of before a posting excludes it', async () => {
    // up to Y-03-31: capital, sale, purchase, rent. Cash 50000 + 25000 − 5000 − 1500 = 68500;
    // result 20000 − 4000 − 1500 = 14500; equity 64500 + short-term 4000 = 68500
    const march = (await ok(balance({ as_of: `${Y}-03-31` }))).data;
    expect(march.assets).toEqual(bsSections(ASSETS, [0, 68500], { cash: [68500, ['6470', 68500]] }));
    expect(march.liabilities_and_equity).toEqual(
      bsSections(LIABILITIES, [64500, 0, 0, 4000], {
        posted_equity: [50000, ['6520', 50000]],
        result_for_the_year: [14500],
        short_term_liabilities: [4000, ['7680', 5000], ['7740', -1000]],
      }),
    );
    expect(march).toMatchObject({ total_assets: 68500, total_liabilities_and_equity: 68500, balanced: true });
    // the day before the sale: only the capital (and never the other company's sale that day)
    const before = (await ok(balance({ as_of: `${Y}-02-09` }))).data;
    expect(before.assets).toEqual(bsSections(ASSETS, [0, 50000], { cash: [50000, ['6470', 50000]] }));
    expect(before).toMatchObject({ total_assets: 50000, total_liabilities_and_equity: 50000, balanced: true });
    const sale = (await ok(balance({ as_of: `${Y}-02-10` }))).data;
    expect(sale).toMatchObject({ total_assets: 75000, total_liabilities_and_equity: 75000, balanced: true });
  });

  it("in the next fiscal year, year Y's unclosed result is carried as the result of earlier years", async () => {
    // cash 57535.45 + 2500 = 60035.45; assets 66435.45
    // equity 50000 + 2000 (year N) + 7749.65 (year Y) = 59749.65; long-term 2185.80; short-term 4000 + 500 = 4500
    const r = (await ok(balance({ as_of: `${N}-01-31` }))).data;
    expect(r.fiscal_year).toEqual({ start_date: `${N}-01-01`, end_date: `${N}-12-31` });
    expect(r.assets).toEqual(
      bsSections(ASSETS, [6400, 60035.45], { tangible_fixed_assets: [6400, ['5580', 8000], ['5610', -1600]], cash: [60035.45, ['6470', 60035.45]] }),
    );
    expect(r.liabilities_and_equity).toEqual(
      bsSections(LIABILITIES, [59749.65, 0, 2185.8, 4500], {
        posted_equity: [50000, ['6520', 50000]],
        result_for_the_year: [2000],
        prior_years_result: [7749.65],
        long_term_liabilities: [2185.8, ['7250', 2185.8]],
        short_term_liabilities: [4500, ['7680', 5500], ['7740', -1000]],
      }),
    );
    expect(r).toMatchObject({ total_assets: 66435.45, total_liabilities_and_equity: 66435.45, balanced: true });
    // the year's result equals the profit and loss of the fiscal year up to as_of
    expect((await ok(profitLoss({ from: `${N}-01-01`, to: `${N}-01-31` }))).data.totals.result).toBe(2000);
  });

  it('defaults as_of to today; a company without postings is empty and balanced', async () => {
    const r = await balance();
    expect(r.response.status).toBe(200);
    expect(r.data?.data.as_of).toBe(today);
    expect(r.data).toEqual((await balance({ as_of: today })).data);
    const empty = await t.another('Tom ApS');
    const e = (await ok(balance({}, empty.api))).data;
    expect(e).toMatchObject({ total_assets: 0, total_liabilities_and_equity: 0, balanced: true });
    expect(e.assets.flatMap((s) => s.groups.flatMap((g) => g.accounts))).toEqual([]);
  });

  // Malformed on purpose, so through the untyped client.
  it.each([
    ['as_of=2026-13-01', 'as_of'],
    ['as_of=today', 'as_of'],
    ['date=2026-01-01', 'date'],
  ])('refuses %s with 400 invalid_request naming %s', async (query, field) => {
    const r = await t.raw.get(`/reports/balance?${query}`);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ status: 400, code: 'invalid_request', field });
  });
});

describe('access', () => {
  it('requires reports:read (403 forbidden) and a credential (401)', async () => {
    const limited = api(t.svc.url, (await t.company.key(['accounts:read', 'transactions:read'])).key);
    for (const get of [(c: Api) => profitLoss({}, c), (c: Api) => balance({}, c)]) {
      const r = await get(limited);
      expect(r.response.status).toBe(403);
      expect(r.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.error).toMatchObject({ status: 403, code: 'forbidden' });
      expect((await get(api(t.svc.url))).response.status).toBe(401);
    }
    const reader = api(t.svc.url, (await t.company.key(['reports:read'])).key);
    expect((await ok(balance({ as_of: `${Y}-12-31` }, reader))).data.total_assets).toBe(63935.45);
  });
});
