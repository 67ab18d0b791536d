// The OIOUBL writer's choices that the integration test's company does not show: the bank account a
// Danish IBAN holds, a foreign IBAN alone (no payment means: OIOUBL's IBAN channel needs a BIC), and the
// OIOUBL schemes of Peppol ids. Validity under the official schematron: apps/server/test/einvoice-oioubl.test.ts.
import { describe, expect, it } from 'vitest';
import { Decimal } from '../money.ts';
import { oioublEndpoint, oioublXml } from './oioubl.ts';
import type { UblDocument } from './ubl.ts';

const party = (name: string, cvr: string) => ({
  name,
  street: 'Vestergade 12',
  additionalStreet: '',
  city: 'Aarhus C',
  postalCode: '8000',
  country: 'DK',
  cvr,
  vatNumber: `DK${cvr}`,
  endpoint: `0184:${cvr}`,
  email: '',
});
const document = (bank: UblDocument['bank']): UblDocument => ({
  kind: 'invoice',
  uuid: '01a21ce8-a3a9-7b12-a213-50d9dcada53e',
  number: '17',
  issueDate: '2026-11-20',
  dueDate: '2026-12-04',
  credits: null,
  currency: 'DKK',
  rate: new Decimal(1),
  note: '',
  buyerReference: '17',
  seller: party('Sælger ApS', '12345674'),
  buyer: party('Køber ApS', '29190925'),
  lines: [
    {
      description: 'Skruer',
      quantity: new Decimal(3),
      unitPrice: new Decimal('19.96'),
      amount: new Decimal('59.88'),
      vatCode: 'S25',
      vatRate: new Decimal(25),
      unit: 'C62',
      discountPercent: new Decimal(0),
    },
  ],
  bank,
  fi: null,
  paymentTermsDays: 14,
  pdf: null,
});

describe('oioublXml payment means', () => {
  it('pays a Danish IBAN as the Danish account it holds (42, DK:BANK), and names none for a foreign IBAN alone', () => {
    const xml = oioublXml(document({ regNumber: '', accountNumber: '', iban: 'DK5000400440116243' }));
    expect(xml).toContain(
      '<cbc:PaymentChannelCode listAgencyID="320" listID="urn:oioubl:codelist:paymentchannelcode-1.1">DK:BANK</cbc:PaymentChannelCode><cac:PayeeFinancialAccount><cbc:ID>0440116243</cbc:ID><cbc:PaymentNote>17</cbc:PaymentNote><cac:FinancialInstitutionBranch><cbc:ID>0040</cbc:ID>',
    );
    expect(oioublXml(document({ regNumber: '', accountNumber: '', iban: 'DE89370400440532013000' }))).not.toContain('<cac:PaymentMeans>');
  });
});

describe('oioublEndpoint', () => {
  it("names each Peppol scheme in OIOUBL's", () => {
    expect(oioublEndpoint('0088:5790000436101')).toEqual({ schemeID: 'GLN', schemeAgencyID: '9', id: '5790000436101' });
    expect(oioublEndpoint('0184:12345674')).toEqual({ schemeID: 'DK:CVR', id: 'DK12345674' });
    expect(oioublEndpoint('0198:DK12345674')).toEqual({ schemeID: 'DK:SE', id: 'DK12345674' });
    expect(oioublEndpoint('9930:DE136695976')).toEqual({ schemeID: 'DE:VAT', id: 'DE136695976' });
    expect(oioublEndpoint('0007:2120000787')).toEqual({ schemeID: 'SE:ORGNR', id: '2120000787' });
  });
});
