import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type DomainError } from '../errors.ts';
import { MAX_LARGE_EINVOICE_BYTES, parseEinvoice, parseEinvoiceYielding } from './parse.ts';

const EXAMPLES = join(import.meta.dirname, 'examples');
// The OIOUBL schematron package's own examples, in the shared reference set (its README).
const REPO = join(import.meta.dirname, '..', '..', '..', '..');
const REFERENCE = [join(REPO, '..', 'shared', 'reference'), '/work/shared/reference'].find(existsSync) ?? join(REPO, '..', 'shared', 'reference');
const oioubl = (name: string) => readFileSync(join(REFERENCE, 'einvoice', 'oioubl', 'examples', name), 'utf8');
const example = (name: string) => readFileSync(join(EXAMPLES, name), 'utf8');
const refusal = (xml: string) => {
  try {
    parseEinvoice(xml);
  } catch (e) {
    return (e as Error).message;
  }
  return 'accepted';
};

describe('parseEinvoice', () => {
  it("reads every one of Peppol's examples: kind, number, currency, supplier, totals and VAT breakdown", () => {
    const read = readdirSync(EXAMPLES).map((f) => [f, parseEinvoice(example(f))] as const);
    expect(read).toHaveLength(9);
    for (const [f, d] of read) {
      expect(d.format, f).toBe('peppol-bis3');
      // The totals add up as the document states them.
      expect(d.net.plus(d.vat).toFixed(2), f).toBe(d.gross.toFixed(2));
      expect(d.breakdown.reduce((s, b) => s.plus(b.tax), d.vat.minus(d.vat)).toFixed(2), f).toBe(d.vat.toFixed(2));
    }
    const base = Object.fromEntries(read)['base-example.xml']!;
    expect(base).toMatchObject({ kind: 'invoice', number: 'Snippet1', issueDate: '2017-11-13', dueDate: '2017-12-01', currency: 'EUR', lineCount: 2 });
    expect(base.supplier).toMatchObject({ name: 'SupplierOfficialName Ltd', endpoint: '0088:9482348239847239874', vatNumber: 'GB1232434', country: 'GB' });
    expect([base.net.toFixed(2), base.vat.toFixed(2), base.payable.toFixed(2)]).toEqual(['1325.00', '331.25', '1656.25']);
    expect(Object.fromEntries(read)['base-creditnote-correction.xml']!.kind).toBe('credit_note');
    expect(Object.fromEntries(read)['vat-category-O.xml']!.breakdown.map((b) => [b.category, b.rate.toString()])).toEqual([['O', '0']]);
    // The allowance and charge on the document as a whole (not a line's): the lines less the one plus the other are the net.
    const allowance = Object.fromEntries(read)['Allowance-example.xml']!;
    expect(allowance.allowanceCharges.map((a) => [a.charge, a.amount.toFixed(2), a.reason, a.vatCategory, a.vatRate?.toString()])).toEqual([
      [true, '200.00', 'Cleaning', 'S', '25'],
      [false, '200.00', 'Discount', 'S', '25'],
    ]);
    expect(base.allowanceCharges.map((a) => [a.charge, a.amount.toFixed(2), a.reason])).toEqual([[true, '25.00', 'Insurance']]);
    expect(Object.fromEntries(read)['vat-category-E.xml']!.allowanceCharges).toEqual([]);
  });

  it('refuses hostile and foreign XML by name, expanding and fetching nothing', () => {
    const ubl = 'xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"';
    expect(refusal(`<?xml version="1.0"?><!DOCTYPE Invoice [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]><Invoice ${ubl}>&b;</Invoice>`)).toMatch(
      /declares a document type/,
    );
    expect(refusal(`<!DOCTYPE Invoice SYSTEM "http://127.0.0.1:9/x.dtd"><Invoice ${ubl}/>`)).toMatch(/declares a document type/);
    expect(refusal(`<Invoice ${ubl}><cbc:ID>1</Invoice>`)).toMatch(/line 1, column/);
    expect(refusal('<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2"/>')).toMatch(/root element is <Order>/);
    expect(refusal('<Invoice xmlns="urn:example:not-ubl"/>')).toMatch(/namespace "urn:example:not-ubl"/);
    expect(
      refusal(
        example('base-example.xml').replace(
          'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0</cbc:CustomizationID>',
          'urn:example:x</cbc:CustomizationID>',
        ),
      ),
    ).toMatch(/neither Peppol BIS Billing 3.0/);
    // A document to 32 MB is read (a long one is imported by a job, decision 491); one beyond is refused while read.
    expect(refusal(`<Invoice ${ubl}>${'x'.repeat(MAX_LARGE_EINVOICE_BYTES)}</Invoice>`)).toMatch(/larger than 32 MB/);
    expect(refusal(example('base-example.xml').replace('<cbc:ID>Snippet1', '<cbc:ID>Snippet\u00001'))).toMatch(/U\+0000, which XML does not allow/);
    expect(refusal(example('base-example.xml').replace('SupplierOfficialName', 'Supplier\u001b'))).toMatch(/U\+001B/);
  });

  it("reads the OIOUBL package's examples with OIOUBL's meaning of each total: TaxExclusiveAmount is the tax", () => {
    const invoice = parseEinvoice(oioubl('OIOUBL_Invoice_v2p2.xml'));
    expect([invoice.format, invoice.kind, invoice.number, invoice.currency]).toEqual(['oioubl-2.1', 'invoice', 'A00095678', 'DKK']);
    // LineExtensionAmount 5050.00, TaxExclusiveAmount 1262.50 (the tax), TaxInclusiveAmount 6312.50.
    expect([invoice.net, invoice.vat, invoice.gross, invoice.payable].map((d) => d.toFixed(2))).toEqual(['5050.00', '1262.50', '6312.50', '6312.50']);
    expect(invoice.breakdown.map((b) => [b.category, b.rate.toString(), b.taxable.toFixed(2), b.tax.toFixed(2)])).toEqual([['S', '25', '5050.00', '1262.50']]);
    expect(invoice.supplier).toMatchObject({ name: 'Tavleleverandøren', endpoint: '0184:16356706', cvr: '16356706', vatNumber: 'DK16356706', country: 'DK' });
    expect(
      invoice.lines.map((l) => [
        l.id,
        l.description,
        l.itemId,
        l.quantity.toString(),
        l.unit,
        l.price?.toFixed(2),
        l.net.toFixed(2),
        l.vatCategory,
        l.vat?.toFixed(2),
      ]),
    ).toEqual([
      ['1', 'Hejsetavle', '5712345780121', '1', 'EA', '5000.00', '5000.00', 'S', '1250.00'],
      ['2', 'Beslag', '5712345780111', '2', 'EA', '25.00', '50.00', 'S', '12.50'],
    ]);
    expect(invoice.paymentMeans).toEqual([
      { code: '42', dueDate: '2005-11-25', cardType: '', paymentId: '', creditor: '', fiLine: '', account: '1234567890', branch: '1234' },
    ]);
    expect(invoice.amountFailures).toEqual([]);
    const credit = parseEinvoice(oioubl('OIOUBL_CreditNote_v2p2.xml'));
    expect([credit.kind, credit.net.toFixed(2), credit.vat.toFixed(2), credit.lines.length]).toEqual(['credit_note', '5050.00', '1262.50', 2]);
    // The package's schematron takes OIOUBL-2.01 and OIOUBL-2.02 as well (F-LIB002).
    for (const version of ['OIOUBL-2.02', 'OIOUBL-2.01']) {
      const older = parseEinvoice(oioubl('OIOUBL_Invoice_v2p2.xml').replace('>OIOUBL-2.1<', `>${version}<`));
      expect([older.format, older.net.toFixed(2), older.vat.toFixed(2)]).toEqual(['oioubl-2.1', '5050.00', '1262.50']);
    }
    expect(refusal(oioubl('OIOUBL_Invoice_v2p2.xml').replace('>OIOUBL-2.1<', '>OIOUBL-3.0<'))).toMatch(/CustomizationID "OIOUBL-3.0" is neither/);
  });

  it('reads each TaxTotal by its tax scheme: VAT is VAT, an excise duty is a tax of its own and part of the amount without VAT', () => {
    // The package's invoice with a duty of 100.00 (another tax scheme) besides the VAT: TaxExclusiveAmount
    // (every tax) and the totals grow by it; the VAT stays 1262.50.
    const xml = oioubl('OIOUBL_Invoice_v2p2.xml')
      .replace(
        '<cac:LegalMonetaryTotal>',
        `<cac:TaxTotal>
        <cbc:TaxAmount currencyID="DKK">100.00</cbc:TaxAmount>
        <cac:TaxSubtotal>
            <cbc:TaxableAmount currencyID="DKK">5050.00</cbc:TaxableAmount>
            <cbc:TaxAmount currencyID="DKK">100.00</cbc:TaxAmount>
            <cac:TaxCategory>
                <cbc:ID schemeAgencyID="320" schemeID="urn:oioubl:id:taxcategoryid-1.1">StandardRated</cbc:ID>
                <cbc:PerUnitAmount currencyID="DKK">100.00</cbc:PerUnitAmount>
                <cac:TaxScheme>
                    <cbc:ID schemeAgencyID="320" schemeID="urn:oioubl:id:taxschemeid-1.5">152</cbc:ID>
                    <cbc:Name>Elafgift</cbc:Name>
                </cac:TaxScheme>
            </cac:TaxCategory>
        </cac:TaxSubtotal>
    </cac:TaxTotal>
    <cac:LegalMonetaryTotal>`,
      )
      .replace('<cbc:TaxExclusiveAmount currencyID="DKK">1262.50', '<cbc:TaxExclusiveAmount currencyID="DKK">1362.50')
      .replace('<cbc:TaxInclusiveAmount currencyID="DKK">6312.50', '<cbc:TaxInclusiveAmount currencyID="DKK">6412.50')
      .replace('<cbc:PayableAmount currencyID="DKK">6312.50', '<cbc:PayableAmount currencyID="DKK">6412.50');
    const d = parseEinvoice(xml);
    expect([d.vat, d.net, d.gross].map((x) => x.toFixed(2))).toEqual(['1262.50', '5150.00', '6412.50']);
    expect(d.breakdown).toHaveLength(1);
    expect(d.taxes.map((t) => [t.scheme, t.name, t.amount.toFixed(2)])).toEqual([['152', 'Elafgift', '100.00']]);
  });

  it("reads CEN's CII examples (EN 16931 in UN/CEFACT CII) with EN 16931's meaning of each total", () => {
    const cii = (name: string) => parseEinvoice(readFileSync(join(REFERENCE, 'einvoice', 'cii', 'examples', name), 'utf8'));
    const d = cii('CII_example3.xml');
    expect([d.format, d.kind, d.number, d.currency, d.issueDate, d.dueDate]).toEqual(['en16931-cii', 'invoice', 'TOSL108', 'DKK', '2013-04-10', '2013-05-10']);
    expect([d.net, d.vat, d.gross, d.payable].map((x) => x.toFixed(2))).toEqual(['900.00', '225.00', '1125.00', '1125.00']);
    expect(d.supplier).toMatchObject({ name: 'SubscriptionSeller', vatNumber: 'DK16356706', country: 'DK' });
    expect(
      d.lines.map((l) => [l.description, l.quantity.toString(), l.unit, l.price?.toString(), l.net.toFixed(2), l.vatCategory, l.vatRate?.toString()]),
    ).toEqual([['Paper subscription', '1', 'C62', '800', '800.00', 'S', '25']]);
    expect(d.paymentMeans.map((m) => [m.code, m.account, m.paymentId])).toEqual([['30', 'DK1212341234123412', 'Payref1']]);
    const norwegian = cii('CII_business_example_01.xml');
    expect([norwegian.vat, norwegian.prepaid, norwegian.payable].map((x) => x.toFixed(2))).toEqual(['365.28', '1000.00', '801.78']);
    expect(norwegian.breakdown.map((b) => `${b.category}${b.rate.toString()}`)).toEqual(['S25', 'S15', 'E0']);
    expect(refusal('<CrossIndustryInvoice xmlns="urn:example"/>')).toMatch(/namespace "urn:example"/);
  });

  it('reads prepaid and rounding amounts apart', () => {
    const d = parseEinvoice(
      example('Allowance-example.xml').replace(
        '<cbc:PayableAmount currencyID="EUR">6125.00</cbc:PayableAmount>',
        '<cbc:PayableRoundingAmount currencyID="EUR">0.30</cbc:PayableRoundingAmount><cbc:PayableAmount currencyID="EUR">6125.30</cbc:PayableAmount>',
      ),
    );
    expect([d.prepaid, d.rounding, d.payable].map((x) => x.toFixed(2))).toEqual(['1000.00', '0.30', '6125.30']);
  });

  it("decodes entities in what it stores: Jensen &amp; Søn ApS is the supplier's name as Jensen & Søn ApS", () => {
    const xml = example('base-example.xml').replace('SupplierOfficialName Ltd', 'Jensen &amp; S&#248;n ApS');
    expect(parseEinvoice(xml).supplier.name).toBe('Jensen & Søn ApS');
  });

  it('checks every date by the calendar, naming the element: 2026-02-31 is no IssueDate nor DueDate', () => {
    const base = example('base-example.xml');
    const issue = (() => {
      try {
        parseEinvoice(base.replace('<cbc:IssueDate>2017-11-13</cbc:IssueDate>', '<cbc:IssueDate>2026-02-31</cbc:IssueDate>'));
      } catch (e) {
        return e as DomainError;
      }
    })();
    expect([issue?.code, issue?.field, issue?.message]).toEqual([
      'invalid_request',
      'IssueDate',
      'Not an e-invoice this service takes: IssueDate "2026-02-31" must be a valid calendar date.',
    ]);
    expect(refusal(base.replace('<cbc:DueDate>2017-12-01</cbc:DueDate>', '<cbc:DueDate>2017-13-01</cbc:DueDate>'))).toMatch(
      /DueDate "2017-13-01" must be a valid calendar date/,
    );
  });

  it('refuses a VAT rate that is no number with 400, never an internal error', () => {
    const xml = example('base-example.xml').replaceAll('<cbc:Percent>25.0</cbc:Percent>', '<cbc:Percent>abc</cbc:Percent>');
    expect(xml).not.toBe(example('base-example.xml'));
    expect(refusal(xml)).toMatch(/TaxCategory\/Percent "abc" must be a decimal number/);
  });
});

describe('the amounts of an OIOUBL document get the checks a Peppol document gets', () => {
  const invoice = oioubl('OIOUBL_Invoice_v2p2.xml');
  const failures = (xml: string) => [...new Set(parseEinvoice(xml).amountFailures.map((f) => f.id))];

  it('passes the document as it is', () => {
    expect(failures(invoice)).toEqual([]);
  });

  it('refuses a document in EUR whose amounts are in DKK (PEPPOL-EN16931-R051)', () => {
    expect(failures(invoice.replace('<cbc:DocumentCurrencyCode>DKK', '<cbc:DocumentCurrencyCode>EUR'))).toEqual(['PEPPOL-EN16931-R051']);
  });

  it('refuses a total with three decimals (UBL-DT-01)', () => {
    const three = invoice.replace('<cbc:PayableAmount currencyID="DKK">6312.50', '<cbc:PayableAmount currencyID="DKK">6312.505');
    expect(three).not.toBe(invoice);
    expect(failures(three)).toEqual(['UBL-DT-01']);
  });
});

describe('parseEinvoiceYielding (decision 687)', () => {
  // The base example with its first line repeated `n` times (IDs 1..n): 1,200 lines cross the turns of 500.
  const long = (n: number) => {
    const xml = example('base-example.xml');
    const line = /<cac:InvoiceLine>[\s\S]*?<\/cac:InvoiceLine>/.exec(xml)![0];
    const body = Array.from({ length: n }, (_, i) => line.replace(/<cbc:ID>\d+<\/cbc:ID>/, `<cbc:ID>${i + 1}</cbc:ID>`)).join('\n');
    return xml.replace(/<cac:InvoiceLine>[\s\S]*<\/cac:InvoiceLine>/, body);
  };
  const outcome = async (read: () => unknown) => {
    try {
      return { read: await read() };
    } catch (e) {
      return { refused: (e as DomainError).message, field: (e as DomainError).field, extensions: (e as DomainError).extensions };
    }
  };

  it('reads every example, a long document and a CII one as parseEinvoice does, giving the event loop turns', async () => {
    const cii = join(REFERENCE, 'einvoice', 'cii', 'examples');
    const documents = [
      ...readdirSync(EXAMPLES).map(example),
      oioubl('OIOUBL_Invoice_v2p2.xml'),
      long(1_200),
      ...(existsSync(cii)
        ? readdirSync(cii)
            .slice(0, 1)
            .map((f) => readFileSync(join(cii, f), 'utf8'))
        : []),
    ];
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    try {
      for (const xml of documents) expect(await parseEinvoiceYielding(xml)).toEqual(parseEinvoice(xml));
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(0);
    expect((await parseEinvoiceYielding(long(1_200))).lines.map((l) => l.id)).toEqual(Array.from({ length: 1_200 }, (_, i) => `${i + 1}`));
  });

  it('refuses and lists failures as parseEinvoice does, past the first turns: a number that is none, an amount of three decimals', async () => {
    const lines = long(1_200).split('<cac:InvoiceLine>');
    // Line 1,100: its quantity no number (a refusal); line 1,150: an amount of three decimals (a rule failure listed).
    lines[1_100] = lines[1_100]!.replace(/(<cbc:InvoicedQuantity[^>]*>)[^<]*/, '$1abc');
    lines[1_150] = lines[1_150]!.replace(/(<cbc:LineExtensionAmount[^>]*>)[^<]*/, '$1 2800.001');
    const refused = lines.join('<cac:InvoiceLine>');
    const listed = lines.map((l, i) => (i === 1_100 ? long(1_200).split('<cac:InvoiceLine>')[i]! : l)).join('<cac:InvoiceLine>');
    const sync = await outcome(() => parseEinvoice(refused));
    expect(sync).toMatchObject({ refused: expect.stringContaining('InvoicedQuantity "abc" must be a decimal number') });
    expect(await outcome(() => parseEinvoiceYielding(refused))).toEqual(sync);
    const failures = parseEinvoice(listed).amountFailures;
    expect(failures.map((f) => f.id)).toEqual(['UBL-DT-01']);
    expect((await parseEinvoiceYielding(listed)).amountFailures).toEqual(failures);
  });
});
