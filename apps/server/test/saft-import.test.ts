// POST /imports/saft through HTTP (issue 32, item 4): a company's SAF-T export imported into a fresh
// company and exported again (trial balances and journals equal), a file written by hand in another
// system's shape, malformed files refused by name with nothing written, once per file, fresh books only.
// The import-saft job is run here as the worker runs it (test services have no worker).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { depreciateAssets, runSaftImport, today as businessDay } from '@tlr/domain';
import { startBoss } from '@tlr/jobs';
import { registerImportWorker } from '../src/worker.ts';
import { bodyOf, countRows, databaseUrl, idem, newCompany, newKey, ok, testDb, useCompany, waitFor, type Api, type Schemas } from './helpers.ts';

const today = businessDay();
const t = useCompany({ name: 'Kilde Tømrer ApS', cvr: '12345704' });
const FIXTURE = readFileSync(join(import.meta.dirname, 'fixtures', 'saft-economic.xml'), 'utf8');

type Import = Schemas['Import'];
type Firm = Awaited<ReturnType<typeof newKey>>;
const freshFirm = async (name: string): Promise<Firm> => newKey(t.svc.url, await newCompany(name, '12345704'));

/** POST /imports/saft with the file as the body. */
const send = (firm: Firm, xml: string, headers: Record<string, string> = {}) =>
  firm.raw.call<{ data: Import }>('POST', '/imports/saft', {
    raw: xml,
    headers: { 'Content-Type': 'application/xml', 'Content-Disposition': 'attachment; filename="bog.xml"', ...idem().header, ...headers },
  });

/** Sends the file, runs its job (as the worker does) and answers the import as GET /imports/{id} shows it. */
async function imported(firm: Firm, xml: string): Promise<Import> {
  const r = await send(firm, xml);
  expect(r.status, r.text).toBe(202);
  expect(r.headers.get('location')).toBe(`/api/v1/imports/${r.body.data.id}`);
  expect(r.body.data).toMatchObject({ status: 'queued', file_name: 'bog.xml' });
  await runSaftImport(testDb(), r.body.data.id, { progressEveryBytes: 1 });
  return (await ok(firm.api.GET('/imports/{id}', { params: { path: { id: r.body.data.id } } }))).data;
}

const exported = async (c: Api) => bodyOf(200, await c.GET('/exports/saft', { params: { query: {} }, parseAs: 'text' }));
const blocks = (xml: string, name: string) => [...xml.matchAll(new RegExp(`<${name}>([\\s\\S]*?)</${name}>`, 'g'))].map((m) => m[1]!);
const value = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
/** The trial balance of an export: each account's number and opening and closing balances. */
const trialBalance = (xml: string) =>
  blocks(xml, 'Account').map((a) =>
    a.replace(/<AccountCreationDate>[^<]*<\/AccountCreationDate>/, '').replace(/<AccountDescription>[^<]*<\/AccountDescription>/, ''),
  );
/** The journal apart from ids: per transaction its date and description, per line its account, text and amounts. */
const journal = (xml: string) =>
  blocks(xml, 'Transaction').map((x) => [
    value(x, 'TransactionDate'),
    value(x, 'Description'),
    blocks(x, 'Line').map((l) => l.replace(/<RecordID>[^<]*<\/RecordID>|<SourceDocumentID>[^<]*<\/SourceDocumentID>/g, '')),
  ]);
const rowsOf = async (companyId: string) => ({
  transactions: await countRows('SELECT count(*)::int AS n FROM ledger_transactions WHERE company_id = $1', [companyId]),
  accounts: await countRows('SELECT count(*)::int AS n FROM accounts WHERE company_id = $1', [companyId]),
  customers: await countRows('SELECT count(*)::int AS n FROM customers WHERE company_id = $1', [companyId]),
  suppliers: await countRows('SELECT count(*)::int AS n FROM suppliers WHERE company_id = $1', [companyId]),
});

describe('round trip: export, import into a fresh company, export again', () => {
  let source: string;
  beforeAll(async () => {
    const c = t.api;
    await ok(c.PUT('/exchange-rates', { body: { rates: [{ currency: 'EUR', date: today, rate: 7.4612 }] } }));
    const customer = (await ok(c.POST('/customers', { params: idem(), body: { name: 'Kunde & Co <A/S>', cvr: '12345674', city: 'Aarhus' } }))).data.id;
    await ok(c.POST('/suppliers', { params: idem(), body: { name: 'Byggemarked A/S', iban: 'DK5000400440116243' } }));
    const invoice = (currency?: string) =>
      c.POST('/invoices', {
        params: idem(),
        body: {
          customer_id: customer,
          issue_date: today,
          due_date: today,
          auto_approve: true,
          ...(currency ? { currency } : {}),
          lines: [{ description: 'Ydelse', quantity: 3, unit_price: 19.96 }],
        },
      });
    const [dkk, eur, cancelled] = [(await ok(invoice())).data, (await ok(invoice('EUR'))).data, (await ok(invoice())).data];
    await ok(c.PUT('/invoices/{id}/status', { params: { path: { id: dkk.id } }, body: { status: 'paid' } }));
    await ok(c.POST('/invoices/{id}/payments', { params: { path: { id: eur.id }, ...idem() }, body: { amount: 40 } }));
    await ok(c.PUT('/invoices/{id}/status', { params: { path: { id: cancelled.id } }, body: { status: 'cancelled' } }));
    const voucher = (
      await ok(c.POST('/vouchers', { params: idem(), body: { filename: 'husleje.pdf', content_base64: Buffer.from('bilag').toString('base64') } }))
    ).data.id;
    await ok(
      c.POST('/transactions', {
        params: idem(),
        body: {
          date: today,
          description: 'Husleje <november> & "varme"',
          voucher_id: voucher,
          lines: [
            { account_number: '2030', debit: 8000 },
            { account_number: '6470', credit: 8000 },
          ],
        },
      }),
    );
    source = await exported(c);
  });

  it('imports the export exactly: trial balances equal, journals equal line for line apart from ids', async () => {
    const firm = await freshFirm('Modtager ApS');
    const done = await imported(firm, source);
    expect(done).toMatchObject({ status: 'succeeded', problem: null, progress: { phase: 'done', percent: 100 } });
    expect(done.counts).toMatchObject({
      customers: 1,
      suppliers: 1,
      transactions: blocks(source, 'Transaction').length,
      accounts: blocks(source, 'Account').length,
      accounts_created: 0,
    });
    expect(done.counts.lines).toBe(blocks(source, 'Transaction').flatMap((x) => blocks(x, 'Line')).length);
    const again = await exported(firm.api);
    expect(trialBalance(again)).toEqual(trialBalance(source));
    expect(journal(again)).toEqual(journal(source));
    // The original ids are kept on each imported posting (the transaction resource shows them).
    const list = (await ok(firm.api.GET('/transactions', { params: { query: { per_page: 100 } } }))).data;
    const ids = blocks(source, 'Transaction').map((x) => value(x, 'TransactionID'));
    expect(list.map((x) => [x.source, x.source_journal_id, x.source_transaction_id]).sort()).toEqual(ids.map((id) => ['import', 'GL', id]).sort());
  });

  it('imports the same file once: sent again, the answer is the first import', async () => {
    const firm = await freshFirm('Dobbelt ApS');
    const first = await imported(firm, source);
    const second = await send(firm, source);
    expect([second.status, second.body.data.id, second.headers.get('location')]).toEqual([202, first.id, `/api/v1/imports/${first.id}`]);
    expect(await countRows('SELECT count(*)::int AS n FROM imports WHERE company_id = $1', [firm.companyId])).toBe(1);
    const page = await ok(firm.api.GET('/imports', { params: { query: {} } }));
    expect(page.meta).toMatchObject({ total: 1 });
  });

  it('refuses a company with postings (409 books_not_empty), nothing recorded', async () => {
    const r = await send(await t.newKey(), source);
    expect([r.status, (r.body as unknown as { code: string }).code]).toEqual([409, 'books_not_empty']);
    expect(await countRows('SELECT count(*)::int AS n FROM imports WHERE company_id = $1', [t.company.companyId])).toBe(0);
  });
});

describe('the asset register: MasterFiles/Assets and AssetTransactions', () => {
  it('an asset with ten months depreciated imports with its cost, depreciation to date and accounts; the next month is posted from there', async () => {
    const Y = today.slice(0, 4);
    const job = (day: string) => depreciateAssets((fn) => testDb().prisma.$transaction((tx) => fn(tx)), day);
    const src = await t.another('Anlæg Kilde ApS');
    // Bought 10 January for 12,000 (5580 against the bank), 36 months, residual 1,200: (12,000 − 1,200) / 36 = 300 a month.
    const bought = (
      await ok(
        src.api.POST('/transactions', {
          params: idem(),
          body: {
            date: `${Y}-01-10`,
            description: 'CNC-fræser',
            lines: [
              { account_number: '5580', debit: 12000 },
              { account_number: '6470', credit: 12000 },
            ],
          },
        }),
      )
    ).data;
    const body = { name: 'CNC-fræser', acquisition_date: `${Y}-01-10`, cost: 12000, useful_life_months: 36, residual_value: 1200, transaction_id: bought.id };
    await ok(src.api.POST('/assets', { params: idem(), body }));
    // A van bought 1 February for 6,000 (12 months, no residual: 500 a month), sold 10 June for 3,500: the
    // disposal posts February to May first (2,000), so the book value is 4,000 and the loss 500 (decision 891).
    const van = (
      await ok(
        src.api.POST('/assets', {
          params: idem(),
          body: { name: 'Varebil', acquisition_date: `${Y}-02-01`, cost: 6000, useful_life_months: 12 },
        }),
      )
    ).data;
    await ok(src.api.POST('/assets/{id}/dispose', { params: { path: { id: van.id }, ...idem() }, body: { date: `${Y}-06-10`, proceeds: 3500 } }));
    await job(`${Y}-10-31`); // January to October: 10 months, 3,000; book value 9,000
    const xml = await exported(src.api);
    expect(blocks(xml, 'AssetTransaction').map((x) => value(x, 'AssetTransactionType'))).toEqual([
      'TILGANG',
      ...Array(10).fill('AFSKRIV'),
      'TILGANG',
      ...Array(4).fill('AFSKRIV'),
      'AFGANG',
    ]);

    const firm = await freshFirm('Anlæg Modtager ApS');
    // An asset on an expense account is refused by name, and nothing is written (the import is one transaction).
    const onExpense = xml.replace(/(<Asset><AssetID>[^<]*<\/AssetID><AccountID>)5580</, '$13050<');
    expect(onExpense).not.toBe(xml);
    const refused = await imported(firm, onExpense);
    expect(refused).toMatchObject({ status: 'failed', problem: { code: 'saft_file_invalid', field: 'AccountID' } });
    expect(refused.problem!.detail).toMatch(/the asset's account 3050 is not an asset account/);
    expect(await countRows('SELECT count(*)::int AS n FROM ledger_transactions WHERE company_id = $1', [firm.companyId])).toBe(0);
    const done = await imported(firm, xml);
    expect(done).toMatchObject({ status: 'succeeded', counts: { assets: 2 } });
    const register = async (c: Api) =>
      (await ok(c.GET('/assets', { params: { query: { sort: 'acquisition_date', order: 'asc' } } }))).data.map(
        ({ id: _id, transaction_id: _t, disposal_transaction_id: _d, created_at: _c, updated_at: _u, ...a }) => a,
      );
    const [mine, sold] = await register(firm.api);
    expect([mine, sold]).toEqual(await register(src.api));
    expect(sold).toMatchObject({ status: 'disposed', disposed_date: `${Y}-06-10`, disposal_proceeds: 3500, months_depreciated: 4, book_value: 0 });
    // The register as of a date matches the source's: 31 May holds the van at 6,000 − 2,000; 10 June no longer.
    const reportAt = async (c: Api, as_of: string) => {
      const r = (await ok(c.GET('/reports/assets', { params: { query: { as_of } } }))) as { data: { asset_id: string }[]; meta: { totals: unknown } };
      return [r.data.map(({ asset_id: _a, ...a }) => a), r.meta.totals];
    };
    for (const day of [`${Y}-05-31`, `${Y}-06-10`, `${Y}-10-31`]) expect(await reportAt(firm.api, day)).toEqual(await reportAt(src.api, day));
    expect((await reportAt(firm.api, `${Y}-05-31`))[1]).toMatchObject({ cost: 18000, accumulated_depreciation: 3500, book_value: 14500 });
    expect(mine).toMatchObject({
      cost: 12000,
      residual_value: 1200,
      useful_life_months: 36,
      asset_account_number: '5580',
      accumulated_account_number: '5610',
      depreciation_account_number: '3050',
      status: 'active',
      months_depreciated: 10,
      accumulated_depreciation: 3000,
      book_value: 9000,
      next_depreciation_month: `${Y}-11-01`,
    });
    const [asset, soldAsset] = (await ok(firm.api.GET('/assets', { params: { query: { sort: 'acquisition_date', order: 'asc' } } }))).data;
    // The van's disposal names the imported posting of its sale.
    const sale = (await ok(firm.api.GET('/assets/{id}', { params: { path: { id: soldAsset!.id } } }))).data.postings.at(-1)!;
    expect(sale).toMatchObject({ kind: 'disposal', date: `${Y}-06-10` });
    expect((await ok(firm.api.GET('/transactions/{id}', { params: { path: { id: sale.transaction_id } } }))).data.source).toBe('import');
    // It came from the imported purchase; its ten months are the imported postings.
    const purchase = (await ok(firm.api.GET('/transactions/{id}', { params: { path: { id: asset!.transaction_id! } } }))).data;
    expect([purchase.source, purchase.source_transaction_id, purchase.date]).toEqual(['import', String(bought.document_number), `${Y}-01-10`]);
    const full = (await ok(firm.api.GET('/assets/{id}', { params: { path: { id: asset!.id } } }))).data;
    expect(full.postings.map((p) => [p.kind, p.date, p.amount])).toEqual(
      Array.from({ length: 10 }, (_, i) => ['depreciation', expect.stringMatching(new RegExp(`^${Y}-${String(i + 1).padStart(2, '0')}-`)), 300]),
    );
    // The register report agrees, and November is posted once from where the file left off: 3,300 and 8,700.
    await job(`${Y}-11-30`);
    const after = (await ok(firm.api.GET('/assets/{id}', { params: { path: { id: asset!.id } } }))).data;
    expect([after.months_depreciated, after.accumulated_depreciation, after.book_value]).toEqual([11, 3300, 8700]);
    const november = after.postings.at(-1)!;
    const posting = (await ok(firm.api.GET('/transactions/{id}', { params: { path: { id: november.transaction_id } } }))).data;
    expect(posting.lines.map((l) => [l.account_number, l.debit, l.credit])).toEqual([
      ['3050', 300, 0],
      ['5610', 0, 300],
    ]);
  });
});

describe('a file of another system, written by hand from the XSD', () => {
  it('imports: accounts mapped by StandardAccountID or created, parties, opening balances, the journal with its ids', async () => {
    const firm = await freshFirm('Skifter System ApS');
    const before = await rowsOf(firm.companyId);
    const done = await imported(firm, FIXTURE);
    expect(done.problem).toBeNull();
    expect(done).toMatchObject({ status: 'succeeded', counts: { accounts: 7, accounts_created: 1, customers: 1, suppliers: 1, transactions: 3, lines: 9 } });
    expect(await rowsOf(firm.companyId)).toEqual({ transactions: 3, accounts: before.accounts + 1, customers: 1, suppliers: 1 });
    const list = (await ok(firm.api.GET('/transactions', { params: { query: { per_page: 10, sort: 'date', order: 'asc' } } }))).data;
    const full = await Promise.all(list.map(async (x) => (await ok(firm.api.GET('/transactions/{id}', { params: { path: { id: x.id } } }))).data));
    const shape = full.map((x) => [
      x.date,
      x.source_journal_id,
      x.source_transaction_id,
      x.lines.map((l) => [l.account_number, l.debit, l.credit, l.currency]),
    ]);
    expect(shape).toEqual([
      // The opening balances, the day before the file's period: 6190 receivables, the created bank account, 6510 capital.
      [
        '2025-12-31',
        '',
        'OPENING',
        [
          ['6190', 500, 0, null],
          ['58100', 49500, 0, null],
          ['6510', 0, 50000, null],
        ],
      ],
      [
        '2026-01-10',
        'KK1',
        '1001',
        [
          ['6190', 2250, 0, 'EUR'],
          ['1010', 0, 1800, null],
          ['7680', 0, 450, null],
        ],
      ],
      [
        '2026-01-15',
        'KK1',
        '1002',
        [
          ['2030', 4000, 0, null],
          ['7740', 1000, 0, null],
          ['58100', 0, 5000, null],
        ],
      ],
    ]);
    expect(full[1]!.lines[0]).toMatchObject({ currency_amount: 300, exchange_rate: 7.5 });
    // The control trail: imported postings are registered by the credential that sent the file.
    for (const x of full) expect(x.registered_by).toMatchObject({ type: 'api_key', id: done.requested_by.id });
  });
});

describe('the import-saft job on a worker', () => {
  it("runs a test key's import into the company's sandbox through pg-boss", async () => {
    const company = await newCompany('Sandkasse Skifter ApS', '12345704');
    const firm = await newKey(t.svc.url, company, undefined, 'test');
    // The import's queue alone: a whole worker on the shared test database would also take other files' jobs.
    const worker = await startBoss(databaseUrl(), () => {});
    await registerImportWorker(worker, testDb(), pino({ level: 'silent' }));
    try {
      const r = await send(firm, FIXTURE);
      expect(r.status, r.text).toBe(202);
      const done = await waitFor(async () => {
        // Every half second: a key has 100 requests a minute.
        await new Promise((resolve) => setTimeout(resolve, 500));
        const seen = (await ok(firm.api.GET('/imports/{id}', { params: { path: { id: r.body.data.id } } }))).data;
        return seen.status === 'succeeded' || seen.status === 'failed' ? seen : undefined;
      }, 25_000);
      expect(done).toMatchObject({ status: 'succeeded', counts: { transactions: 3, lines: 9 }, requested_by: { type: 'api_key' } });
      // Into the sandbox, not the live company.
      expect(await countRows('SELECT count(*)::int AS n FROM ledger_transactions WHERE company_id = $1', [company.companyId])).toBe(0);
      expect(await countRows('SELECT count(*)::int AS n FROM ledger_transactions WHERE company_id = $1', [firm.companyId])).toBe(3);
    } finally {
      await worker.stop({ graceful: true, timeout: 10_000 });
    }
  }, 40_000);
});

/** The line (from 1) of the first `then` after the first `first` in `xml`. */
const lineOf = (xml: string, first: string, then: string) => xml.slice(0, xml.indexOf(then, xml.indexOf(first))).split('\n').length;

describe('VAT codes of the file', () => {
  it("keeps a line's TaxCode that is a VAT code of the company: the VAT return of the imported period shows the imported VAT", async () => {
    const firm = await freshFirm('Moms Skifter ApS');
    // The sale (1000, credit 1800.00) an EU sale of goods (rubrik B), the rent (2750, debit 4000.00) with købsmoms;
    // the payment from the bank (58100) carries the other system's own code U25, which is not one of the company's.
    const rent = '<Description>Husleje januar</Description>';
    const bank = '<Description>Betalt fra bank</Description>';
    const tax = (code: string) =>
      `<TaxInformation><TaxType>VAT</TaxType><TaxCode>${code}</TaxCode><TaxAmount><Amount>0.00</Amount><CurrencyCode>DKK</CurrencyCode>` +
      '<CurrencyAmount>0.00</CurrencyAmount><ExchangeRate>1</ExchangeRate></TaxAmount></TaxInformation>';
    const xml = FIXTURE.replace(/(<TaxInformation>\s*<TaxType>VAT<\/TaxType>\s*<TaxCode>)U25/, '$1SEUV')
      .replace(new RegExp(`(${rent}[\\s\\S]*?</DebitAmount>)`), `$1${tax('K25')}`)
      .replace(new RegExp(`(${bank}[\\s\\S]*?</CreditAmount>)`), `$1${tax('U25')}`);
    expect(xml).toContain(tax('K25'));
    expect(xml).toContain(tax('U25'));
    const done = await imported(firm, xml);
    expect(done).toMatchObject({ status: 'succeeded', problem: null, counts: { transactions: 3, lines: 9 } });
    const vat = (await ok(firm.api.GET('/vat-returns', { params: { query: { period: '2026-Q1' } } }))).data;
    expect(vat.exact_fields).toMatchObject({ box_b_goods_reported: 1800, output_vat: 450, input_vat: 1000, box_a_goods: 0 });
    // The lines behind rubrik B: the imported sale.
    const boxB = (await ok(firm.api.GET('/vat-returns/{period}/lines', { params: { path: { period: '2026-Q1' }, query: { field: 'box_b_goods_reported' } } })))
      .data;
    expect(boxB.map((l) => [l.source, l.amount])).toEqual([['import', 1800]]);
    const list = (await ok(firm.api.GET('/transactions', { params: { query: { per_page: 10, sort: 'date', order: 'asc' } } }))).data;
    const codes = await Promise.all(
      list.map(async (x) => (await ok(firm.api.GET('/transactions/{id}', { params: { path: { id: x.id } } }))).data.lines.map((l) => l.vat_code)),
    );
    expect(codes).toEqual([
      ['', '', ''],
      ['', 'SEUV', ''],
      ['K25', '', ''],
    ]);
  });
});

describe('malformed files are refused by name, with nothing written', () => {
  const cases: [string, string, { code: string; field: string; line?: number; detail: RegExp }][] = [
    // The safe-XML policy reads the file before libxml2 does: its words, the same as every XML reader's.
    [
      'not XML',
      'this is not a SAF-T file',
      { code: 'saft_file_invalid', field: 'body', detail: /^The file is not XML this service reads: line 1, column \d+: it is not well-formed XML/ },
    ],
    [
      'a DOCTYPE with an internal entity',
      FIXTURE.replace('<AuditFile', '<!DOCTYPE AuditFile [<!ENTITY name "Jensen">]>\n<AuditFile').replace('<Name>', '<Name>&name;'),
      {
        code: 'saft_file_invalid',
        field: 'body',
        line: FIXTURE.split('\n').findIndex((l) => l.startsWith('<AuditFile')) + 1,
        detail: /line \d+, column \d+: it declares a document type \(DOCTYPE or ENTITY\), which is refused/,
      },
    ],
    [
      'an external DTD',
      FIXTURE.replace('<AuditFile', '<!DOCTYPE AuditFile SYSTEM "http://127.0.0.1:9/saft.dtd">\n<AuditFile'),
      { code: 'saft_file_invalid', field: 'body', detail: /declares a document type/ },
    ],
    [
      'invalid against the XSD',
      FIXTURE.replace('<TransactionDate>2026-01-15</TransactionDate>', '<TransactionDate>15-01-2026</TransactionDate>'),
      {
        code: 'saft_file_invalid',
        field: 'TransactionDate',
        line: FIXTURE.split('\n').findIndex((l) => l.includes('2026-01-15</TransactionDate>')) + 1,
        detail: /TransactionDate/,
      },
    ],
    [
      'an unbalanced transaction',
      FIXTURE.replace('<Amount>5000.00</Amount>', '<Amount>4999.00</Amount>'),
      { code: 'saft_file_invalid', field: 'Transaction', detail: /transaction 1002 does not balance/ },
    ],
    [
      // 301.61 EUR × 7.5 = 2262.08 DKK, not the 2250.00 the line says.
      'a foreign-currency line whose DKK amount is not amount × rate',
      FIXTURE.replace('<CurrencyAmount>300.00</CurrencyAmount>', '<CurrencyAmount>301.61</CurrencyAmount>'),
      {
        code: 'saft_file_invalid',
        field: 'DebitAmount/Amount',
        line: lineOf(FIXTURE, '<TransactionID>1001</TransactionID>', '<Line>'),
        detail: /transaction 1001: .*301\.61 EUR × 7\.5 = 2262\.08 DKK, not 2250\.00/,
      },
    ],
    [
      'an unknown account',
      FIXTURE.replace(
        '<AccountID>2750</AccountID>\n          <Description>Husleje januar',
        '<AccountID>9999</AccountID>\n          <Description>Husleje januar',
      ),
      { code: 'saft_file_invalid', field: 'AccountID', detail: /account "9999" is not in GeneralLedgerAccounts/ },
    ],
  ];
  for (const [name, xml, problem] of cases) {
    it(name, async () => {
      const firm = await freshFirm(`Fejl ${name}`);
      const before = await rowsOf(firm.companyId);
      const done = await imported(firm, xml);
      expect(done.status).toBe('failed');
      expect(done.problem).toMatchObject({ code: problem.code, field: problem.field, ...(problem.line ? { line: problem.line } : {}) });
      expect(done.problem!.detail).toMatch(problem.detail);
      expect(await rowsOf(firm.companyId)).toEqual(before);
      expect(
        await countRows('SELECT count(*)::int AS n FROM import_file_chunks c JOIN imports i ON i.id = c.import_id WHERE i.company_id = $1', [firm.companyId]),
      ).toBe(0);
    });
  }

  it('refuses another Content-Type (415) and an empty body (400) at once', async () => {
    const firm = await freshFirm('Forkert type ApS');
    expect((await send(firm, '{}', { 'Content-Type': 'application/json' })).status).toBe(415);
    const empty = await send(firm, '');
    expect([empty.status, (empty.body as unknown as { code: string }).code]).toEqual([400, 'saft_file_invalid']);
  });
});
