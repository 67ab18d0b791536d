// Every shape of invoice the API can make, as OIOUBL 2.1 (GET /invoices/{id}/ubl?format=oioubl), checked by
// the official OIOUBL schematron (package 1.17.2, as the Danish Business Authority publishes it, run by the
// validation pool, validate.ts): no <Error> on any of them, and a wrong total is caught.
import { extractText, getDocumentProxy } from 'unpdf';
import { describe, expect, it } from 'vitest';
import { created, idem, ok, useCompany } from './helpers.ts';
import { validateEinvoice } from '@tlr/domain';

/** The <Error>s the official OIOUBL schematron (package 1.17.2, the validation pool's OIOUBL rule sets) reports on a document. */
const oioublErrors = async (xml: string) =>
  (await validateEinvoice(xml, /^<\?xml[^>]*\?><CreditNote[\s>]/.test(xml) ? 'oioubl-credit-note' : 'oioubl-invoice')).fatal;

const t = useCompany({ name: 'OIOUBL Sælger ApS', cvr: '12345674' });

const oioubl = async (id: string, document?: 'credit_note') => {
  const r = await t.raw.get(`/invoices/${id}/ubl?format=oioubl${document ? `&document=${document}` : ''}`);
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

const amount = (xml: string, element: string) =>
  new RegExp(`<cbc:${element} currencyID="[A-Z]{3}">([^<]+)<`).exec(xml.slice(xml.indexOf('<cac:LegalMonetaryTotal>')))?.[1];

describe('invoices as OIOUBL 2.1', () => {
  it('are valid under the official OIOUBL schematron in every shape, with OIOUBL totals; a wrong total is caught (F-INV133)', async () => {
    // Bank transfer: the company's Danish account (reg. no. and account number), no IBAN.
    await ok(
      t.api.PUT('/settings/company', {
        body: {
          address_line1: 'Vestergade 12',
          postal_code: '8000',
          city: 'Aarhus C',
          email: 'faktura@saelger.dk',
          bank_reg_number: '1234',
          bank_account_number: '0001234567',
        },
      }),
    );
    await ok(t.api.PUT('/exchange-rates', { body: { rates: [{ currency: 'EUR', date: '2026-11-20', rate: 7.4612 }] } }));
    const dk = await customer({ cvr: '29190925', address_line1: 'Nørregade 7', postal_code: '1165', city: 'København K' });
    const ean = await customer({ cvr: '29190925', ean: '5790000436101', name: 'Region Midtjylland' });
    const de = await customer({ vat_number: 'DE136695976', country: 'DE', city: 'Berlin', postal_code: '10115' });
    const registered = await customer({ cvr: '29190925', peppol_id: '0088:5790000436101', name: 'Registreret i NemHandel' });
    const se = await customer({ vat_number: 'SE556188840401', country: 'SE', city: 'Malmö', postal_code: '21119' });
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
        'mixed rates, fractions, a discount line, to an EAN',
        await invoice(ean, [
          { description: 'Timer', quantity: 7.5, unit_price: 850 },
          { description: 'Kilometer', quantity: 12.345, unit_price: 3.52 },
          { description: 'Momsfri', quantity: 1.5, unit_price: 10.1, vat_rate: 0 },
          { description: 'Rabat', quantity: 1, unit_price: -250 },
        ]),
      ],
      [
        'EU goods and services',
        await invoice(de, [
          { description: 'Varer', quantity: 10, unit_price: 45.5, vat_code: 'SEUV' },
          { description: 'Montage', quantity: 2, unit_price: 600, vat_code: 'SEUY' },
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
      ['EUR', await invoice(de, [{ description: 'Varer', quantity: 3, unit_price: 33.33, vat_code: 'SEUV' }], { currency: 'EUR' })],
      ['EUR with Danish VAT', await invoice(dk, [{ description: 'Rådgivning', quantity: 3, unit_price: 33.33 }], { currency: 'EUR' })],
      ['export', await invoice(se, [{ description: 'Software', quantity: 1, unit_price: 5000, vat_code: 'SEXP' }])],
      ['a buyer with its own peppol_id', await invoice(registered, [{ description: 'Ydelse', quantity: 1, unit_price: 100 }])],
      ['§ 46 reverse charge', await invoice(dk, [{ description: 'Tømrerarbejde', quantity: 40, unit_price: 450, vat_code: 'SOMV' }])],
      [
        'accrued lines',
        await invoice(dk, [
          { description: 'Serviceaftale 2026/27', quantity: 1, unit_price: 12000, accrual: { from: '2026-07', to: '2027-06' } },
          { description: 'Opstart', quantity: 1, unit_price: 500 },
          { description: 'Support december', quantity: 1, unit_price: 300, accrual: { from: '2026-12', to: '2026-12' } },
        ]),
      ],
    ];
    // Approved once the company has an FI creditor number: paid by FIK (+71).
    await ok(t.api.PUT('/settings/company', { body: { fi_creditor_number: '81234567' } }));
    shapes.push(['with an FI payment id', await invoice(dk, [{ description: 'Skruer', quantity: 3, unit_price: 19.96 }])]);
    const cancelled = await invoice(dk, [{ description: 'Forkert', quantity: 2, unit_price: 500 }]);
    await ok(t.api.PUT('/invoices/{id}/status', { params: { path: { id: cancelled } }, body: { status: 'cancelled' } }));
    const documents: [string, string][] = [
      ...(await Promise.all(shapes.map(async ([what, id]) => [what, await oioubl(id)] as [string, string]))),
      ['credit note', await oioubl(cancelled, 'credit_note')],
    ];
    for (const [what, xml] of documents) {
      expect(xml, what).toContain('<cbc:CustomizationID>OIOUBL-2.1</cbc:CustomizationID>');
      expect(await oioublErrors(xml), what).toEqual([]);
    }
    const doc = (name: string) => documents.find(([what]) => what === name)![1];
    // OIOUBL's totals: TaxExclusiveAmount is the VAT. 3 × 19.96 = 59.88, VAT 14.97.
    expect([amount(doc('25 %'), 'LineExtensionAmount'), amount(doc('25 %'), 'TaxExclusiveAmount'), amount(doc('25 %'), 'PayableAmount')]).toEqual([
      '59.88',
      '14.97',
      '74.85',
    ]);
    expect(doc('25 %')).toContain('<cbc:PaymentMeansCode>42</cbc:PaymentMeansCode>');
    expect(doc('25 %')).toContain('>DK:BANK</cbc:PaymentChannelCode><cac:PayeeFinancialAccount><cbc:ID>0001234567</cbc:ID>');
    expect(doc('a buyer with its own peppol_id')).toContain(
      '<cac:AccountingCustomerParty><cac:Party><cbc:EndpointID schemeAgencyID="9" schemeID="GLN">5790000436101</cbc:EndpointID>',
    );
    expect(doc('25 %')).toContain('<cac:AccountingSupplierParty><cac:Party><cbc:EndpointID schemeID="DK:CVR">DK12345674</cbc:EndpointID>');
    expect(doc('EU goods and services')).toContain('<cbc:EndpointID schemeID="DE:VAT">DE136695976</cbc:EndpointID>');
    expect(doc('EU goods and services')).toContain('>ReverseCharge</cbc:ID>');
    expect(doc('exempt and 0 %')).toContain('>ZeroRated</cbc:ID>');
    expect(doc('with an FI payment id')).toMatch(
      /<cbc:PaymentMeansCode>93<\/cbc:PaymentMeansCode><cbc:PaymentDueDate>2026-12-04<\/cbc:PaymentDueDate><cbc:PaymentChannelCode[^>]*>DK:FIK<\/cbc:PaymentChannelCode><cbc:InstructionID>\d{15}<\/cbc:InstructionID><cbc:PaymentID[^>]*>71<\/cbc:PaymentID><cac:CreditAccount><cbc:AccountID>81234567<\/cbc:AccountID>/,
    );
    expect(doc('credit note')).toMatch(/^<\?xml[^>]*\?><CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"/);
    expect(amount(doc('credit note'), 'PayableAmount')).toBe('1250.00');
    // 99.99 EUR + 25.00 VAT; the VAT in DKK at 7.4612 = 186.53, as the Peppol document states it.
    expect(doc('EUR with Danish VAT')).toContain('<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode><cbc:TaxCurrencyCode>DKK</cbc:TaxCurrencyCode>');
    expect(doc('EUR with Danish VAT')).toContain('<cbc:TransactionCurrencyTaxAmount currencyID="DKK">186.53</cbc:TransactionCurrencyTaxAmount>');

    // A discount is the price's allowance, in the line's unit: 7.5 HUR × 850 less 10 % = 7.5 × 765 = 5737.50.
    expect(doc('discounts and units')).toContain(
      '<cbc:InvoicedQuantity unitCode="HUR">7.5</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="DKK">5737.50<',
    );
    expect(doc('discounts and units')).toContain(
      '<cac:Price><cbc:PriceAmount currencyID="DKK">765.00</cbc:PriceAmount><cbc:BaseQuantity unitCode="HUR">1</cbc:BaseQuantity><cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator><cbc:AllowanceChargeReason>Rabat</cbc:AllowanceChargeReason><cbc:MultiplierFactorNumeric>0.1</cbc:MultiplierFactorNumeric><cbc:Amount currencyID="DKK">85.00</cbc:Amount><cbc:BaseAmount currencyID="DKK">850.00</cbc:BaseAmount></cac:AllowanceCharge></cac:Price>',
    );

    // An accrued line's months are its InvoicePeriod (decision 879): the first day of `from` to the last of `to`,
    // after its LineExtensionAmount; the line not accrued has none. The same in the Peppol document, valid there too.
    const period = (start: string, end: string) =>
      `<cac:InvoicePeriod><cbc:StartDate>${start}</cbc:StartDate><cbc:EndDate>${end}</cbc:EndDate></cac:InvoicePeriod>`;
    const accruedId = shapes.find(([what]) => what === 'accrued lines')![1];
    const peppol = (await t.raw.get(`/invoices/${accruedId}/ubl`)).text;
    expect((await validateEinvoice(peppol)).fatal).toEqual([]);
    for (const xml of [doc('accrued lines'), peppol]) {
      expect(xml).toContain(`<cbc:LineExtensionAmount currencyID="DKK">12000.00</cbc:LineExtensionAmount>${period('2026-07-01', '2027-06-30')}`);
      expect(xml).toContain(`<cbc:LineExtensionAmount currencyID="DKK">300.00</cbc:LineExtensionAmount>${period('2026-12-01', '2026-12-31')}`);
      expect(xml.split('<cac:InvoicePeriod>')).toHaveLength(3);
    }
    // The PDF names the months under the line's text.
    const pdf = await t.api.GET('/invoices/{id}/pdf', { params: { path: { id: accruedId } }, parseAs: 'arrayBuffer' });
    const text = (await extractText(await getDocumentProxy(new Uint8Array(pdf.data!)), { mergePages: true })).text;
    expect(text).toContain('Periode: juli 2026 – juni 2027');
    expect(text).toContain('Periode: december 2026');
    expect(text.match(/Periode:/g)).toHaveLength(2);

    // A deliberately wrong total: the rules catch it.
    const wrong = doc('25 %').replace('<cbc:PayableAmount currencyID="DKK">74.85<', '<cbc:PayableAmount currencyID="DKK">75.85<');
    expect(wrong).not.toBe(doc('25 %'));
    expect((await oioublErrors(wrong)).map((e) => e.id)).toContain('F-INV133');
  }, 600_000);

  it('peppol stays the default, and an unknown format is a 400 naming the field', async () => {
    const dk = await customer({ cvr: '29190925' });
    const id = await invoice(dk, [{ description: 'Skruer', quantity: 1, unit_price: 10 }]);
    const peppol = await t.raw.get(`/invoices/${id}/ubl`);
    expect(peppol.text).toContain('urn:fdc:peppol.eu:2017:poacc:billing:3.0');
    expect((await t.raw.get(`/invoices/${id}/ubl?format=peppol`)).text).toContain('urn:fdc:peppol.eu:2017:poacc:billing:3.0');
    const bad = await t.raw.get(`/invoices/${id}/ubl?format=xrechnung`);
    expect([bad.status, bad.body.field]).toEqual([400, 'format']);
  });
});

describe('invoice lines with a unit and a discount', () => {
  it('compute the amount less the discount, show both in the response and the PDF, and refuse a unit or discount out of range by field', async () => {
    const dk = await customer({ cvr: '29190925' });
    const { data } = await created(
      t.api.POST('/invoices', {
        params: idem(),
        body: {
          customer_id: dk,
          issue_date: '2026-11-20',
          due_date: '2026-12-04',
          lines: [
            { description: 'Timer', quantity: 7.5, unit: 'hur', unit_price: 850, discount_percent: 10 },
            { description: 'Skruer', quantity: 3, unit_price: 19.96 },
            { description: 'Kabel', quantity: 3, unit: 'MTR', unit_price: 0.55, discount_percent: 50 },
          ],
        },
      }),
    );
    // 6375.00 - 637.50 = 5737.50; 59.88; 1.65 - 0.83 (0.825 rounded half up) = 0.82. VAT 25 % of 5798.20 = 1449.55.
    expect([data.subtotal, data.vat_amount, data.total]).toEqual([5798.2, 1449.55, 7247.75]);
    const full = (await ok(t.api.GET('/invoices/{id}', { params: { path: { id: data.id } } }))).data;
    expect(full.lines.map((l) => [l.unit, l.discount_percent, l.amount])).toEqual([
      ['HUR', 10, 5737.5],
      ['C62', 0, 59.88],
      ['MTR', 50, 0.82],
    ]);
    await ok(t.api.PUT('/invoices/{id}/status', { params: { path: { id: data.id } }, body: { status: 'approved' } }));
    const pdf = await t.api.GET('/invoices/{id}/pdf', { params: { path: { id: data.id } }, parseAs: 'arrayBuffer' });
    const text = (await extractText(await getDocumentProxy(new Uint8Array(pdf.data!)), { mergePages: true })).text;
    expect(text).toContain('Rabat 10 %');
    expect(text).toContain('7,5 t');
    expect(text).toContain('5.737,50');
    for (const [line, field, detail] of [
      [{ unit: 'XYZ' }, 'lines[0].unit', 'UN/ECE'],
      [{ discount_percent: 100 }, 'lines[0].discount_percent', 'less than 100'],
      [{ discount_percent: -1 }, 'lines[0].discount_percent', '0 to 100'],
    ] as const) {
      const r = await t.raw.post('/invoices', {
        customer_id: dk,
        issue_date: '2026-11-20',
        due_date: '2026-12-04',
        lines: [{ description: 'x', quantity: 1, unit_price: 1, ...line }],
      });
      expect([r.status, r.body.field], JSON.stringify(r.body)).toEqual([400, field]);
      expect(JSON.stringify(r.body)).toContain(detail);
    }
  });
});

describe("a customer's einvoice_format", () => {
  it('is peppol unless set; oioubl sends OIOUBL 2.1, auto sends Peppol while the transport reports nothing of receivers (no registry file); anything else is a 400 naming the field', async () => {
    await ok(t.api.PUT('/settings/company', { body: { bank_reg_number: '1234', bank_account_number: '0001234567' } }));
    const make = async (body: Record<string, unknown>) => (await created(t.api.POST('/customers', { params: idem(), body: body as { name: string } }))).data;
    const plain = await make({ name: 'Peppol kunde', cvr: '29190925', peppol_id: '0184:29190925' });
    expect(plain.einvoice_format).toBe('peppol');
    const nemhandel = await make({ name: 'NemHandel kunde', ean: '5790000436101', peppol_id: '0088:5790000436101', einvoice_format: 'oioubl' });
    expect(nemhandel.einvoice_format).toBe('oioubl');
    const auto = await make({ name: 'Auto kunde', cvr: '29190925', peppol_id: '0184:29190925', einvoice_format: 'auto' });
    const sent = async (customerId: string) => {
      const id = await invoice(customerId, [{ description: 'Timer', quantity: 2, unit: 'HUR', unit_price: 500, discount_percent: 5 }]);
      const r = await t.raw.post(`/invoices/${id}/send`, { channel: 'peppol' });
      expect(r.status, r.text).toBe(202);
      const message = (r.body as unknown as { data: { id: string; document_format: string } }).data;
      const xml = await t.raw.get(`/einvoices/${message.id}/xml`);
      return { format: message.document_format, xml: xml.text };
    };
    const oioublSent = await sent(nemhandel.id);
    expect(oioublSent.format).toBe('oioubl-2.1');
    expect(oioublSent.xml).toContain('<cbc:CustomizationID>OIOUBL-2.1</cbc:CustomizationID>');
    expect(await oioublErrors(oioublSent.xml)).toEqual([]);
    for (const customerId of [plain.id, auto.id]) {
      const peppol = await sent(customerId);
      expect(peppol.format).toBe('peppol-bis3');
      expect(peppol.xml).toContain('urn:fdc:peppol.eu:2017:poacc:billing:3.0');
    }
    const bad = await t.raw.put(`/customers/${plain.id}`, { einvoice_format: 'xrechnung' });
    expect([bad.status, bad.body.field]).toEqual([400, 'einvoice_format']);
    const changed = await t.raw.put(`/customers/${plain.id}`, { einvoice_format: 'oioubl' });
    expect([changed.status, (changed.body as unknown as { data: { einvoice_format: string } }).data.einvoice_format]).toEqual([200, 'oioubl']);
  }, 300_000);
});
