// Receiving e-invoices through HTTP against PostgreSQL: every Peppol example and every example of the
// OIOUBL schematron package import as a supplier, a draft expense (with the document's lines and payment
// means) and vouchers; a broken copy of each is refused by its official rules; a document our own API made imports
// into the company it was sent to; what breaks the official rules, hostile XML, the same document twice
// and a key without the scopes are refused by name, with nothing stored.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import PDFDocument from 'pdfkit';
import { inTransaction } from '@tlr/db';
import { attemptEinvoice, claimEinvoice, einvoiceValidationPool, validateEinvoice, warmEinvoiceValidation, type OutgoingDocument } from '@tlr/domain';
import { countRows, created, idem, ok, testDb, useCompany, waitFor, type Api, type client } from './helpers.ts';

// Warm from the start (decision 634): the server loads the rules as it starts, as `npm start` does.
const t = useCompany({ name: 'E-faktura Modtager ApS', cvr: '12345674', env: { EINVOICE_WARM_AT_START: 'true' } });

beforeAll(async () => {
  // The server's warm-up (started with it, in this process): every worker has the rules before any
  // document, and /readyz says so (decision 633).
  await warmEinvoiceValidation();
  expect(einvoiceValidationPool.workers().length).toBeGreaterThan(0);
  await waitFor(async () => ((await (await fetch(`${t.svc.url}/readyz`)).json()) as { einvoice_rules?: string }).einvoice_rules === 'loaded', 600_000);
}, 900_000);

const EXAMPLES = join(import.meta.dirname, '../../../packages/domain/src/einvoice/examples');
const example = (name: string) => readFileSync(join(EXAMPLES, name), 'utf8');

type Raw = ReturnType<typeof client>;
const importXml = (raw: Raw, xml: string, headers: Record<string, string> = {}) =>
  raw.call<{ data: EinvoiceMessage } & Problem>('POST', '/einvoices/inbound', {
    raw: xml,
    headers: { 'Content-Type': 'application/xml', ...idem().header, ...headers },
  });
interface EinvoiceMessage {
  id: string;
  direction: string;
  status: string;
  expense_id: string;
  supplier_id: string;
  document_kind: string;
  document_format: string;
  document_number: string;
  currency: string;
  net_amount: number;
  vat_amount: number;
  total_amount: number;
  payable_amount: number;
  counterpart: { name: string; peppol_id: string };
  links: { xml: string; voucher: string; attachments: string[]; expense: string };
  lines: { description: string; account_number: string; account_source: string }[];
  last_response: unknown;
  payment_means: Record<string, unknown>[];
}
interface Problem {
  code: string;
  field?: string;
  detail: string;
  failures?: { id: string; text: string; location: string }[];
  message_id?: string;
  expense_id?: string;
  imported_at?: string;
}

const stored = (companyId: string) =>
  Promise.all(
    ['vouchers', 'suppliers', 'expenses', 'einvoice_messages'].map((table) =>
      countRows(`SELECT count(*)::int AS n FROM ${table} WHERE company_id = $1`, [companyId]),
    ),
  );

/**
 * The OIOUBL schematron package's own examples (../shared/reference/einvoice/oioubl/examples), as the
 * Danish Business Authority publishes them: [kind, net, VAT, total, lines, payment means code].
 */
const REPO = join(import.meta.dirname, '..', '..', '..');
const REFERENCE = [join(REPO, '..', 'shared', 'reference'), '/work/shared/reference'].find(existsSync) ?? join(REPO, '..', 'shared', 'reference');
const OIOUBL = join(REFERENCE, 'einvoice', 'oioubl', 'examples');
const oioubl = (name: string) => readFileSync(join(OIOUBL, name), 'utf8');
const OIOUBL_EXAMPLES: Record<string, [string, number, number, number, number, string[]]> = {
  'OIOUBL_Invoice_v2p2.xml': ['invoice', 5050, 1262.5, 6312.5, 2, ['42']],
  'OIOUBL_Invoice_UBLExtensions_v2p2.xml': ['invoice', 5050, 1262.5, 6312.5, 2, ['42']],
  'OIOUBL_CreditNote_v2p2.xml': ['credit_note', 5050, 1262.5, 6312.5, 2, []],
  'OIOUBL_InvoiceCerticate.xml': ['invoice', 363.16, 90.79, 453.95, 1, ['42']],
  'OIOUBL_CreditNoteCertificate.xml': ['credit_note', 363.16, 90.79, 453.95, 1, []],
};
/** The rule each broken copy (PayableAmount 1.00) breaks: the package's own ids for the total. */
const OIOUBL_PAYABLE_RULE: Record<string, string> = { invoice: 'F-INV133', credit_note: 'F-CRN079' };
/** CEN's CII examples and an XRechnung CII one (../shared/reference/einvoice/cii/examples): [currency, total, VAT, net, lines, VAT code]. */
const CII = join(REFERENCE, 'einvoice', 'cii', 'examples');
const cii = (name: string) => readFileSync(join(CII, name), 'utf8');
const CII_EXAMPLES: Record<string, [string, number, number, number, number, string]> = {
  // A Norwegian seller: 25 % and 15 % lines beside an exempt one, 365.28 of VAT in 1801.78 (more than 25 %
  // of it can hold): taken as stated, foreign VAT is no Danish input VAT.
  'CII_business_example_01.xml': ['NOK', 1801.78, 365.28, 1436.5, 5, 'KDELVIS'],
  'CII_example1.xml': ['EUR', 250.33, 20.73, 229.6, 20, 'KDELVIS'],
  'CII_example3.xml': ['DKK', 1125, 225, 900, 1, 'K25'],
  'CII_example5.xml': ['DKK', 4675, 675, 4000, 3, 'KDELVIS'],
  'CII_example7.xml': ['SEK', 3200, 0, 3200, 2, 'K0'],
  'XRechnung-O.xml': ['EUR', 385544.6, 0, 385544.6, 2, 'K0'],
};

/** POSTs a PDF (Factur-X / ZUGFeRD, or not) to /einvoices/inbound. */
async function importPdf(key: string, url: string, pdf: Buffer) {
  const r = await fetch(`${url}/api/v1/einvoices/inbound`, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/pdf', ...idem().header },
    body: pdf,
  });
  return { status: r.status, body: (await r.json()) as { data: EinvoiceMessage | null; voucher_id?: string; detail?: string } & Problem };
}

/** A PDF as an invoicing program writes one, with `xml` embedded as Factur-X does (`factur-x.xml`), or none. */
async function pdfWith(xml?: string): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4', info: { Title: 'Faktura' } });
  const parts: Buffer[] = [];
  doc.on('data', (b: Buffer) => parts.push(b));
  const done = new Promise<void>((resolve) => doc.on('end', () => resolve()));
  doc.fontSize(14).text('Faktura TOSL108');
  if (xml !== undefined) doc.file(Buffer.from(xml, 'utf8'), { name: 'factur-x.xml', type: 'text/xml', description: 'Factur-X' });
  doc.end();
  await done;
  return Buffer.concat(parts);
}

const brokenPayable = (xml: string) => xml.replace(/(<cbc:PayableAmount currencyID="DKK">)[0-9.]+/, '$11.00');

const expenseOf = async (c: Api, id: string) => (await ok(c.GET('/expenses/{id}', { params: { path: { id } } }))).data;

/**
 * The draft's own lines (decision 681): the document's lines in order, then its own allowances, charges and
 * duties; their nets and the VAT they carry (none under reverse charge) add up to the expense, to the øre.
 */
function expectLinesAddUp(expense: Awaited<ReturnType<typeof expenseOf>>, m: EinvoiceMessage, file: string) {
  const oere = (n: number) => Math.round(n * 100);
  const reverse = new Set(['EUV', 'EUY', 'IMPV', 'UY', 'KOMV']);
  expect(
    expense.lines.filter((l) => l.kind === 'item').map((l) => l.description),
    file,
  ).toEqual(m.lines.map((l) => l.description));
  const carried = expense.lines.reduce((sum, l) => sum + oere(l.net_amount) + (reverse.has(l.vat_code) ? 0 : oere(l.vat_amount)), 0);
  expect(carried, file).toBe(oere(expense.amount));
  expect(
    expense.lines.reduce((sum, l) => sum + oere(l.vat_amount), 0),
    file,
  ).toBe(oere(expense.vat_amount));
}

describe('POST /einvoices/inbound', () => {
  // Nine companies and nine documents one after another: a minute or more while the suite's other files hold the cores.
  it("imports every one of Peppol's examples with the right supplier, amounts, VAT and currency", async () => {
    // [file, kind, currency, expense amount, vat_amount, vat_code]: a foreign supplier's VAT is no Danish input VAT (KDELVIS, 0 % deductible).
    const expected: Record<string, [string, string, number, number, string]> = {
      'Allowance-example.xml': ['invoice', 'EUR', 7125, 1225, 'KDELVIS'],
      'Vat-category-S.xml': ['invoice', 'EUR', 8550, 1550, 'KDELVIS'],
      'base-creditnote-correction.xml': ['credit_note', 'EUR', -1656.25, -331.25, 'KDELVIS'],
      'base-example.xml': ['invoice', 'EUR', 1656.25, 331.25, 'KDELVIS'],
      'base-negative-inv-correction.xml': ['invoice', 'EUR', -1656.25, -331.25, 'KDELVIS'],
      'sales-order-example.xml': ['invoice', 'EUR', 1656.25, 331.25, 'KDELVIS'],
      'vat-category-E.xml': ['invoice', 'GBP', 1200, 0, 'K0'],
      'vat-category-O.xml': ['invoice', 'SEK', 3200, 0, 'K0'],
      'vat-category-Z.xml': ['invoice', 'GBP', 1200, 0, 'K0'],
    };
    const files = readdirSync(EXAMPLES).sort();
    expect(files).toEqual(Object.keys(expected).sort());
    for (const file of files) {
      // Each into a company of its own: several examples are the same supplier's document "Snippet1".
      const other = await t.another(`Modtager af ${file}`);
      const xml = example(file);
      const r = await importXml(other.raw, xml);
      expect(r.status, `${file}: ${r.text.slice(0, 500)}`).toBe(201);
      const m = r.body.data;
      const [kind, currency, amount, vat, code] = expected[file]!;
      expect(m, file).toMatchObject({ direction: 'inbound', status: 'received', document_kind: kind, document_format: 'peppol-bis3', currency });
      const supplier = (await ok(other.api.GET('/suppliers/{id}', { params: { path: { id: m.supplier_id } } }))).data;
      expect(supplier.name, file).toBe(m.counterpart.name);
      // Several examples give a 19-digit "GLN", which GS1's 13 digits refuse: the supplier is made without it.
      expect(supplier.peppol_id, file).toBe(m.counterpart.peppol_id === '0088:9482348239847239874' ? '' : m.counterpart.peppol_id);
      expect(m.counterpart.peppol_id, file).toMatch(/^0088:/);
      const expense = await expenseOf(other.api, m.expense_id);
      expect([expense.status, expense.currency, expense.amount, expense.vat_amount, expense.vat_code], file).toEqual(['draft', currency, amount, vat, code]);
      expect(expense.supplier_id).toBe(m.supplier_id);
      expectLinesAddUp(expense, m, file);
      // The XML is kept byte for byte: as the expense's voucher, and as the message's document.
      const voucher = await other.raw.get(`/vouchers/${expense.voucher_id}/content`);
      expect(voucher.text, file).toBe(xml);
      expect((await other.raw.get(m.links.xml.replace('/api/v1', ''))).text, file).toBe(xml);
    }
  }, 180_000);

  it("imports every one of the OIOUBL package's examples: OIOUBL's totals, VAT, currency, lines and payment means", async () => {
    for (const [file, [kind, net, vat, total, lines, means]] of Object.entries(OIOUBL_EXAMPLES)) {
      // Each into a company of its own: two examples are the same supplier's invoice A00095678.
      const other = await t.another(`OIOUBL ${file}`);
      const xml = oioubl(file);
      const r = await importXml(other.raw, xml);
      expect(r.status, `${file}: ${r.text.slice(0, 800)}`).toBe(201);
      const m = r.body.data;
      // In OIOUBL TaxExclusiveAmount is the tax (1262.50), not the amount without it (5050.00).
      expect([m.document_format, m.document_kind, m.currency, m.net_amount, m.vat_amount, m.total_amount], file).toEqual([
        'oioubl-2.1',
        kind,
        'DKK',
        net,
        vat,
        total,
      ]);
      expect(m.lines, file).toHaveLength(lines);
      expect(
        m.payment_means.map((p) => p.code),
        file,
      ).toEqual(means);
      const sign = kind === 'credit_note' ? -1 : 1;
      const expense = await expenseOf(other.api, m.expense_id);
      // A Danish supplier's VAT, as stated: K25.
      expect([expense.status, expense.currency, expense.amount, expense.vat_amount, expense.vat_code], file).toEqual([
        'draft',
        'DKK',
        sign * total,
        sign * vat,
        'K25',
      ]);
      expectLinesAddUp(expense, m, file);
      // The XML is kept as received (the credit note's byte order mark is the text reader's to drop).
      expect((await other.raw.get(`/vouchers/${expense.voucher_id}/content`)).text, file).toBe(xml.replace(/^\uFEFF/, ''));
    }
  });

  it("reads an OIOUBL invoice's lines and bank account, finds its supplier by its GLN, and reads OIOUBL-2.02 and 2.01 as 2.1", async () => {
    const other = await t.another('OIOUBL Linjer ApS');
    // The certificate example's seller has the GLN endpoint 5798000416604 (its CVR, like the other examples', fails the check digit).
    const supplier = (
      await created(other.api.POST('/suppliers', { params: idem(), body: { name: 'Styrelsen (gammelt navn)', peppol_id: '0088:5798000416604' } }))
    ).data;
    const certificate = await importXml(other.raw, oioubl('OIOUBL_InvoiceCerticate.xml'));
    expect(certificate.status, certificate.text).toBe(201);
    expect(certificate.body.data.supplier_id).toBe(supplier.id);
    const r = await importXml(other.raw, oioubl('OIOUBL_Invoice_v2p2.xml'));
    expect(r.status, r.text).toBe(201);
    const m = r.body.data;
    // Its CVR fails the check: no identifier a supplier can hold, so it is made by its name, once.
    expect(m.supplier_id).not.toBe(supplier.id);
    expect(m.lines[0]).toMatchObject({
      id: '1',
      description: 'Hejsetavle',
      item_id: '5712345780121',
      quantity: 1,
      unit: 'EA',
      price: 5000,
      net_amount: 5000,
      vat_category: 'S',
      vat_rate: 25,
      vat_amount: 1250,
      account_number: '2810',
      account_source: 'vat_category',
    });
    expect(m.lines[1]).toMatchObject({ description: 'Beslag', quantity: 2, price: 25, net_amount: 50, vat_amount: 12.5 });
    expect(m.payment_means).toEqual([
      { code: '42', due_date: '2005-11-25', card_type: '', payment_id: '', creditor: '', fi_line: '', account: '1234567890', branch: '1234' },
    ]);
    const expense = await expenseOf(other.api, m.expense_id);
    expect([expense.date, expense.due_date]).toEqual(['2005-11-20', '2005-11-25']);
    // The schematron takes OIOUBL-2.01 and 2.02 too (F-LIB002): read as 2.1, with the same meaning of each total.
    for (const version of ['OIOUBL-2.02', 'OIOUBL-2.01']) {
      const older = oioubl('OIOUBL_Invoice_v2p2.xml')
        .replace('<cbc:CustomizationID>OIOUBL-2.1', `<cbc:CustomizationID>${version}`)
        .replace('<cbc:ID>A00095678', `<cbc:ID>A-${version}`);
      const o = await importXml(other.raw, older);
      expect(o.status, `${version}: ${o.text.slice(0, 500)}`).toBe(201);
      expect([o.body.data.document_format, o.body.data.net_amount, o.body.data.vat_amount, o.body.data.total_amount]).toEqual([
        'oioubl-2.1',
        5050,
        1262.5,
        6312.5,
      ]);
    }
  });

  it("proposes each line's account: the supplier's same item as last booked, else the supplier's default account, else the VAT category's", async () => {
    const other = await t.another('OIOUBL Konti ApS');
    // The package's invoice, dated in the company's open fiscal year so that it can be booked.
    const invoice = oioubl('OIOUBL_Invoice_v2p2.xml')
      .replace('<cbc:IssueDate>2005-11-20', '<cbc:IssueDate>2026-11-20')
      .replace('<cbc:PaymentDueDate>2005-11-25', '<cbc:PaymentDueDate>2026-11-25');
    const first = (await importXml(other.raw, invoice)).body.data;
    expect(first.lines.map((l) => [l.account_number, l.account_source])).toEqual([
      ['2810', 'vat_category'],
      ['2810', 'vat_category'],
    ]);
    // A person books the first document to 1610 Varekøb.
    await ok(other.api.PUT('/expenses/{id}', { params: { path: { id: first.expense_id } }, body: { account_number: '1610' } }));
    await ok(other.api.PUT('/expenses/{id}/status', { params: { path: { id: first.expense_id } }, body: { status: 'booked' } }));
    // The supplier's default account: an active expense account of the chart, or refused by name.
    const supplierPath = { params: { path: { id: first.supplier_id } } };
    const notExpense = await other.raw.call<{ code: string; field: string }>('PUT', `/suppliers/${first.supplier_id}`, {
      body: { default_account_number: '7440' },
    });
    expect([notExpense.status, notExpense.body.field]).toEqual([400, 'default_account_number']);
    await ok(other.api.PUT('/suppliers/{id}', { ...supplierPath, body: { default_account_number: '2390' } }));
    expect((await ok(other.api.GET('/suppliers/{id}', supplierPath))).data.default_account_number).toBe('2390');
    // The supplier's next document: the same item (Hejsetavle, the seller's item id) goes where it went; a new one to the supplier's default.
    const next = invoice
      .replace('<cbc:ID>A00095678', '<cbc:ID>A00095679')
      .replace('<cbc:Name>Beslag</cbc:Name>', '<cbc:Name>Skruer</cbc:Name>')
      .replace('5712345780111', '5712345780999');
    const second = await importXml(other.raw, next);
    expect(second.status, second.text.slice(0, 500)).toBe(201);
    expect(second.body.data.supplier_id).toBe(first.supplier_id);
    expect(second.body.data.lines.map((l) => [l.description, l.account_number, l.account_source])).toEqual([
      ['Hejsetavle', '1610', 'supplier_item'],
      ['Skruer', '2390', 'supplier_default'],
    ]);
    // The draft expense (one account, as expenses have) takes the account of the larger part: 5000.00 of 5050.00.
    expect((await expenseOf(other.api, second.body.data.expense_id)).account_number).toBe('1610');
    // Another supplier's document: nothing of this supplier's applies.
    const elsewhere = (await importXml(other.raw, oioubl('OIOUBL_InvoiceCerticate.xml'))).body.data;
    expect(elsewhere.lines.map((l) => l.account_source)).toEqual(['vat_category']);
  });

  it("imports CEN's CII examples and an XRechnung CII one under the CEN CII rules; a broken copy of each is refused with its rule ids", async () => {
    for (const [file, [currency, total, vat, net, lines, code]] of Object.entries(CII_EXAMPLES)) {
      const other = await t.another(`CII ${file}`);
      const r = await importXml(other.raw, cii(file));
      expect(r.status, `${file}: ${r.text.slice(0, 800)}`).toBe(201);
      const m = r.body.data;
      expect([m.document_format, m.document_kind, m.currency, m.total_amount, m.vat_amount, m.net_amount, m.lines.length], file).toEqual([
        'en16931-cii',
        'invoice',
        currency,
        total,
        vat,
        net,
        lines,
      ]);
      const expense = await expenseOf(other.api, m.expense_id);
      expect([expense.currency, expense.amount, expense.vat_amount, expense.vat_code], file).toEqual([currency, total, vat, code]);
      expectLinesAddUp(expense, m, file);
      if (file === 'CII_business_example_01.xml') {
        // More VAT than 25 % of the amount can hold, as the official rules accept it: tlr's cap only warns,
        // and the draft stays editable (its account changed) with that VAT.
        expect(JSON.stringify(m.last_response)).toMatch(/TLR-VAT-RATE.*365\.28 is more than the 25 % VAT/);
        const changed = await ok(other.api.PUT('/expenses/{id}', { params: { path: { id: m.expense_id } }, body: { account_number: '1610' } }));
        expect([changed.data.vat_amount, changed.data.account_number]).toEqual([365.28, '1610']);
      }
      const before = await stored(other.company.companyId);
      const broken = await importXml(other.raw, cii(file).replace(/(<ram:DuePayableAmount>)[0-9.]+/, '$11.00'));
      expect([broken.status, broken.body.code], `${file}: ${broken.text.slice(0, 500)}`).toEqual([400, 'einvoice_invalid']);
      expect(
        broken.body.failures!.map((f) => f.id),
        file,
      ).toContain('BR-CO-16');
      expect(broken.body.detail).toMatch(/CEN EN 16931 \(CII\)/);
      expect(await stored(other.company.companyId)).toEqual(before);
    }
  });

  it('imports plain EN 16931 and XRechnung UBL under the CEN rules alone: the Peppol rules only for documents that claim Peppol', async () => {
    // Peppol's example without the buyer's electronic address, which Peppol requires (PEPPOL-EN16931-R010) and EN 16931 does not.
    const peppol = example('base-example.xml');
    const withoutEndpoint = peppol.replace(/(<cac:AccountingCustomerParty>\s*<cac:Party>\s*)<cbc:EndpointID[^>]*>[^<]*<\/cbc:EndpointID>/, '$1');
    expect(withoutEndpoint).not.toBe(peppol);
    const claimsPeppol = await importXml(t.raw, withoutEndpoint);
    expect(claimsPeppol.status).toBe(400);
    expect(claimsPeppol.body.failures!.map((f) => f.id)).toContain('PEPPOL-EN16931-R010');
    const customizations = {
      'urn:cen.eu:en16931:2017': 'EN 16931',
      'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0': 'XRechnung 3.0',
    };
    for (const [customization, what] of Object.entries(customizations)) {
      const other = await t.another(`UBL ${what}`);
      const xml = withoutEndpoint.replace('urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0', customization);
      const r = await importXml(other.raw, xml);
      expect(r.status, `${what}: ${r.text.slice(0, 500)}`).toBe(201);
      expect([r.body.data.document_format, r.body.data.total_amount, r.body.data.vat_amount, r.body.data.currency]).toEqual([
        'en16931-ubl',
        1656.25,
        331.25,
        'EUR',
      ]);
      const broken = await importXml(
        other.raw,
        xml.replace('<cbc:PayableAmount currencyID="EUR">1656.25</cbc:PayableAmount>', '<cbc:PayableAmount currencyID="EUR">1000.00</cbc:PayableAmount>'),
      );
      expect(broken.status).toBe(400);
      const ids = broken.body.failures!.map((f) => f.id);
      expect(ids).toContain('BR-CO-16');
      expect(ids.filter((id) => id.startsWith('PEPPOL'))).toEqual([]);
    }
  });

  it('imports a Factur-X PDF: its embedded XML is read, the PDF is the voucher; a PDF without XML is kept as a voucher, nothing read', async () => {
    const other = await t.another('Factur-X ApS');
    const xml = cii('CII_example3.xml');
    const pdf = await pdfWith(xml);
    const r = await importPdf(other.key, t.svc.url, pdf);
    expect(r.status, JSON.stringify(r.body).slice(0, 800)).toBe(201);
    const m = r.body.data!;
    expect([m.document_format, m.document_number, m.total_amount, m.vat_amount, m.currency]).toEqual(['en16931-cii', 'TOSL108', 1125, 225, 'DKK']);
    const expense = await expenseOf(other.api, m.expense_id);
    expect([expense.amount, expense.vat_amount, expense.vat_code]).toEqual([1125, 225, 'K25']);
    // The PDF, byte for byte, is the expense's voucher; the XML is kept beside it, and as the message's document.
    const voucher = await fetch(`${t.svc.url}/api/v1/vouchers/${expense.voucher_id}/content`, { headers: { 'X-API-Key': other.key } });
    expect(Buffer.from(await voucher.arrayBuffer()).equals(pdf)).toBe(true);
    expect(m.links.attachments).toHaveLength(1);
    expect((await other.raw.get(m.links.attachments[0]!.replace('/api/v1', '') + '/content')).text).toBe(xml.replace(/^\uFEFF/, ''));
    expect((await other.raw.get(`/einvoices/${m.id}/xml`)).text).toBe(xml.replace(/^\uFEFF/, ''));
    // A broken copy inside a PDF is refused by the same rules, nothing stored.
    const before = await stored(other.company.companyId);
    const broken = await importPdf(other.key, t.svc.url, await pdfWith(xml.replace('<ram:DuePayableAmount>1125', '<ram:DuePayableAmount>1.00')));
    expect([broken.status, broken.body.code]).toEqual([400, 'einvoice_invalid']);
    expect(broken.body.failures!.map((f) => f.id)).toContain('BR-CO-16');
    expect(await stored(other.company.companyId)).toEqual(before);
    // A plain PDF: stored as a voucher, and the answer says nothing was read.
    const plain = await importPdf(other.key, t.svc.url, await pdfWith());
    expect(plain.status).toBe(201);
    expect(plain.body.data).toBeNull();
    expect(plain.body.detail).toMatch(/nothing was read/);
    const kept = (await ok(other.api.GET('/vouchers/{id}', { params: { path: { id: plain.body.voucher_id! } } }))).data;
    expect(kept.mime_type).toBe('application/pdf');
    const [vouchers, suppliers, expenses, messages] = await stored(other.company.companyId);
    expect([vouchers, suppliers, expenses, messages]).toEqual([before[0]! + 1, before[1], before[2], before[3]]);
    // Not a PDF at all, sent as one: refused by name.
    const fake = await importPdf(other.key, t.svc.url, Buffer.from('<Invoice/>'));
    expect([fake.status, fake.body.detail]).toEqual([400, 'The body is not a PDF (no %PDF- header).']);
  });

  it('reads an FI payment (FIK +71) as its payment line', async () => {
    const other = await t.another('OIOUBL FIK ApS');
    const xml = oioubl('OIOUBL_Invoice_v2p2.xml').replace(
      /<cac:PaymentMeans>[\s\S]*<\/cac:PaymentMeans>/,
      `<cac:PaymentMeans>
        <cbc:ID>1</cbc:ID>
        <cbc:PaymentMeansCode>93</cbc:PaymentMeansCode>
        <cbc:PaymentDueDate>2005-11-25</cbc:PaymentDueDate>
        <cbc:PaymentChannelCode listAgencyID="320" listID="urn:oioubl:codelist:paymentchannelcode-1.1">DK:FIK</cbc:PaymentChannelCode>
        <cbc:InstructionID>000000000001735</cbc:InstructionID>
        <cbc:PaymentID schemeAgencyID="320" schemeID="urn:oioubl:id:paymentid-1.1">71</cbc:PaymentID>
        <cac:CreditAccount><cbc:AccountID>81234567</cbc:AccountID></cac:CreditAccount>
    </cac:PaymentMeans>`,
    );
    const r = await importXml(other.raw, xml);
    expect(r.status, r.text.slice(0, 800)).toBe(201);
    expect(r.body.data.payment_means).toEqual([
      {
        code: '93',
        due_date: '2005-11-25',
        card_type: '71',
        payment_id: '000000000001735',
        creditor: '81234567',
        fi_line: '+71<000000000001735 +81234567<',
        account: '',
        branch: '',
      },
    ]);
  });

  it('refuses the same document of the same supplier again with 409, naming the first import; the same key replays', async () => {
    const other = await t.another('Dubletter ApS');
    const key = idem().header;
    const first = await importXml(other.raw, example('base-example.xml'), key);
    expect(first.status).toBe(201);
    const replay = await importXml(other.raw, example('base-example.xml'), key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('x-idempotency-replayed')).toBe('true');
    expect(replay.body.data.id).toBe(first.body.data.id);
    const before = await stored(other.company.companyId);
    const again = await importXml(other.raw, example('base-example.xml'));
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(again.body).toMatchObject({ code: 'einvoice_duplicate', message_id: first.body.data.id, expense_id: first.body.data.expense_id });
    expect(again.body.imported_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await stored(other.company.companyId)).toEqual(before);
    // The same number from the same supplier as a credit note is another document.
    expect(
      (await importXml(other.raw, example('base-creditnote-correction.xml').replace('0088">9482348239847239874', '0088">9482348239847239874'))).status,
    ).toBe(201);
  });

  it('imports two documents at once once each: the same one twice makes one import, a new supplier is made once', async () => {
    const other = await t.another('Samtidig ApS');
    const same = await Promise.all([importXml(other.raw, example('vat-category-Z.xml')), importXml(other.raw, example('vat-category-Z.xml'))]);
    expect(same.map((r) => r.status).sort()).toEqual([201, 409]);
    const two = await Promise.all([importXml(other.raw, example('base-example.xml')), importXml(other.raw, example('base-creditnote-correction.xml'))]);
    expect(two.map((r) => r.status)).toEqual([201, 201]);
    expect(two[0]!.body.data.supplier_id).toBe(two[1]!.body.data.supplier_id);
    expect(await countRows(`SELECT count(*)::int AS n FROM einvoice_messages WHERE company_id = $1 AND direction = 'inbound'`, [other.company.companyId])).toBe(
      3,
    );
    // Each import answered "received" once; the duplicate refused, none.
    expect(
      await countRows(`SELECT count(*)::int AS n FROM einvoice_messages WHERE company_id = $1 AND response_status = 'received'`, [other.company.companyId]),
    ).toBe(3);
  });

  it('refuses a document that breaks the official rules with 400 listing the rules, storing nothing', async () => {
    const before = await stored(t.company.companyId);
    const broken = example('base-example.xml').replace(
      '<cbc:PayableAmount currencyID="EUR">1656.25</cbc:PayableAmount>',
      '<cbc:PayableAmount currencyID="EUR">1000.00</cbc:PayableAmount>',
    );
    expect(broken).not.toBe(example('base-example.xml'));
    const r = await importXml(t.raw, broken);
    expect(r.status, r.text).toBe(400);
    expect(r.body).toMatchObject({ code: 'einvoice_invalid', field: 'body' });
    expect(r.body.failures!.map((f) => f.id)).toContain('BR-CO-16');
    expect(r.body.detail).toMatch(/BR-CO-16/);
    // A broken copy of each OIOUBL example: refused by the OIOUBL schematron with its rule ids and texts.
    for (const [file, [kind]] of Object.entries(OIOUBL_EXAMPLES)) {
      const o = await importXml(t.raw, brokenPayable(oioubl(file)));
      expect([o.status, o.body.code], `${file}: ${o.text.slice(0, 500)}`).toEqual([400, 'einvoice_invalid']);
      expect(
        o.body.failures!.map((f) => f.id),
        file,
      ).toContain(OIOUBL_PAYABLE_RULE[kind]);
      expect(o.body.failures!.find((f) => f.id === OIOUBL_PAYABLE_RULE[kind])!.text, file).toMatch(/^PayableAmount is calculated incorrectly/);
      expect(o.body.detail).toMatch(/OIOUBL 2\.1 \(schematron 1\.17\.2\)/);
    }
    expect(await stored(t.company.companyId)).toEqual(before);
  });

  it('gives an OIOUBL document the amount checks a Peppol document gets, reads dates by the calendar and stores names decoded', async () => {
    const other = await t.another('OIOUBL Kontrol ApS');
    const before = await stored(other.company.companyId);
    const invoice = oioubl('OIOUBL_Invoice_v2p2.xml');
    // A document in EUR whose amounts are all in DKK, and a total with three decimals: refused as Peppol's rules refuse them.
    const eur = await importXml(other.raw, invoice.replace('<cbc:DocumentCurrencyCode>DKK', '<cbc:DocumentCurrencyCode>EUR'));
    expect([eur.status, eur.body.code], eur.text).toEqual([400, 'einvoice_invalid']);
    expect(eur.body.failures!.map((f) => f.id)).toContain('PEPPOL-EN16931-R051');
    const three = await importXml(other.raw, invoice.replace('<cbc:PayableAmount currencyID="DKK">6312.50', '<cbc:PayableAmount currencyID="DKK">6312.505'));
    expect([three.status, three.body.code], three.text).toEqual([400, 'einvoice_invalid']);
    expect(three.body.failures!.map((f) => f.id)).toContain('UBL-DT-01');
    const date = await importXml(other.raw, invoice.replace('<cbc:IssueDate>2005-11-20', '<cbc:IssueDate>2005-02-31'));
    expect([date.status, date.body.code, date.body.field, date.body.detail]).toEqual([
      400,
      'invalid_request',
      'IssueDate',
      'Not an e-invoice this service takes: IssueDate "2005-02-31" must be a valid calendar date.',
    ]);
    expect(await stored(other.company.companyId)).toEqual(before);
    // An entity in a name is the character it stands for, in the supplier made and in the message.
    const named = await importXml(other.raw, invoice.replaceAll('Tavleleverandøren', 'Jensen &amp; S&#248;n ApS'));
    expect(named.status, named.text).toBe(201);
    expect(named.body.data.counterpart.name).toBe('Jensen & Søn ApS');
    const supplier = (await ok(other.api.GET('/suppliers/{id}', { params: { path: { id: named.body.data.supplier_id } } }))).data;
    expect(supplier.name).toBe('Jensen & Søn ApS');
  });

  it('never merges a supplier with one another identifier names: a namesake with another Peppol id is another supplier', async () => {
    const other = await t.another('Navnebror ApS');
    const xml = example('base-example.xml');
    const name = /<cbc:RegistrationName>([^<]+)<\/cbc:RegistrationName>/.exec(xml)![1]!;
    const namesake = (await created(other.api.POST('/suppliers', { params: idem(), body: { name, peppol_id: '0184:29190925' } }))).data;
    const r = await importXml(other.raw, xml);
    expect(r.status, r.text.slice(0, 500)).toBe(201);
    expect(r.body.data.supplier_id).not.toBe(namesake.id);
  });

  it('takes the VAT of a Peppol document with a 25 % line beside a negative zero-rated one as stated: the cap warns, never refuses', async () => {
    const other = await t.another('Nulmoms ApS');
    // Peppol's example with its second line (-1500.00) zero-rated: 706.25 of VAT in 2031.25, more than 25 % of it can hold.
    const base = example('base-example.xml');
    const at = base.lastIndexOf('<cbc:ID>S</cbc:ID>');
    const xml = (
      base.slice(0, at) +
      '<cbc:ID>Z</cbc:ID>\n            <cbc:Percent>0</cbc:Percent>' +
      base.slice(at + '<cbc:ID>S</cbc:ID>'.length).replace('<cbc:Percent>25.0</cbc:Percent>', '')
    )
      .replace(
        /<cac:TaxTotal>[\s\S]*?<\/cac:TaxTotal>/,
        `<cac:TaxTotal>
        <cbc:TaxAmount currencyID="EUR">706.25</cbc:TaxAmount>
        <cac:TaxSubtotal>
            <cbc:TaxableAmount currencyID="EUR">2825</cbc:TaxableAmount>
            <cbc:TaxAmount currencyID="EUR">706.25</cbc:TaxAmount>
            <cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>25.0</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory>
        </cac:TaxSubtotal>
        <cac:TaxSubtotal>
            <cbc:TaxableAmount currencyID="EUR">-1500</cbc:TaxableAmount>
            <cbc:TaxAmount currencyID="EUR">0</cbc:TaxAmount>
            <cac:TaxCategory><cbc:ID>Z</cbc:ID><cbc:Percent>0</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory>
        </cac:TaxSubtotal>
    </cac:TaxTotal>`,
      )
      .replace('<cbc:TaxInclusiveAmount currencyID="EUR">1656.25', '<cbc:TaxInclusiveAmount currencyID="EUR">2031.25')
      .replace('<cbc:PayableAmount currencyID="EUR">1656.25', '<cbc:PayableAmount currencyID="EUR">2031.25');
    const r = await importXml(other.raw, xml);
    expect(r.status, r.text.slice(0, 1500)).toBe(201);
    expect([r.body.data.total_amount, r.body.data.vat_amount, r.body.data.net_amount]).toEqual([2031.25, 706.25, 1325]);
    expect(JSON.stringify(r.body.data.last_response)).toMatch(/TLR-VAT-RATE/);
    const expense = await expenseOf(other.api, r.body.data.expense_id);
    expect([expense.amount, expense.vat_amount]).toEqual([2031.25, 706.25]);
  });

  it('says what was prepaid as the document states it, not mixed with the rounding', async () => {
    const other = await t.another('Forudbetalt ApS');
    // The Peppol example with 1000.00 prepaid, and 0.30 of rounding on what is left to pay (BR-CO-16 holds).
    const xml = example('Allowance-example.xml').replace(
      '<cbc:PayableAmount currencyID="EUR">6125.00</cbc:PayableAmount>',
      '<cbc:PayableRoundingAmount currencyID="EUR">0.30</cbc:PayableRoundingAmount>\n        <cbc:PayableAmount currencyID="EUR">6125.30</cbc:PayableAmount>',
    );
    const r = await importXml(other.raw, xml);
    expect(r.status, r.text.slice(0, 800)).toBe(201);
    expect(r.body.data.payable_amount).toBe(6125.3);
    expect((await expenseOf(other.api, r.body.data.expense_id)).description).toMatch(/\(forudbetalt 1000\.00 EUR\)$/);
  });

  it('refuses hostile and foreign XML, other media types, oversize and non-UTF-8 bodies by name, storing nothing', async () => {
    const before = await stored(t.company.companyId);
    const ubl = 'xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"';
    const refusals: [string, Record<string, string>, number, RegExp][] = [
      [`<?xml version="1.0"?><!DOCTYPE Invoice [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]><Invoice ${ubl}>&b;</Invoice>`, {}, 400, /document type/],
      [`<!DOCTYPE Invoice SYSTEM "http://127.0.0.1:9/x.dtd"><Invoice ${ubl}/>`, {}, 400, /document type/],
      [
        `<Invoice ${ubl} xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="x http://127.0.0.1:9/x.xsd"><cbc:ID>1</Invoice>`,
        {},
        400,
        /line 1/,
      ],
      ['<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2"/>', {}, 400, /root element is <Order>/],
      ['<Invoice xmlns="urn:example:not-ubl"/>', {}, 400, /namespace/],
      ['', {}, 400, /no document/],
      // NUL is refused by the reading itself, before any rules, and never reaches PostgreSQL.
      [
        oioubl('OIOUBL_Invoice_v2p2.xml').replace('Tavleleverandøren</cbc:RegistrationName>', 'Tavle\u0000leverandøren</cbc:RegistrationName>'),
        {},
        400,
        /U\+0000/,
      ],
      [example('base-example.xml'), { 'Content-Type': 'application/json' }, 415, /application\/xml/],
      // Past the bound of a long document (32 MB; decision 491), which one of 10 MB no longer is.
      [`<Invoice ${ubl}>${'x'.repeat(32 * 1024 * 1024)}</Invoice>`, {}, 413, /exceeds/],
    ];
    for (const [xml, headers, status, detail] of refusals) {
      const r = await importXml(t.raw, xml, headers);
      expect(r.status, `${xml.slice(0, 60)}: ${r.text.slice(0, 300)}`).toBe(status);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.body.detail).toMatch(detail);
    }
    const latin1 = await fetch(`${t.svc.url}/api/v1/einvoices/inbound`, {
      method: 'POST',
      headers: { 'X-API-Key': t.key, 'Content-Type': 'application/xml', ...idem().header },
      body: Buffer.from(example('base-example.xml').replace('SupplierOfficialName', 'Søren'), 'latin1'),
    });
    expect(latin1.status).toBe(400);
    expect(((await latin1.json()) as Problem).detail).toMatch(/UTF-8/);
    expect(await stored(t.company.companyId)).toEqual(before);
  });

  it('needs expenses:write and vouchers:write', async () => {
    const { raw } = await t.newKey(['expenses:write', 'expenses:read']);
    const r = await importXml(raw, example('base-example.xml'));
    expect(r.status).toBe(403);
    expect(r.body.detail).toMatch(/vouchers:write/);
  });
});

describe('GET /einvoices, /einvoices/{id}, /einvoices/{id}/xml', () => {
  it('lists documents sent and received with meta, direction, counterpart, amounts and links; reads one and its XML', async () => {
    const other = await t.another('Læser ApS');
    // One sent: an invoice of this company, as its own UBL, imported by `other` too.
    await ok(t.api.PUT('/settings/company', { body: { address_line1: 'Vestergade 12', postal_code: '8000', city: 'Aarhus C', iban: 'DK5000400440116243' } }));
    const customer = (await created(t.api.POST('/customers', { params: idem(), body: { name: 'Læser ApS', cvr: '29190925', peppol_id: '0184:29190925' } })))
      .data;
    const invoice = (
      await created(
        t.api.POST('/invoices', {
          params: idem(),
          body: {
            customer_id: customer.id,
            issue_date: '2026-11-20',
            due_date: '2026-12-04',
            auto_approve: true,
            lines: [{ description: 'Rådgivning', quantity: 2, unit_price: 500 }],
          },
        }),
      )
    ).data;
    await ok(t.api.POST('/invoices/{id}/send', { params: { path: { id: invoice.id }, ...idem() }, body: { channel: 'peppol' } }));
    const ubl = (await t.raw.get(`/invoices/${invoice.id}/ubl`)).text;
    const received = await importXml(other.raw, ubl);
    expect(received.status, received.text.slice(0, 500)).toBe(201);
    const m = received.body.data;
    // Our own document: a Danish supplier (the company, found by nothing, so made), 25 % VAT as K25, its PDF as a voucher.
    expect(m).toMatchObject({
      counterpart: { name: 'E-faktura Modtager ApS', peppol_id: '0184:12345674' },
      net_amount: 1000,
      vat_amount: 250,
      total_amount: 1250,
    });
    expect(m.links.attachments).toHaveLength(1);
    const pdf = await other.raw.get(m.links.attachments[0]!.replace('/api/v1', '') + '/content');
    expect(pdf.text.startsWith('%PDF')).toBe(true);
    expect((await expenseOf(other.api, m.expense_id)).vat_code).toBe('K25');

    const sent = await ok(t.api.GET('/einvoices', { params: { query: { direction: 'outbound' } } }));
    expect(sent.meta).toMatchObject({ page: 1, total: sent.data.length });
    expect(sent.data.find((e) => e.invoice_id === invoice.id)).toMatchObject({
      direction: 'outbound',
      document_number: invoice.invoice_number,
      counterpart: { name: 'Læser ApS', peppol_id: '0184:29190925' },
      sender: '0184:12345674',
      receiver: '0184:29190925',
      issue_date: '2026-11-20',
      total_amount: 1250,
      links: { invoice: `/api/v1/invoices/${invoice.id}` },
    });
    // What `other` has: the document received, and its response "received", queued to the sender.
    const mine = await ok(other.api.GET('/einvoices', {}));
    expect(mine.data.map((e) => e.direction).sort()).toEqual(['inbound', 'outbound']);
    expect(mine.meta.total).toBe(2);
    const responses = await ok(other.api.GET('/einvoices', { params: { query: { direction: 'outbound' } } }));
    expect(responses.data).toHaveLength(1);
    expect(responses.data[0]).toMatchObject({
      direction: 'outbound',
      document_kind: 'application_response',
      document_format: 'peppol-bis3',
      document_number: invoice.invoice_number,
      application_response: { responds_to: m.id, status: 'received', reason: '' },
      counterpart: { name: 'E-faktura Modtager ApS', peppol_id: '0184:12345674' },
      sender: '0184:29190925',
      receiver: '0184:12345674',
      status: 'queued',
    });
    const answer = await other.raw.get(`/einvoices/${responses.data[0]!.id}/xml`);
    expect(answer.text).toMatch(/<cbc:ResponseCode>AB<\/cbc:ResponseCode>/);
    expect(answer.headers.get('content-disposition')).toMatch(/filename="svar-/);
    expect((await ok(other.api.GET('/einvoices/{id}', { params: { path: { id: m.id } } }))).data).toEqual(mine.data.find((e) => e.id === m.id));
    const xml = await other.raw.get(`/einvoices/${m.id}/xml`);
    expect(xml.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(xml.text).toBe(ubl);
    // Another company's message is not found.
    expect((await t.raw.get(`/einvoices/${m.id}`)).status).toBe(404);
    expect((await t.raw.get(`/einvoices/${m.id}/xml`)).status).toBe(404);
    expect((await t.raw.get('/einvoices?direction=sideways')).status).toBe(400);
  });
});

describe('invoice responses', () => {
  /** The responses `c`'s company sent about received message `id`, oldest first, with their documents. */
  const responsesTo = async (c: Api, raw: Raw, id: string) => {
    const all = await ok(c.GET('/einvoices', { params: { query: { direction: 'outbound', sort: 'created_at', order: 'asc', per_page: 100 } } }));
    const mine = all.data.filter((e) => e.application_response?.responds_to === id);
    return Promise.all(mine.map(async (e) => ({ ...e, xml: (await raw.get(`/einvoices/${e.id}/xml`)).text })));
  };
  const reject = (raw: Raw, id: string, body: unknown, headers: Record<string, string> = idem().header) =>
    raw.call<{ data: { id: string; application_response: { status: string; reason: string } } | null } & Problem>('POST', `/einvoices/${id}/reject`, {
      body,
      headers,
    });

  it('answers received on import and accepted on booking, once each, in Peppol to a Peppol sender', async () => {
    const other = await t.another('Svar Peppol ApS');
    // Dated in the company's open fiscal year, so that it can be booked.
    const m = (await importXml(other.raw, example('base-example.xml').replaceAll('2017-', '2026-'))).body.data;
    const expenseId = m.expense_id;
    await ok(other.api.PUT('/expenses/{id}', { params: { path: { id: expenseId } }, body: { exchange_rate: 7.46 } }));
    // Booked twice at once: one booking, one "accepted".
    const bookings = await Promise.all([1, 2].map(() => other.raw.call('PUT', `/expenses/${expenseId}/status`, { body: { status: 'booked' } })));
    expect(bookings.map((b) => b.status)).toEqual([200, 200]);
    const sent = await responsesTo(other.api, other.raw, m.id);
    expect(sent.map((r) => [r.application_response!.status, r.document_format, r.receiver, r.status])).toEqual([
      ['received', 'peppol-bis3', m.counterpart.peppol_id, 'queued'],
      ['accepted', 'peppol-bis3', m.counterpart.peppol_id, 'queued'],
    ]);
    expect(sent.map((r) => /<cbc:ResponseCode>(\w+)</.exec(r.xml)?.[1])).toEqual(['AB', 'AP']);
    for (const r of sent) expect(r.xml).toContain('<cbc:ID>Snippet1</cbc:ID>');

    // Two workers deliver the same response at once: one hands it over, the other finds it leased.
    const handed: OutgoingDocument[] = [];
    const settings = {
      transport: { kind: 'directory' as const, send: async (doc: OutgoingDocument) => (handed.push(doc), { outcome: 'accepted' as const, response: {} }) },
      retryUnitMs: 1000,
      inboxPollMs: 1000,
      handOverTimeoutMs: 20_000,
    };
    const db = testDb();
    const deliver = async () => {
      const claimed = await claimEinvoice(db.prisma, sent[1]!.id, settings.handOverTimeoutMs);
      return claimed && attemptEinvoice(inTransaction(db), settings, claimed);
    };
    await Promise.all([deliver(), deliver(), deliver()]);
    expect(handed.map((d) => [d.messageId, d.receiver])).toEqual([[sent[1]!.id, m.counterpart.peppol_id]]);
    expect((await ok(other.api.GET('/einvoices/{id}', { params: { path: { id: sent[1]!.id } } }))).data.status).toBe('sent');
    expect(await deliver()).toBeNull();
  });

  it('rejects a received OIOUBL document with its reason: the draft expense is cancelled, a valid OIOUBL response goes once', async () => {
    const other = await t.another('Svar OIOUBL ApS');
    const m = (await importXml(other.raw, oioubl('OIOUBL_Invoice_v2p2.xml'))).body.data;
    // Refusals by name: no reason, no Idempotency-Key, an unknown field.
    expect((await reject(other.raw, m.id, { reason: ' ' })).body).toMatchObject({ code: 'invalid_request', field: 'reason' });
    expect((await reject(other.raw, m.id, { reason: 'x' }, {})).status).toBe(400);
    expect((await reject(other.raw, m.id, { reason: 'x', why: 'y' })).status).toBe(400);
    // Two rejections at once: one rejects, the other finds it rejected; the same key replays the first answer.
    const key = idem().header;
    const reason = 'Vi har ikke fået de aftalte 800,- kr i rabat';
    const [a, b] = await Promise.all([reject(other.raw, m.id, { reason }, key), reject(other.raw, m.id, { reason: 'Forkert pris' })]);
    expect([a.status, b.status].sort()).toEqual([202, 409]);
    const [won, lost] = a.status === 202 ? [a, b] : [b, a];
    expect(lost.body).toMatchObject({ code: 'einvoice_not_rejectable' });
    expect(won.body.data!.application_response.status).toBe('rejected');
    const again = await reject(other.raw, m.id, { reason }, key);
    if (a.status === 202) expect([again.status, again.body.data!.id]).toEqual([202, won.body.data!.id]);
    expect((await expenseOf(other.api, m.expense_id)).status).toBe('cancelled');
    // A cancelled draft cannot be booked: the document is never accepted after its rejection.
    expect((await other.raw.call('PUT', `/expenses/${m.expense_id}/status`, { body: { status: 'booked' } })).status).toBe(409);

    const sent = await responsesTo(other.api, other.raw, m.id);
    expect(sent.map((r) => [r.application_response!.status, r.document_format])).toEqual([
      ['received', 'oioubl-2.1'],
      ['rejected', 'oioubl-2.1'],
    ]);
    expect(sent[1]!.application_response!.reason).toBe(won === a ? reason : 'Forkert pris');
    // Valid under the official OIOUBL ApplicationResponse schematron, each one.
    for (const r of sent) expect((await validateEinvoice(r.xml, 'oioubl-application-response')).fatal).toEqual([]);
    expect(sent.map((r) => /responsecode-1.1">(\w+)</.exec(r.xml)?.[1])).toEqual(['TechnicalAccept', 'BusinessReject']);
  });

  it('refuses to reject a document sent from here, or one whose expense is booked', async () => {
    const other = await t.another('Svar Afvist ApS');
    const m = (await importXml(other.raw, example('vat-category-Z.xml').replaceAll('2018-', '2026-'))).body.data;
    await ok(other.api.PUT('/expenses/{id}', { params: { path: { id: m.expense_id } }, body: { exchange_rate: 8.6 } }));
    await ok(other.api.PUT('/expenses/{id}/status', { params: { path: { id: m.expense_id } }, body: { status: 'booked' } }));
    const booked = await reject(other.raw, m.id, { reason: 'For sent' });
    expect(booked.status).toBe(409);
    expect(booked.body).toMatchObject({ code: 'einvoice_not_rejectable', expense_id: m.expense_id, current_status: 'booked' });
    const response = (await responsesTo(other.api, other.raw, m.id))[0]!;
    expect((await reject(other.raw, response.id, { reason: 'Svar på svar' })).body).toMatchObject({ code: 'einvoice_not_rejectable', field: 'id' });
    expect((await reject(other.raw, '01a22644-c29d-70d5-ab54-61afd2926aac', { reason: 'Ukendt' })).status).toBe(404);
  });
});
