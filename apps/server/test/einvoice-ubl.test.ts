// Every shape of invoice the API can make, as a Peppol BIS Billing 3.0 document,
// checked by the official rules (CEN EN 16931 and Peppol BIS 3 with the Danish rules: validate.ts):
// no fatal assertion on any of them.
import { describe, expect, it } from 'vitest';
import { validateEinvoice } from '@tlr/domain';
import { created, idem, ok, useCompany } from './helpers.ts';

const t = useCompany({ name: 'E-faktura Sælger ApS', cvr: '12345674' });

const ubl = async (id: string, document?: 'credit_note') => {
  const r = await t.raw.get(`/invoices/${id}/ubl${document ? `?document=${document}` : ''}`);
  expect(r.status, r.text.slice(0, 300)).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^application\/xml/);
  return r.text;
};

async function customer(body: Record<string, unknown>) {
  return (await created(t.api.POST('/customers', { params: idem(), body: { name: 'Kunde', ...body } as { name: string } }))).data.id;
}

async function invoice(customer_id: string, lines: object[], extra: object = {}) {
  const body = { customer_id, issue_date: '2026-11-20', due_date: '2026-12-04', auto_approve: true, lines, ...extra };
  return (await created(t.api.POST('/invoices', { params: idem(), body: body as never }))).data.id;
}

describe('invoices as Peppol BIS Billing 3.0 UBL', () => {
  it('are valid in every shape: 25 %, exempt, EU reverse charge, export, mixed rates, fractions, long texts, EUR, a discount line, an FI payment id, a credit note', async () => {
    await ok(
      t.api.PUT('/settings/company', {
        body: { address_line1: 'Vestergade 12', postal_code: '8000', city: 'Aarhus C', email: 'faktura@saelger.dk', iban: 'DK5000400440116243' },
      }),
    );
    await ok(t.api.PUT('/exchange-rates', { body: { rates: [{ currency: 'EUR', date: '2026-11-20', rate: 7.4612 }] } }));
    const dk = await customer({ cvr: '29190925', address_line1: 'Nørregade 7', postal_code: '1165', city: 'København K' });
    const ean = await customer({ cvr: '29190925', ean: '5790000436101', name: 'Region Midtjylland' });
    const de = await customer({ vat_number: 'DE136695976', country: 'DE', city: 'Berlin', postal_code: '10115' });
    const registered = await customer({ cvr: '29190925', peppol_id: '0088:5790000436101', name: 'Registreret i NemHandel' });
    const se = await customer({ vat_number: 'SE556188840401', country: 'SE', city: 'Malmö', postal_code: '21119' });
    const long = 'Konsulentbistand vedrørende implementering af e-fakturering, '.repeat(6).trim();
    const shapes: [string, string][] = [
      ['25 %', await invoice(dk, [{ description: 'Skruer', quantity: 3, unit_price: 19.96 }])],
      [
        'exempt and 0 %',
        await invoice(dk, [
          { description: 'Kursus', quantity: 1, unit_price: 1000, vat_code: 'SMF' },
          { description: 'Gebyr', quantity: 1, unit_price: 50, vat_rate: 0 },
        ]),
      ],
      [
        'mixed rates, fractions, a discount',
        await invoice(ean, [
          { description: 'Timer', quantity: 7.5, unit_price: 850 },
          { description: 'Kilometer', quantity: 12.345, unit_price: 3.52 },
          { description: 'Momsfri', quantity: 1.5, unit_price: 10.1, vat_rate: 0 },
          { description: 'Rabat', quantity: 1, unit_price: -250 },
        ]),
      ],
      [
        'discounts and units',
        await invoice(dk, [
          { description: 'Konsulenttimer', quantity: 7.5, unit: 'HUR', unit_price: 850, discount_percent: 10 },
          { description: 'Kabel', quantity: 12.5, unit: 'MTR', unit_price: 19.99, discount_percent: 12.5 },
          { description: 'Kursus', quantity: 1, unit_price: 999.99, discount_percent: 33.33, vat_code: 'SMF' },
        ]),
      ],
      ['long text', await invoice(dk, [{ description: long.slice(0, 500), quantity: 1, unit_price: 99.95 }], { notes: long })],
      [
        'EU goods and services (K, AE)',
        await invoice(de, [
          { description: 'Varer', quantity: 10, unit_price: 45.5, vat_code: 'SEUV' },
          { description: 'Montage', quantity: 2, unit_price: 600, vat_code: 'SEUY' },
        ]),
      ],
      ['EUR', await invoice(de, [{ description: 'Varer', quantity: 3, unit_price: 33.33, vat_code: 'SEUV' }], { currency: 'EUR' })],
      ['EUR with Danish VAT', await invoice(dk, [{ description: 'Rådgivning', quantity: 3, unit_price: 33.33 }], { currency: 'EUR' })],
      ['export (G)', await invoice(se, [{ description: 'Software', quantity: 1, unit_price: 5000, vat_code: 'SEXP' }])],
      ['a buyer with its own peppol_id', await invoice(registered, [{ description: 'Ydelse', quantity: 1, unit_price: 100 }])],
      ['§ 46 reverse charge (AE)', await invoice(dk, [{ description: 'Tømrerarbejde', quantity: 40, unit_price: 450, vat_code: 'SOMV' }])],
    ];
    // Approved once the company has an FI creditor number (the shapes above have none): paid by FIK only.
    await ok(t.api.PUT('/settings/company', { body: { fi_creditor_number: '81234567' } }));
    shapes.push(['with an FI payment id', await invoice(dk, [{ description: 'Skruer', quantity: 3, unit_price: 19.96 }])]);
    const cancelled = await invoice(dk, [{ description: 'Forkert', quantity: 1, unit_price: 500 }]);
    await ok(t.api.PUT('/invoices/{id}/status', { params: { path: { id: cancelled } }, body: { status: 'cancelled' } }));
    const documents: [string, string][] = [
      ...(await Promise.all(shapes.map(async ([what, id]) => [what, await ubl(id)] as [string, string]))),
      ['credit note', await ubl(cancelled, 'credit_note')],
    ];
    for (const [what, xml] of documents) {
      const result = await validateEinvoice(xml);
      expect(result.fatal, `${what}: ${JSON.stringify(result.fatal)}`).toEqual([]);
    }
    const credit = documents.at(-1)![1];
    // The buyer's own Peppol id wins over the one its CVR would give; the seller is 0184:CVR (no peppol_id set).
    const own = documents.find(([what]) => what === 'a buyer with its own peppol_id')![1];
    expect(own).toContain('<cac:AccountingCustomerParty><cac:Party><cbc:EndpointID schemeID="0088">5790000436101</cbc:EndpointID>');
    expect(own).toContain('<cac:AccountingSupplierParty><cac:Party><cbc:EndpointID schemeID="0184">12345674</cbc:EndpointID>');
    expect(credit).toMatch(/^<\?xml[^>]*\?><CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"/);
    const fi = documents.find(([what]) => what === 'with an FI payment id')![1];
    expect(fi).toMatch(
      /<cac:PaymentMeans><cbc:PaymentMeansCode>93<\/cbc:PaymentMeansCode><cbc:PaymentID>71#\d{15}<\/cbc:PaymentID><cac:PayeeFinancialAccount><cbc:ID>81234567<\/cbc:ID><\/cac:PayeeFinancialAccount><\/cac:PaymentMeans><cac:PaymentTerms>/,
    );
    // UBL allows one payment means code and one PaymentID per invoice (UBL-SR-44, UBL-SR-47): the IBAN's 58 gives way.
    expect(fi).not.toContain('<cbc:PaymentMeansCode>58<');
    for (const [what, xml] of documents.filter(([what]) => what !== 'with an FI payment id')) expect(xml, what).not.toContain('<cbc:PaymentMeansCode>93<');
    // A discount is the line's allowance (BG-27), in the line's unit: 7.5 HUR × 850 = 6375.00 less 10 % = 5737.50.
    expect(documents.find(([what]) => what === 'discounts and units')![1]).toContain(
      '<cbc:InvoicedQuantity unitCode="HUR">7.5</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="DKK">5737.50</cbc:LineExtensionAmount><cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator><cbc:AllowanceChargeReasonCode>95</cbc:AllowanceChargeReasonCode><cbc:AllowanceChargeReason>Rabat</cbc:AllowanceChargeReason><cbc:MultiplierFactorNumeric>10</cbc:MultiplierFactorNumeric><cbc:Amount currencyID="DKK">637.50</cbc:Amount><cbc:BaseAmount currencyID="DKK">6375.00</cbc:BaseAmount></cac:AllowanceCharge>',
    );
    const eur = documents.find(([what]) => what === 'EUR with Danish VAT')![1];
    // 99.99 EUR + 25.00 VAT; the VAT in DKK at 7.4612 = 186.53.
    expect(eur).toContain('<cbc:TaxCurrencyCode>DKK</cbc:TaxCurrencyCode>');
    expect(eur).toContain('<cbc:TaxAmount currencyID="DKK">186.53</cbc:TaxAmount>');
    expect(eur).toContain('<cbc:EmbeddedDocumentBinaryObject mimeCode="application/pdf"');
  }, 120_000);

  it('refuses a draft and a buyer that cannot be addressed, by name', async () => {
    const nobody = await customer({ name: 'Anonym kunde' });
    const draft = (
      await created(
        t.api.POST('/invoices', {
          params: idem(),
          body: { customer_id: nobody, issue_date: '2026-11-20', due_date: '2026-11-20', lines: [{ description: 'x', quantity: 1, unit_price: 1 }] },
        }),
      )
    ).data.id;
    const r1 = await t.raw.get(`/invoices/${draft}/ubl`);
    expect([r1.status, r1.body.code]).toEqual([409, 'invoice_not_approved']);
    await ok(t.api.PUT('/invoices/{id}/status', { params: { path: { id: draft } }, body: { status: 'approved' } }));
    const r2 = await t.raw.get(`/invoices/${draft}/ubl`);
    expect([r2.status, r2.body.code, r2.body.field]).toEqual([422, 'einvoice_party_unaddressable', 'customer_id']);
  });
});
