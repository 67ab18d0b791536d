// Dimensions and budgets through HTTP (issue 43, items 4 and 5; docs/dimensions.md): two projects' sales and
// purchases posted by hand, by an invoice and by an expense; the profit and loss and the trial balance
// filtered (dimension[Projekt]=A) and grouped (group_by=dimension:Projekt); a required dimension and a
// retired value refused; a budget beside the actuals. Every figure is worked out by hand below.
import { beforeAll, describe, expect, it } from 'vitest';
import { runSaftImport, today as businessDay } from '@tlr/domain';
import { created, idem, newCompany, newKey, ok as okAny, testDb, useCompany, type Api, type RequestBody } from './helpers.ts';
import { validateSaft } from './saft-schema.ts';

const t = useCompany({ name: 'Projekter ApS' });
const ok = async <T>(call: Parameters<typeof okAny<T>>[0]) => (await okAny(call)) as Exclude<T, string>;
const Y = Number(businessDay().slice(0, 4)); // the company's first fiscal year (calendar year)

type Line = RequestBody<'/transactions', 'post'>['lines'][number];
const post = (c: Api, date: string, lines: Line[]) => c.POST('/transactions', { params: idem(), body: { date, description: 'Postering', lines } });

const ids: Record<string, string> = {};

// The books (all in February of Y):
//   T1 manual:  6470 D 1250 | 1010 C 1000 {A} | 7680 C 250          (a sale of project A)
//   T2 manual:  2030 D 300 {A} | 6470 C 300                         (rent of project A)
//   invoice:    6190 D 3250 | 1010 C 2000 {B} | 1010 C 500 {A} | 1010 C 100 | 7680 C 650
//   expense:    2810 D 500 {B} | 7740 D 125 | 7440 C 625            (625 incl. 125 VAT, project B)
// So 1010 = 3600 (A 1500, B 2000, none 100); 2030 = 300 (A); 2810 = 500 (B).
// Result: whole 3600 − 800 = 2800; A 1500 − 300 = 1200; B 2000 − 500 = 1500; none 100.
beforeAll(async () => {
  const c = t.api;
  const dim = await created(
    c.POST('/dimensions', {
      params: idem(),
      body: {
        name: 'Projekt',
        values: [
          { code: 'A', name: 'Projekt A' },
          { code: 'B', name: 'Projekt B' },
        ],
      },
    }),
  );
  ids.dimension = dim.data.id;
  ids.t1 = (
    await created(
      post(c, `${Y}-02-03`, [
        { account_number: '6470', debit: 1250 },
        { account_number: '1010', credit: 1000, dimensions: { Projekt: 'A' } },
        { account_number: '7680', credit: 250 },
      ]),
    )
  ).data.id;
  await created(
    post(c, `${Y}-02-04`, [
      { account_number: '2030', debit: 300, dimensions: { Projekt: 'A' } },
      { account_number: '6470', credit: 300 },
    ]),
  );
  const customer = (await created(c.POST('/customers', { params: idem(), body: { name: 'Kunde ApS' } }))).data.id;
  const invoice = await created(
    c.POST('/invoices', {
      params: idem(),
      body: {
        customer_id: customer,
        issue_date: `${Y}-02-10`,
        due_date: `${Y}-02-24`,
        auto_approve: true,
        lines: [
          { description: 'Projekt B', quantity: 2, unit_price: 1000, dimensions: { Projekt: 'B' } },
          { description: 'Projekt A', quantity: 1, unit_price: 500, dimensions: { Projekt: 'A' } },
          { description: 'Andet', quantity: 1, unit_price: 100 },
        ],
      },
    }),
  );
  ids.invoice = invoice.data.id;
  const expense = await created(
    c.POST('/expenses', {
      params: idem(),
      body: { date: `${Y}-02-12`, amount: 625, vat_amount: 125, description: 'Materialer', dimensions: { Projekt: 'B' }, book: true },
    }),
  );
  ids.expense = expense.data.id;
});

const from = () => `${Y}-02-01`;
const to = () => `${Y}-02-28`;
const pl = (query: Record<string, unknown>) =>
  ok(t.api.GET('/reports/profit-loss', { params: { query: { from: from(), to: to(), ...query } as never } })).then((r) => r.data);
const section = (r: { sections: { key: string; total: number; accounts: { account_number: string; amount: number }[] }[] }, key: string) =>
  r.sections.find((s) => s.key === key)!;

describe('dimensions on journal lines', () => {
  it('a transaction, an invoice and an expense post their dimensions with their lines', async () => {
    const t1 = await ok(t.api.GET('/transactions/{id}', { params: { path: { id: ids.t1! } } }));
    expect(t1.data.lines.map((l) => l.dimensions)).toEqual([{}, { Projekt: 'A' }, {}]);
    const inv = await ok(t.api.GET('/invoices/{id}', { params: { path: { id: ids.invoice! } } }));
    expect(inv.data.lines.map((l) => l.dimensions)).toEqual([{ Projekt: 'B' }, { Projekt: 'A' }, {}]);
    // One revenue line per account, VAT code and dimensions: 2000 {B}, 500 {A}, 100 without.
    const posting = await ok(t.api.GET('/transactions/{id}', { params: { path: { id: inv.data.posted_transaction_id! } } }));
    const revenue = posting.data.lines.filter((l) => l.account_number === '1010').map((l) => [l.credit, l.dimensions]);
    expect(revenue).toEqual([
      [2000, { Projekt: 'B' }],
      [500, { Projekt: 'A' }],
      [100, {}],
    ]);
    const exp = await ok(t.api.GET('/expenses/{id}', { params: { path: { id: ids.expense! } } }));
    expect(exp.data.dimensions).toEqual({ Projekt: 'B' });
    const booked = await ok(t.api.GET('/transactions/{id}', { params: { path: { id: exp.data.posted_transaction_id! } } }));
    // The cost line carries the project; the VAT and the payable do not.
    expect(booked.data.lines.map((l) => [l.account_number, l.debit || -l.credit, l.dimensions])).toEqual([
      ['2810', 500, { Projekt: 'B' }],
      ['7740', 125, {}],
      ['7440', -625, {}],
    ]);
  });

  it('an unknown dimension or value is refused naming the line and the dimension', async () => {
    const a = await post(t.api, `${Y}-02-05`, [
      { account_number: '6470', debit: 10 },
      { account_number: '1010', credit: 10, dimensions: { Afdeling: 'X' } },
    ]);
    expect(a.response.status).toBe(400);
    expect(a.error).toMatchObject({ code: 'invalid_request', field: 'lines[1].dimensions.Afdeling' });
    const b = await post(t.api, `${Y}-02-05`, [
      { account_number: '6470', debit: 10 },
      { account_number: '1010', credit: 10, dimensions: { Projekt: 'Z' } },
    ]);
    expect(b.error).toMatchObject({ code: 'invalid_request', field: 'lines[1].dimensions.Projekt' });
  });
});

describe('reports by dimension', () => {
  it('the profit and loss as a whole, filtered by project and grouped by project', async () => {
    const whole = await pl({});
    expect(section(whole, 'revenue').total).toBe(3600);
    expect(section(whole, 'other_external_expenses').total).toBe(800);
    expect(whole.totals.result).toBe(2800);

    const a = await pl({ dimension: { Projekt: 'A' } });
    expect(a.dimensions).toEqual({ Projekt: 'A' });
    expect(section(a, 'revenue').accounts).toMatchObject([{ account_number: '1010', amount: 1500 }]);
    expect(section(a, 'other_external_expenses').accounts).toMatchObject([{ account_number: '2030', amount: 300 }]);
    expect(a.totals.result).toBe(1200);
    const b = await pl({ dimension: { Projekt: 'B' } });
    expect(section(b, 'other_external_expenses').accounts).toMatchObject([{ account_number: '2810', amount: 500 }]);
    expect(b.totals.result).toBe(1500);

    const grouped = await pl({ group_by: 'dimension:Projekt' });
    expect(grouped.totals.result).toBe(2800);
    expect(grouped.groups!.map((g) => [g.value, g.name, section(g, 'revenue').total, g.totals.result])).toEqual([
      ['A', 'Projekt A', 1500, 1200],
      ['B', 'Projekt B', 2000, 1500],
      [null, 'Uden Projekt', 100, 100],
    ]);
  });

  it('the trial balance filtered and grouped, debit positive', async () => {
    const tb = (query: Record<string, unknown>) =>
      ok(t.api.GET('/reports/trial-balance', { params: { query: { from: from(), to: to(), order: 'asc', ...query } as never } }));
    const a = await tb({ dimension: { Projekt: 'A' } });
    expect(a.data.map((r) => [r.account_number, r.debit, r.credit, r.closing_balance])).toEqual([
      ['1010', 0, 1500, -1500],
      ['2030', 300, 0, 300],
    ]);
    const g = await tb({ group_by: 'dimension:Projekt' });
    const revenue = g.data.filter((r) => r.account_number === '1010').map((r) => [r.dimension_value, r.credit]);
    expect(revenue).toEqual([
      ['A', 1500],
      ['B', 2000],
      [null, 100],
    ]);
    // The grouped rows add up to the whole: debit equals credit.
    expect(g.meta.totals.debit).toBe(g.meta.totals.credit);
  });

  it('an unknown dimension in a report is refused naming the parameter', async () => {
    const r = await t.api.GET('/reports/profit-loss', { params: { query: { dimension: { Afdeling: 'X' } } as never } });
    expect(r.response.status).toBe(400);
    expect(r.error).toMatchObject({ code: 'invalid_request', field: 'dimension[Afdeling]' });
  });
});

describe('the rules of dimensions', () => {
  it('a dimension required on an account refuses a line without it, naming the line and the dimension', async () => {
    await ok(t.api.PUT('/dimensions/{id}', { params: { path: { id: ids.dimension! } }, body: { required_account_numbers: ['2030'] } }));
    const r = await post(t.api, `${Y}-02-06`, [
      { account_number: '6470', credit: 100 },
      { account_number: '2030', debit: 100 },
    ]);
    expect(r.response.status).toBe(400);
    expect(r.error).toMatchObject({ code: 'dimension_required', field: 'lines[1].dimensions.Projekt' });
    await created(
      post(t.api, `${Y}-02-06`, [
        { account_number: '6470', credit: 100 },
        { account_number: '2030', debit: 100, dimensions: { Projekt: 'B' } },
      ]),
    );
    await ok(t.api.PUT('/dimensions/{id}', { params: { path: { id: ids.dimension! } }, body: { required_account_numbers: [] } }));
  });

  it('a retired value stays on old lines and is refused on new ones; a reversal carries it back', async () => {
    const dim = await ok(
      t.api.PUT('/dimensions/{id}', {
        params: { path: { id: ids.dimension! } },
        body: {
          values: [
            { code: 'A', retired: true },
            { code: 'C', name: 'Projekt C' },
          ],
        },
      }),
    );
    expect(dim.data.values.map((v) => [v.code, v.retired])).toEqual([
      ['A', true],
      ['B', false],
      ['C', false],
    ]);
    const r = await post(t.api, `${Y}-02-07`, [
      { account_number: '6470', debit: 10 },
      { account_number: '1010', credit: 10, dimensions: { Projekt: 'A' } },
    ]);
    expect(r.response.status).toBe(400);
    expect(r.error).toMatchObject({ code: 'dimension_value_retired', field: 'lines[1].dimensions.Projekt' });
    const draft = await t.api.POST('/invoices', {
      params: idem(),
      body: { issue_date: `${Y}-02-10`, due_date: `${Y}-02-24`, lines: [{ description: 'X', quantity: 1, unit_price: 1, dimensions: { Projekt: 'A' } }] },
    });
    expect(draft.error).toMatchObject({ code: 'dimension_value_retired', field: 'lines[0].dimensions.Projekt' });
    // The old line keeps it, and its reversal takes it back out of project A.
    const t1 = await ok(t.api.GET('/transactions/{id}', { params: { path: { id: ids.t1! } } }));
    expect(t1.data.lines[1]!.dimensions).toEqual({ Projekt: 'A' });
    const reversal = await created(t.api.POST('/transactions/{id}/reverse', { params: { path: { id: ids.t1! }, ...idem() }, body: { date: `${Y}-02-20` } }));
    expect(reversal.data.lines[1]).toMatchObject({ account_number: '1010', debit: 1000, dimensions: { Projekt: 'A' } });
    expect((await pl({ dimension: { Projekt: 'A' } })).totals.result).toBe(200); // 1200 − the 1000 reversed
    await ok(t.api.PUT('/dimensions/{id}', { params: { path: { id: ids.dimension! } }, body: { values: [{ code: 'A', retired: false }] } }));
  });

  it('a second dimension of the same name is a conflict; another company sees none of them', async () => {
    const dup = await t.api.POST('/dimensions', { params: idem(), body: { name: 'Projekt' } });
    expect(dup.response.status).toBe(409);
    const other = await t.another('Anden ApS');
    expect((await ok(other.api.GET('/dimensions'))).data).toEqual([]);
    expect((await other.api.GET('/dimensions/{id}', { params: { path: { id: ids.dimension! } } })).response.status).toBe(404);
    const r = await other.api.POST('/transactions', {
      params: idem(),
      body: {
        date: `${Y}-02-05`,
        lines: [
          { account_number: '6470', debit: 1 },
          { account_number: '1010', credit: 1, dimensions: { Projekt: 'B' } },
        ],
      },
    });
    expect(r.error).toMatchObject({ code: 'invalid_request', field: 'lines[1].dimensions.Projekt' });
  });
});

describe('budgets', () => {
  it('a budget per account and month beside the actuals, with the variance', async () => {
    const budget = await created(
      t.api.POST('/budgets', {
        params: idem(),
        body: { name: `Budget ${Y}`, fiscal_year: `${Y}-01-01`, lines: [{ account_number: '1010', month: `${Y}-01`, amount: 1000 }] },
      }),
    );
    // The bulk put replaces the lines: February's revenue 3000, rent 250, and 2230 (nothing posted) 80.
    const put = await ok(
      t.api.PUT('/budgets/{id}/lines', {
        params: { path: { id: budget.data.id } },
        body: {
          lines: [
            { account_number: '1010', month: `${Y}-02`, amount: 3000 },
            { account_number: '2030', month: `${Y}-02`, amount: 250 },
            { account_number: '2230', month: `${Y}-02`, amount: 80 },
            { account_number: '1010', month: `${Y}-03`, amount: 9999 },
          ],
        },
      }),
    );
    expect(put.data.lines).toHaveLength(4);
    const r = await pl({ budget: budget.data.id });
    // Actuals in February after the reversal and the 100 on 2030 {B}: 1010 = 3600 − 1000 = 2600;
    // 2030 = 300 + 100 = 400; 2810 = 500. Budget: 3000, 250 + 80 (2230) = 330. March is outside.
    const rev = section(r, 'revenue') as unknown as { budget: number; variance: number; accounts: { budget: number; variance: number }[] };
    expect([rev.budget, rev.variance, rev.accounts[0]!.budget, rev.accounts[0]!.variance]).toEqual([3000, -400, 3000, -400]);
    const ext = section(r, 'other_external_expenses') as unknown as {
      total: number;
      budget: number;
      variance: number;
      accounts: { account_number: string; amount: number; budget: number }[];
    };
    expect(ext.accounts.map((a) => [a.account_number, a.amount, a.budget])).toEqual([
      ['2030', 400, 250],
      ['2230', 0, 80],
      ['2810', 500, 0],
    ]);
    expect([ext.total, ext.budget, ext.variance]).toEqual([900, 330, 570]);
    expect(r.budget_totals!.result).toBe(2670); // 3000 − 330
    expect(r.variance_totals!.result).toBe(-970); // (2600 − 900) − 2670

    const bad = await t.api.PUT('/budgets/{id}/lines', {
      params: { path: { id: budget.data.id } },
      body: { lines: [{ account_number: '6470', month: `${Y}-02`, amount: 1 }] },
    });
    expect(bad.error).toMatchObject({ code: 'invalid_request', field: 'lines[0].account_number' });
    const outside = await t.api.PUT('/budgets/{id}/lines', {
      params: { path: { id: budget.data.id } },
      body: { lines: [{ account_number: '1010', month: `${Y + 1}-01`, amount: 1 }] },
    });
    expect(outside.error).toMatchObject({ code: 'invalid_request', field: 'lines[0].month' });
  });
});

describe('SAF-T', () => {
  it("carries the dimensions as AnalysisTypeTable and each line's Analysis, valid against the Danish XSD", async () => {
    const r = await t.api.GET('/exports/saft', { params: { query: { from: `${Y}-02-01`, to: `${Y}-02-28` } }, parseAs: 'text' });
    const xml = r.data as unknown as string;
    expect(r.response.status).toBe(200);
    const { valid, errors } = await validateSaft(xml);
    expect(errors).toEqual([]);
    expect(valid).toBe(true);
    // One entry per value of the dimension (A, B and C added later), its AnalysisType the dimension's name.
    const table = /<AnalysisTypeTable>(.*?)<\/AnalysisTypeTable>/.exec(xml)![1]!;
    expect([...table.matchAll(/<AnalysisType>(.*?)<\/AnalysisType>.*?<AnalysisID>(.*?)<\/AnalysisID>/g)].map((m) => `${m[1]}:${m[2]}`)).toEqual([
      'Projekt:A',
      'Projekt:B',
      'Projekt:C',
    ]);
    // T1's revenue line: 1010 credited 1000 in project A, the whole amount its AnalysisAmount.
    expect(xml).toContain(
      '<AccountID>1010</AccountID><Analysis><AnalysisType>Projekt</AnalysisType><AnalysisID>A</AnalysisID><AnalysisAmount><Amount>1000.00</Amount>',
    );
    // Every line carrying a dimension in the books has its Analysis: 1010 ×3 (T1, the invoice's A and B),
    // 2030 ×2 (T2, the required one), 2810 (the expense) and the reversal's 1010 {A}; and the invoice's own
    // lines in SalesInvoices, B and A (decision 840).
    const [journal, invoices] = xml.split('<SalesInvoices>') as [string, string];
    expect(journal.match(/<Analysis>/g)).toHaveLength(7);
    expect([...invoices.matchAll(/<AnalysisID>(\w)<\/AnalysisID><AnalysisAmount><Amount>([\d.]+)</g)].map((m) => `${m[1]} ${m[2]}`)).toEqual([
      'B 2000.00',
      'A 500.00',
    ]);
  });

  it("an import of that file brings the dimensions and each line's values into fresh books", async () => {
    const r = await t.api.GET('/exports/saft', { params: { query: { from: `${Y}-02-01`, to: `${Y}-02-28` } }, parseAs: 'text' });
    const xml = r.data as unknown as string;
    const firm = await newKey(t.svc.url, await newCompany('Kopi ApS'));
    const sent = await firm.raw.call<{ data: { id: string } }>('POST', '/imports/saft', {
      raw: xml,
      headers: { 'Content-Type': 'application/xml', 'Content-Disposition': 'attachment; filename="bog.xml"', ...idem().header },
    });
    expect(sent.status, sent.text).toBe(202);
    await runSaftImport(testDb(), sent.body.data.id, { progressEveryBytes: 1 << 20 });
    const done = await ok(firm.api.GET('/imports/{id}', { params: { path: { id: sent.body.data.id } } }));
    expect(done.data.status, JSON.stringify(done.data)).toBe('succeeded');
    const dims = await ok(firm.api.GET('/dimensions'));
    expect(dims.data.map((d) => [d.name, d.values.map((v) => v.code)])).toEqual([['Projekt', ['A', 'B', 'C']]]);
    // The same profit and loss per project as in the books it came from.
    const grouped = await ok(firm.api.GET('/reports/profit-loss', { params: { query: { from: from(), to: to(), group_by: 'dimension:Projekt' } } }));
    const original = await pl({ group_by: 'dimension:Projekt' });
    expect(grouped.data.groups!.map((g) => [g.value, g.totals.result])).toEqual(original.groups!.map((g) => [g.value, g.totals.result]));
  });
});
