import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.ts';
import { prepareInbound } from './inbound.ts';
import { MAX_EINVOICE_BYTES, parseEinvoice } from './parse.ts';

const EXAMPLES = join(import.meta.dirname, 'examples');
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
    expect(refusal(example('base-example.xml').replace('urn:fdc:peppol.eu:2017:poacc:billing:3.0</cbc:CustomizationID>', 'x</cbc:CustomizationID>'))).toMatch(
      /neither Peppol BIS Billing 3.0/,
    );
    expect(refusal(`<Invoice ${ubl}>${'x'.repeat(MAX_EINVOICE_BYTES)}</Invoice>`)).toMatch(/larger than 10 MB/);
    expect(refusal(example('base-example.xml').replace('<cbc:ID>Snippet1', '<cbc:ID>Snippet\u00001'))).toMatch(/U\+0000, which XML does not allow/);
    expect(refusal(example('base-example.xml').replace('SupplierOfficialName', 'Supplier\u001b'))).toMatch(/U\+001B/);
  });

  it('reads an OIOUBL 2.1 invoice by its CustomizationID', () => {
    const oioubl = example('base-example.xml').replace('urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0', 'OIOUBL-2.01');
    expect(parseEinvoice(oioubl).format).toBe('oioubl-2.1');
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
  const oioubl = example('base-example.xml').replace('urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0', 'OIOUBL-2.01');
  const failures = async (xml: string) => {
    try {
      await prepareInbound(xml);
    } catch (e) {
      if (e instanceof DomainError && e.code === 'einvoice_invalid') return [...new Set(e.extensions.failures!.map((f) => f.id))];
      throw e;
    }
    return [];
  };

  it('passes the document as it is', async () => {
    expect(await failures(oioubl)).toEqual([]);
  });

  it('refuses a document in EUR whose amounts are in DKK (PEPPOL-EN16931-R051)', async () => {
    expect(await failures(oioubl.replaceAll('currencyID="EUR"', 'currencyID="DKK"'))).toEqual(['PEPPOL-EN16931-R051']);
  });

  it('refuses a total with three decimals (UBL-DT-01)', async () => {
    const three = oioubl.replace(
      '<cbc:PayableAmount currencyID="EUR">1656.25</cbc:PayableAmount>',
      '<cbc:PayableAmount currencyID="EUR">1656.255</cbc:PayableAmount>',
    );
    expect(three).not.toBe(oioubl);
    expect(await failures(three)).toEqual(['UBL-DT-01']);
  });
});
