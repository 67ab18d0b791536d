// GET /exports/saft through HTTP: a small ledger posted through the API is exported, validated against
// the Danish SAF-T XSD (libxml2 as WebAssembly) and read back; period filtering and opening balances,
// refusals, headers, a client that disconnects mid-stream, and an export of thousands of transactions.
import { Writable } from 'node:stream';
import type { OpenAPIObject } from 'trpc-to-openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { Decimal, exportSaft, postBatch, SinkClosedError, today as businessDay, type Posting, type PostingLine } from '@tlr/domain';
import { createDatabase, type Db } from '@tlr/db';
import type { paths } from '../../../test/generated/api.ts';
import { api, bodyOf, client, databaseUrl, idem, newCompany, newKey, ok, testDb, useCompany, type Api, type Schemas } from './helpers.ts';
import { validateSaft as validate } from './saft-schema.ts';

const CVR = '31415926';
const today = businessDay();
const year = Number(today.slice(0, 4));
const d = (mmdd: string, y = year) => `${y}-${mmdd}`;

const t = useCompany({ name: 'Nordisk Tømrer & Søn ApS', cvr: CVR });

/** A new company's key of `scopes` (every scope by default) and its clients. */
const firmWithKey = async (name: string, cvr?: string, scopes?: Parameters<typeof newKey>[2]) => newKey(t.svc.url, await newCompany(name, cvr), scopes);

/** The SAF-T file of a period, answered with 200: its XML, and the response for the headers. */
async function exported(c: Api, query: { from?: string; to?: string } = {}, init: { headers?: Record<string, string> } = {}) {
  const r = await c.GET('/exports/saft', { params: { query }, parseAs: 'text', ...init });
  return { xml: bodyOf(200, r), response: r.response };
}

/** The inner XML of every <name> element (not nested in itself). */
const blocks = (xml: string, name: string) => [...xml.matchAll(new RegExp(`<${name}>([\\s\\S]*?)</${name}>`, 'g'))].map((m) => m[1]!);
const value = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
const account = (xml: string, number: string) => blocks(xml, 'Account').find((a) => value(a, 'AccountID') === number)!;

type Line = paths['/transactions']['post']['requestBody']['content']['application/json']['lines'][number];
type LineExtra = Pick<Line, 'vat_code' | 'description'>;
const dr = (account_number: string, debit: number | string, extra: LineExtra = {}): Line => ({ account_number, debit, ...extra });
const cr = (account_number: string, credit: number | string, extra: LineExtra = {}): Line => ({ account_number, credit, ...extra });

describe('a small ledger', () => {
  const posted: Schemas['Transaction'][] = [];
  let reversal: Schemas['Transaction'];
  let xml: string;

  beforeAll(async () => {
    const long = 'Aarhus Bageri & Konditori <Østergade> ' + 'x'.repeat(100);
    const customer = (body: { name: string } & Record<string, string>) => t.api.POST('/customers', { params: idem(), body });
    bodyOf(
      201,
      await customer({
        name: long,
        cvr: '12345674',
        email: 'info@bageri.dk',
        phone: '+45 86 12 34 56',
        contact_person: 'Åse Ørum',
        address_line1: 'Østergade 1',
        postal_code: '8000',
        city: 'Aarhus C',
      }),
    );
    bodyOf(201, await customer({ name: 'Privatkunde' }));
    const gone = bodyOf(201, await customer({ name: 'Slettet kunde' })).data;
    bodyOf(200, await t.api.DELETE('/customers/{id}', { params: { path: { id: gone.id } } }));
    const supplier = (body: { name: string } & Record<string, string>) => t.api.POST('/suppliers', { params: idem(), body });
    bodyOf(201, await supplier({ name: 'Byggemarked A/S', cvr: '87654338', iban: 'DK5000400440116243', city: 'Odense' }));
    bodyOf(201, await supplier({ name: 'Tømmerhandel', bank_reg_number: '1234', bank_account_number: '0012345674' }));

    const post = async (date: string, description: string, lines: Line[]) => {
      const r = bodyOf(201, await t.api.POST('/transactions', { params: idem(), body: { date, description, lines } })).data;
      posted.push(r);
      return r;
    };
    await post(d('01-15'), 'Kontantsalg januar', [dr('6470', '1250.00'), cr('1010', 1000), cr('7680', 250, { vat_code: 'S25', description: 'Salgsmoms' })]);
    await post(d('02-10'), 'Husleje februar', [dr('2030', '8000.00'), dr('7740', 2000, { vat_code: 'K25' }), cr('6470', '10000.00')]);
    const wrong = await post(d('03-05'), 'Fejlpostering <rettes> & "tilbageføres"\u0001', [dr('2030', '99.99'), cr('6470', '99.99')]);
    await post(d('03-20'), 'Indskud', [dr('6470', '50000.50'), cr('6510', '50000.50')]);
    const rev = await t.api.POST('/transactions/{id}/reverse', { params: { path: { id: wrong.id }, ...idem() }, body: { date: d('03-21') } });
    reversal = bodyOf(201, rev).data;
    posted.push(reversal);
    xml = (await exported(t.api)).xml;
  });

  it('is valid against the Danish SAF-T schema (and the validator is not vacuous)', async () => {
    expect(await validate(xml)).toEqual({ valid: true, errors: [] });
    // Customer ID after Name is refused, as the schema orders it first.
    const broken = xml.replace(
      /<Customer><CustomerID>([^<]*)<\/CustomerID>(<CVR>[^<]*<\/CVR>)?<Name>([^<]*)<\/Name>/,
      '<Customer><Name>$3</Name><CustomerID>$1</CustomerID>',
    );
    expect(broken).not.toBe(xml);
    expect((await validate(broken)).valid).toBe(false);
  });

  it('has the header, the standard chart and every account with its type', () => {
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<AuditFile xmlns="urn:StandardAuditFile-Taxation-Financial:DK">')).toBe(true);
    const header = blocks(xml, 'Header')[0]!;
    expect(value(header, 'AuditFileCountry')).toBe('DK');
    expect(value(header, 'SoftwareCompanyName')).toBe('tlr');
    expect(value(header, 'CVR')).toBe(CVR);
    expect(value(header, 'Name')).toBe('Nordisk Tømrer &amp; Søn ApS');
    expect(value(header, 'DefaultCurrencyCode')).toBe('DKK');
    expect(value(header, 'SelectionStartDate')).toBe(d('01-01'));
    expect(value(header, 'SelectionEndDate')).toBe(d('12-31'));
    expect(xml).toContain(
      '<GeneralLedgerAccounts><NameOfStandardAccount>Standardkontoplanen</NameOfStandardAccount><VersionOfStandardAccount>20230131</VersionOfStandardAccount><Account>',
    );
    expect(blocks(xml, 'Account')).toHaveLength(305);
    expect(account(xml, '1010')).toContain('<StandardAccountID>1010</StandardAccountID><AccountType>Sale</AccountType>');
    expect(value(account(xml, '2030'), 'AccountType')).toBe('Expense');
    expect(value(account(xml, '6470'), 'AccountType')).toBe('Asset');
    expect(value(account(xml, '6510'), 'AccountType')).toBe('Liability');
    expect(value(account(xml, '7680'), 'AccountType')).toBe('Liability');
    expect(account(xml, '6470')).not.toContain('StandardAccountID');
  });

  it('carries customers and suppliers, ID first, cut to the schema lengths', () => {
    const customers = blocks(xml, 'Customer');
    expect(customers).toHaveLength(3); // the deleted one existed in the period
    const bakery = customers.find((x) => x.includes('12345674'))!;
    expect(bakery).toMatch(/^<CustomerID>[0-9a-f]{32}<\/CustomerID><CVR>12345674<\/CVR><Name>/);
    const name = value(bakery, 'Name')!.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>');
    expect([...name]).toHaveLength(70);
    expect(name.startsWith('Aarhus Bageri & Konditori <Østergade> xxx')).toBe(true);
    expect(bakery).toContain('<Address><StreetName>Østergade 1</StreetName><City>Aarhus C</City><PostalCode>8000</PostalCode><Country>DK</Country></Address>');
    expect(bakery).toContain(
      '<Contact><ContactPerson><FirstName>NotUsed</FirstName><LastName>Åse Ørum</LastName></ContactPerson><Telephone>+4586123456</Telephone><Email>info@bageri.dk</Email></Contact>',
    );
    const suppliers = blocks(xml, 'Supplier');
    expect(suppliers).toHaveLength(2);
    expect(suppliers.join()).toContain('<BankAccount><IBANNumber>DK5000400440116243</IBANNumber></BankAccount>');
    expect(suppliers.join()).toContain('<BankAccount><BankAccountNumber>0012345674</BankAccountNumber><SortCode>1234</SortCode></BankAccount>');
    const tax = blocks(xml, 'TaxTableEntry')[0]!;
    expect(tax.startsWith('<TaxType>VAT</TaxType><Description>VAT</Description><TaxCodeDetails><TaxCode>')).toBe(true);
    expect(
      blocks(tax, 'TaxCodeDetails')
        .map((x) => value(x, 'TaxCode'))
        .sort(),
    ).toEqual(['EUV', 'EUY', 'IMPV', 'K0', 'K25', 'KDELVIS', 'KOMV', 'KREP', 'S0', 'S25', 'SEUT', 'SEUV', 'SEUVI', 'SEUY', 'SEXP', 'SMF', 'SOMV', 'UY']);
    expect(tax).toContain('<TaxCode>S25</TaxCode><EffectiveDate>');
  });

  it('has every transaction of the period in SystemID order with totals that match the postings', () => {
    const entries = blocks(xml, 'GeneralLedgerEntries')[0]!;
    expect(value(entries, 'NumberOfEntries')).toBe(String(posted.length));
    const total = posted.reduce((sum, tx) => sum + Math.round(tx.total_debit * 100), 0);
    expect(value(entries, 'TotalDebit')).toBe((total / 100).toFixed(2));
    expect(value(entries, 'TotalCredit')).toBe((total / 100).toFixed(2));
    const transactions = blocks(xml, 'Transaction');
    expect(transactions.map((x) => Number(value(x, 'SystemID')))).toEqual(posted.map((tx) => tx.system_id).sort((a, b) => a - b));
    for (const tx of posted) {
      const x = transactions.find((b) => value(b, 'SystemID') === String(tx.system_id))!;
      expect(value(x, 'TransactionID')).toBe(String(tx.document_number));
      expect(value(x, 'TransactionDate')).toBe(tx.date);
      expect(value(x, 'Period')).toBe(String(Number(tx.date.slice(5, 7))));
      expect(value(x, 'PeriodYear')).toBe(String(year));
      const lines = blocks(x, 'Line');
      expect(lines).toHaveLength(tx.lines.length);
      tx.lines.forEach((l, i) => {
        expect(value(lines[i]!, 'RecordID')).toBe(String(l.line_number));
        expect(value(lines[i]!, 'AccountID')).toBe(l.account_number);
        const side = l.debit > 0 ? 'DebitAmount' : 'CreditAmount';
        expect(lines[i]).toContain(
          `<${side}><Amount>${(l.debit || l.credit).toFixed(2)}</Amount><CurrencyCode>DKK</CurrencyCode><CurrencyAmount>${(l.debit || l.credit).toFixed(2)}</CurrencyAmount><ExchangeRate>1</ExchangeRate></${side}>`,
        );
      });
    }
    // The reversal mirrors the wrong posting; the control character is gone, markup is escaped.
    const rev = transactions.find((b) => value(b, 'SystemID') === String(reversal.system_id))!;
    expect(value(rev, 'TransactionType')).toBe('reversal');
    expect(blocks(rev, 'Line')[0]).toContain('<CreditAmount><Amount>99.99</Amount>');
    expect(xml).toContain('<Description>Fejlpostering &lt;rettes&gt; &amp; "tilbageføres"</Description>');
    expect(
      value(
        blocks(
          transactions.find((b) => b.includes('Kontantsalg'))!,
          'Line',
        )[2]!,
        'Description',
      ),
    ).toBe('Salgsmoms');
    expect(
      value(
        blocks(
          transactions.find((b) => b.includes('Kontantsalg'))!,
          'Line',
        )[0]!,
        'Description',
      ),
    ).toBe('Kontantsalg januar');
  });

  it('computes opening and closing balances for a period inside the year', async () => {
    const r = await exported(t.api, { from: d('02-01'), to: d('03-20') });
    expect((await validate(r.xml)).valid).toBe(true);
    // January (the sale) is before the period; the reversal of 03-21 is after it.
    const ids = blocks(r.xml, 'Transaction').map((x) => value(x, 'TransactionDate'));
    expect(ids).toEqual([d('02-10'), d('03-05'), d('03-20')]);
    expect(value(r.xml, 'NumberOfEntries')).toBe('3');
    expect(value(r.xml, 'TotalDebit')).toBe('60100.49');
    // Bank: 1250.00 in, then -10000.00 - 99.99 + 50000.50 in the period.
    expect(account(r.xml, '6470')).toContain('<OpeningDebitBalance>1250.00</OpeningDebitBalance><ClosingDebitBalance>41150.51</ClosingDebitBalance>');
    // Revenue carries its January balance (same fiscal year) into the opening; equity is a credit.
    expect(account(r.xml, '1010')).toContain('<OpeningCreditBalance>1000.00</OpeningCreditBalance><ClosingCreditBalance>1000.00</ClosingCreditBalance>');
    expect(account(r.xml, '6510')).toContain('<OpeningDebitBalance>0.00</OpeningDebitBalance><ClosingCreditBalance>50000.50</ClosingCreditBalance>');
    expect(account(r.xml, '2030')).toContain('<OpeningDebitBalance>0.00</OpeningDebitBalance><ClosingDebitBalance>8099.99</ClosingDebitBalance>');
    expect(r.response.headers.get('content-disposition')).toBe(`attachment; filename="saft-${CVR}-${d('02-01')}-${d('03-20')}.xml"`);
  });

  it('starts revenue and expense accounts at zero in the next fiscal year, balance sheet accounts carry over', async () => {
    const next = await t.api.POST('/transactions', {
      params: idem(),
      body: { date: d('01-10', year + 1), description: 'Salg næste år', lines: [dr('6470', 500), cr('1010', 500)] },
    });
    bodyOf(201, next);
    const r = await exported(t.api, { from: d('01-01', year + 1) });
    expect(value(r.xml, 'SelectionEndDate')).toBe(d('12-31', year + 1));
    expect((await validate(r.xml)).valid).toBe(true);
    expect(value(r.xml, 'NumberOfEntries')).toBe('1');
    expect(account(r.xml, '1010')).toContain('<OpeningDebitBalance>0.00</OpeningDebitBalance><ClosingCreditBalance>500.00</ClosingCreditBalance>');
    // Bank: this year's 41250.50 (the reversal included), then 500.00.
    expect(account(r.xml, '6470')).toContain('<OpeningDebitBalance>41250.50</OpeningDebitBalance><ClosingDebitBalance>41750.50</ClosingDebitBalance>');
  });

  it('answers an empty period with a valid file without transactions', async () => {
    const r = await exported(t.api, { from: '2001-01-01', to: '2001-12-31' });
    expect((await validate(r.xml)).valid).toBe(true);
    expect(r.xml).toContain('<NumberOfEntries>0</NumberOfEntries><TotalDebit>0.00</TotalDebit><TotalCredit>0.00</TotalCredit>');
    expect(blocks(r.xml, 'Transaction')).toHaveLength(0);
    expect(blocks(r.xml, 'Customer')).toHaveLength(0); // none existed in 2001
  });
});

describe('with invoices', () => {
  it('stays valid with invoice, payment and credit note postings, each a transaction under its document number', async () => {
    const { api: fc } = await firmWithKey('Fakturerende ApS', '12345704');
    const customer = (await ok(fc.POST('/customers', { params: idem(), body: { name: 'Kunde & Co <A/S>', cvr: '12345674' } }))).data.id;
    const lines = [
      { description: 'Ydelse', quantity: 3, unit_price: 19.96 },
      { description: 'Momsfrit', quantity: 1.5, unit_price: 10.1, vat_rate: 0 },
    ];
    const mk = async () =>
      (await ok(fc.POST('/invoices', { params: idem(), body: { customer_id: customer, issue_date: today, due_date: today, lines, auto_approve: true } }))).data;
    const [paid, partly, cancelled] = [await mk(), await mk(), await mk()];
    const invoice = (id: string) => ({ params: { path: { id } } });
    bodyOf(200, await fc.PUT('/invoices/{id}/status', { ...invoice(paid.id), body: { status: 'paid' } }));
    bodyOf(201, await fc.POST('/invoices/{id}/payments', { params: { path: { id: partly.id }, ...idem() }, body: { amount: 40 } }));
    const note = (await ok(fc.PUT('/invoices/{id}/status', { ...invoice(cancelled.id), body: { status: 'cancelled' } }))).data.credit_note;
    const r = await exported(fc, { from: today, to: today });
    expect(await validate(r.xml)).toEqual({ valid: true, errors: [] });
    const transactions = blocks(r.xml, 'Transaction');
    expect(transactions.map((x) => value(x, 'TransactionType'))).toEqual(['invoice', 'invoice', 'invoice', 'payment', 'payment', 'credit_note']);
    const byType = (type: string) => transactions.filter((x) => value(x, 'TransactionType') === type);
    expect(byType('invoice').map((x) => value(x, 'TransactionID'))).toEqual([paid, partly, cancelled].map((i) => i.invoice_number));
    expect(value(byType('credit_note')[0]!, 'TransactionID')).toBe(note?.credit_note_number);
    // SourceDocuments/SalesInvoices: the three invoices and the credit note, in number order, each
    // pointing at its posting; lines with their revenue account, quantity, unit price and side.
    const sales = blocks(r.xml, 'SalesInvoices')[0]!;
    expect(sales).toMatch(/^<NumberOfEntries>4<\/NumberOfEntries><TotalDebit>75.03<\/TotalDebit><TotalCredit>225.09<\/TotalCredit>/);
    const documents = blocks(sales, 'Invoice');
    expect(documents.map((i) => [value(i, 'InvoiceNo'), value(i, 'InvoiceType'), value(i, 'TransactionID')])).toEqual([
      [paid.invoice_number, 'Faktura', paid.invoice_number],
      [partly.invoice_number, 'Faktura', partly.invoice_number],
      [cancelled.invoice_number, 'Faktura', cancelled.invoice_number],
      [note?.credit_note_number, 'Kredit', note?.credit_note_number],
    ]);
    expect(value(documents[0]!, 'SystemID')).toBe(String(paid.posted_system_id));
    expect(value(documents[0]!, 'CustomerID')).toBe(customer.replace(/-/g, ''));
    const [first, second] = blocks(documents[0]!, 'Line');
    expect([
      value(first!, 'AccountID'),
      value(first!, 'Quantity'),
      value(first!, 'UnitPrice'),
      value(first!, 'DebitCreditIndicator'),
      value(first!, 'Amount'),
    ]).toEqual(['1010', '3.0000', '19.96', 'C', '59.88']);
    expect(value(second!, 'Amount')).toBe('15.15');
    expect(blocks(documents[0]!, 'TaxInformationTotals').map((x) => [value(x, 'TaxCode'), value(x, 'TaxBase'), value(x, 'Amount')])).toEqual([
      ['S25', '59.88', '14.97'],
      ['S0', '15.15', '0.00'],
    ]);
    expect([value(documents[0]!, 'NetTotal'), value(documents[0]!, 'GrossTotal')]).toEqual(['75.03', '90.00']);
    expect(value(documents[3]!, 'DebitCreditIndicator')).toBe('D');
    expect(value(documents[3]!, 'Reference')).toBe(cancelled.invoice_number);
  });

  it('names the voucher of a documented posting on each of its lines (SourceDocumentID), and stays valid', async () => {
    const { api: fc } = await firmWithKey('Bilagsført ApS', '31415926');
    const upload = async (filename: string) =>
      (await ok(fc.POST('/vouchers', { params: idem(), body: { filename, content_base64: Buffer.from(`bilag ${filename}`).toString('base64') } }))).data.id;
    const [forPosting, forExpense] = [await upload('husleje.pdf'), await upload('papir.pdf')];
    const lines = [dr('2030', 100), cr('6470', 100)];
    const posting = (body: { description: string; voucher_id?: string }) => fc.POST('/transactions', { params: idem(), body: { date: today, lines, ...body } });
    bodyOf(201, await posting({ description: 'Uden bilag' }));
    bodyOf(201, await posting({ description: 'Med bilag', voucher_id: forPosting }));
    const supplier = (await ok(fc.POST('/suppliers', { params: idem(), body: { name: 'Papirgrossisten A/S' } }))).data.id;
    const expense = await fc.POST('/expenses', {
      params: idem(),
      body: {
        supplier_id: supplier,
        voucher_id: forExpense,
        date: today,
        description: 'Papir',
        amount: 125,
        vat_amount: 25,
        book: true,
      },
    });
    bodyOf(201, expense);
    const r = await exported(fc, { from: today, to: today });
    expect(await validate(r.xml)).toEqual({ valid: true, errors: [] });
    const sources = blocks(r.xml, 'Transaction').map((x) => [
      value(x, 'Description'),
      [...new Set(blocks(x, 'Line').map((l) => value(l, 'SourceDocumentID')))],
    ]);
    expect(sources).toEqual([
      ['Uden bilag', [undefined]],
      ['Med bilag', [forPosting.replace(/-/g, '')]],
      [expect.any(String), [forExpense.replace(/-/g, '')]],
    ]);
  });

  it('leaves SourceDocuments out of a period without invoices', async () => {
    const r = await exported(t.api);
    expect(r.xml).not.toContain('<SourceDocuments>');
  });
});

describe('the HTTP surface', () => {
  it('streams application/xml as a named attachment with the usual headers', async () => {
    const { xml, response: res } = await exported(t.api, {}, { headers: { 'X-Request-ID': 'saft-headers-1' } });
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="saft-${CVR}-${d('01-01')}-${d('12-31')}.xml"`);
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(res.headers.get('content-length')).toBeNull();
    expect(res.headers.get('x-request-id')).toBe('saft-headers-1');
    expect(res.headers.get('x-api-version')).toBe('2026-04-10');
    for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(res.headers.get(h), h).toMatch(/^\d+$/);
    expect(xml.endsWith('</AuditFile>\n')).toBe(true);
  });

  it('names the company id when the company has no CVR, and still validates', async () => {
    const other = await firmWithKey('Uden CVR ApS', undefined, ['exports:read']);
    const r = await exported(other.api);
    expect(r.response.headers.get('content-disposition')).toBe(`attachment; filename="saft-${other.companyId}-${d('01-01')}-${d('12-31')}.xml"`);
    expect(r.xml).toContain('<Company><RegistrationNumber/><Name>Uden CVR ApS</Name>');
    expect(await validate(r.xml)).toEqual({ valid: true, errors: [] });
  });

  it("carries a CVR set after the company was created (PUT /settings/company) as the header company's registration", async () => {
    const { api: late } = await firmWithKey('Sen CVR ApS');
    bodyOf(200, await late.PUT('/settings/company', { body: { cvr: '12345690' } }));
    const r = await exported(late);
    expect(r.response.headers.get('content-disposition')).toBe(`attachment; filename="saft-12345690-${d('01-01')}-${d('12-31')}.xml"`);
    // The schema's choice for a number of the Danish CVR register is the CVR element (RegistrationNumber is for others).
    expect(r.xml).toContain('<Company><CVR>12345690</CVR><Name>Sen CVR ApS</Name>');
    expect(r.xml).toContain('<TaxRegistration><TaxRegistrationNumber>12345690</TaxRegistrationNumber><TaxType>VAT</TaxType>');
    expect(await validate(r.xml)).toEqual({ valid: true, errors: [] });
  });

  it('needs exports:read (403 problem), a credential (401), and GET (405)', async () => {
    const noScope = await (await t.newKey(['transactions:read', 'reports:read'])).api.GET('/exports/saft');
    expect(noScope.response.status).toBe(403);
    expect(noScope.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(noScope.error).toMatchObject({ status: 403, code: 'forbidden', type: 'https://tlr.dk/problems/forbidden' });
    expect(noScope.error?.detail).toContain('exports:read');
    expect(noScope.response.headers.get('x-ratelimit-limit')).toBeTruthy();
    expect((await api(t.svc.url).GET('/exports/saft')).response.status).toBe(401);
    // A method the document does not have: the untyped client.
    const post = await t.raw.call('POST', '/exports/saft');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, OPTIONS');
  });

  it.each([
    ['from after to', `?from=${d('05-01')}&to=${d('04-30')}`, 'from'],
    ['a malformed from', '?from=2026-13-01', 'from'],
    ['a malformed to', '?to=yesterday', 'to'],
    ['an unknown parameter', '?from=2026-01-01&format=json', 'format'],
    ['a repeated parameter', '?to=2026-01-01&to=2026-02-01', 'to'],
    ['a year SAF-T cannot express', '?from=1900-01-01', 'from'],
  ])('refuses %s with 400 naming the parameter', async (_what, query, field) => {
    // Malformed on purpose (an unknown or repeated parameter among them): the untyped client.
    const r = await t.raw.get(`/exports/saft${query}`);
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.body).toMatchObject({ status: 400, code: 'invalid_request', field });
  });

  it('is listed in the discovery document and the OpenAPI document', async () => {
    const discovery = (await ok(api(t.svc.url).GET('/'))).data;
    expect(discovery.endpoints).toContainEqual({ method: 'GET', path: '/exports/saft', summary: expect.any(String), scopes: ['exports:read'] });
    const doc = (await client(t.svc.url).get<OpenAPIObject>('/openapi.json')).body;
    const op = doc.paths?.['/exports/saft']?.get;
    expect(op?.parameters?.map((p) => ('name' in p ? p.name : p.$ref))).toEqual(['from', 'to', '#/components/parameters/X-Request-ID']);
    expect(op?.responses?.['200'].content['application/xml'].schema.type).toBe('string');
    expect(op?.security).toEqual([{ ApiKeyAuth: [] }, { OAuth2: ['exports:read'] }]);
    expect(op?.['x-required-scopes']).toEqual(['exports:read']);
    expect(Object.keys(op?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '401', '403', '429', '500']));
  });
});

/**
 * Posts `count` transactions of 2 or 3 lines through the journal writer's batch (postBatch), in one
 * transaction: set-based, one statement per few thousand lines. Posting them one by one through
 * postTransaction in an interactive Prisma transaction took about 19 ms each here, too slow for a test of this size.
 */
async function seedLedger(companyId: string, count: number) {
  // Seeding thousands of lines can outlast the service's bounds on a statement (server and client side)
  // while the rest of the suite keeps both cores busy: those bounds are the service's, not this fixture's.
  const seeder = createDatabase(databaseUrl(), 1, { statementMs: 120_000, transactionMs: 180_000 });
  try {
    const chart = await seeder.prisma.account.findMany({ where: { company_id: companyId, account_number: { in: ['1010', '2030', '6470', '7740'] } } });
    const accounts = new Map(chart.map((a) => [a.account_number, a]));
    const line = (number: string, debit: Decimal, credit: Decimal, description = '', vatCode = ''): PostingLine => {
      const a = accounts.get(number)!;
      return { accountId: a.id, account: a, debit, credit, description, vatCode };
    };
    const zero = new Decimal(0);
    const vat = new Decimal('1.25');
    const pad = (n: number) => String(n).padStart(2, '0');
    // i % 3 = 0: a sale (bank / revenue); otherwise rent with input VAT paid from the bank.
    const postings = Array.from({ length: count }, (_, k): Posting => {
      const i = k + 1;
      const amount = new Decimal(100 + (i % 900)).plus(new Decimal(i % 100).div(100));
      return {
        date: `${year}-${pad(1 + (i % 12))}-${pad(1 + (i % 28))}`,
        description: `Bilag ${i}`,
        source: 'manual',
        lines:
          i % 3 === 0
            ? [line('6470', amount, zero), line('1010', zero, amount, 'Salg & <moms>')]
            : [line('2030', amount, zero), line('7740', vat, zero, 'Købsmoms', 'K25'), line('6470', zero, amount.plus(vat))],
      };
    });
    await seeder.prisma.$transaction((tx) => postBatch(tx as Db, { companyId, livemode: true }, postings, { events: false }), { timeout: 180_000 });
  } finally {
    await seeder.close();
  }
}

describe('a ledger of thousands of transactions', () => {
  const count = 10_000;
  let big: Awaited<ReturnType<typeof newCompany>>;
  let seeded = 0;
  /** A new key of the big ledger's company that may export. */
  const exportKey = async () => (await big.key(['exports:read'])).key;
  /** The export of the whole year as a stream, as a client saving the file reads it. */
  const streamed = (key: string, signal?: AbortSignal) => api(t.svc.url, key).GET('/exports/saft', { parseAs: 'stream', ...(signal ? { signal } : {}) });
  /** An export started and left unread after its first chunk (the server waits on backpressure); `hangUp` disconnects. */
  async function startedExport(key: string) {
    const controller = new AbortController();
    const reader = bodyOf(200, await streamed(key, controller.signal))?.getReader();
    expect(reader).toBeDefined();
    await reader?.read();
    return {
      async hangUp() {
        controller.abort();
        await reader?.read().catch(() => undefined);
      },
    };
  }
  beforeAll(async () => {
    big = await newCompany('Stor Ledger ApS', '87654362');
    const t0 = Date.now();
    await seedLedger(big.companyId, count);
    seeded = Date.now() - t0;
  });

  it('streams with flat memory and validates', async () => {
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const t1 = Date.now();
    const body = bodyOf(200, await streamed(await exportKey()));
    // Read the body chunk by chunk, as a client saving the file would.
    const chunks: Buffer[] = [];
    let n = 0;
    for await (const chunk of body ?? []) {
      chunks.push(Buffer.from(chunk));
      n++;
    }
    const elapsed = Date.now() - t1;
    clearInterval(sampler);
    const xml = Buffer.concat(chunks).toString('utf8');
    const lines = (xml.match(/<Line>/g) ?? []).length;
    console.info(
      `SAF-T export: ${count} transactions, ${lines} lines, ${(xml.length / 1e6).toFixed(1)} MB in ${n} chunks, ${elapsed} ms ` +
        `(${Math.round(lines / (elapsed / 1000))} lines/s); seeding ${seeded} ms; RSS ${Math.round(baseline / 2 ** 20)} -> peak ${Math.round(peak / 2 ** 20)} MiB`,
    );
    expect(n).toBeGreaterThan(1);
    expect(value(xml, 'NumberOfEntries')).toBe(String(count));
    expect(lines).toBe(Math.floor(count / 3) * 2 + (count - Math.floor(count / 3)) * 3);
    const ids = blocks(xml, 'SystemID').map(Number);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(count);
    const t2 = Date.now();
    expect(await validate(xml)).toEqual({ valid: true, errors: [] });
    console.info(`XSD validation of ${(xml.length / 1e6).toFixed(1)} MB: ${Date.now() - t2} ms`);
  });

  it('writes the same file whatever the batch size, batches ending inside transactions included', async () => {
    // A transaction's own fields travel with its first line only: a batch that begins mid-transaction
    // must continue the open Transaction element, not start one without them.
    const written = async (lineBatch: number) => {
      const parts: string[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _enc, done) {
          parts.push(chunk.toString('utf8'));
          done();
        },
      });
      await exportSaft(testDb().pool, { companyId: big.companyId }, sink, { lineBatch, today: '2026-11-25' });
      return parts.join('');
    };
    const whole = await written(100_000);
    // Lines come in threes, threes and twos (8 per 3 transactions): 500 lines end inside one.
    const in500 = await written(500);
    expect((in500.match(/<Line>/g) ?? []).length).toBe(Math.floor(count / 3) * 2 + (count - Math.floor(count / 3)) * 3);
    expect(in500).toBe(whole);
    expect(in500).toContain('<Description>Salg &amp; &lt;moms&gt;</Description>');
  });

  it('stops reading and gives its connection back when the output closes mid-stream', async () => {
    const pool = testDb().pool;
    let received = 0;
    const sink = new Writable({
      highWaterMark: 16 * 1024,
      write(chunk: Buffer, _enc, done) {
        received += chunk.length;
        if (received > 100_000) this.destroy();
        else setImmediate(done);
      },
    });
    await expect(exportSaft(pool, { companyId: big.companyId }, sink, { lineBatch: 200 })).rejects.toBeInstanceOf(SinkClosedError);
    expect(received).toBeLessThan(1_000_000);
    expect(pool.totalCount - pool.idleCount).toBe(0);
  });

  it('gives up on an output that stops draining', async () => {
    const stalled = new Writable({ highWaterMark: 1024, write: () => {} });
    const started = Date.now();
    await expect(exportSaft(testDb().pool, { companyId: big.companyId }, stalled, { drainTimeoutMs: 200 })).rejects.toThrow(/did not drain within 200 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(testDb().pool.totalCount - testDb().pool.idleCount).toBe(0);
    stalled.destroy();
  });

  it('answers 503 with Retry-After beyond two exports in progress, and accepts again once one ends', async () => {
    const key = await exportKey();
    const opened = await Promise.all([startedExport(key), startedExport(key)]);
    const january = () => api(t.svc.url, key).GET('/exports/saft', { params: { query: { to: d('01-31') } }, parseAs: 'text' });
    const third = await january();
    expect(third.response.status).toBe(503);
    expect(third.error).toMatchObject({ code: 'service_unavailable' });
    expect(Number(third.response.headers.get('retry-after'))).toBeGreaterThan(0);
    for (const o of opened) await o.hangUp();
    // A hung-up export gives its place back once the server sees the closed socket, which waits for the
    // database read under way: 50 ms on a quiet machine, seconds while the suite holds both cores.
    let next = await january();
    for (let i = 0; i < 600 && next.response.status === 503; i++) {
      await new Promise((r) => setTimeout(r, 50));
      next = await january();
    }
    expect(next.response.status).toBe(200);
  });

  it('survives a client that disconnects mid-stream: the next export works', async () => {
    const key = await exportKey();
    await (await startedExport(key)).hangUp();
    const pool = t.svc.db.pool;
    for (let i = 0; i < 250 && pool.totalCount !== pool.idleCount; i++) await new Promise((r) => setTimeout(r, 20));
    expect(pool.totalCount - pool.idleCount).toBe(0);
    const again = await exported(api(t.svc.url, key), { to: d('01-31') });
    expect(again.xml.endsWith('</AuditFile>\n')).toBe(true);
  });
});
