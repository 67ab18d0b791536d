// The OIOUBL Reminder tlr writes, under the official OIOUBL schematron's Reminder stylesheet (package
// 1.17.2, run here as the validation pool's workers run it): no <Error> with a fee, interest and an earlier
// reminder's charges, nor without any charge; a deliberately wrong total is caught (F-REM085). Sent through
// the transport by HTTP: apps/server/test/einvoice-auto-format.test.ts.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../money.ts';
import { oioublReminderXml, type OioublReminder } from './oioubl-reminder.ts';
import type { UblDocument } from './ubl.ts';
import { validateEinvoiceHere } from './validate.ts';

const party = (name: string, cvr: string, endpoint: string) => ({
  name,
  street: 'Vestergade 12',
  additionalStreet: '',
  city: 'Aarhus C',
  postalCode: '8000',
  country: 'DK',
  cvr,
  vatNumber: `DK${cvr}`,
  endpoint,
  email: '',
});
const invoice: UblDocument = {
  kind: 'invoice',
  uuid: '01a21ce8-a3a9-7b12-a213-50d9dcada53e',
  number: '1042',
  issueDate: '2026-09-01',
  dueDate: '2026-09-15',
  credits: null,
  currency: 'DKK',
  rate: new Decimal(1),
  note: '',
  buyerReference: '1042',
  seller: party('Sælger ApS', '12345674', '0184:12345674'),
  buyer: party('Region Midtjylland', '29190925', '0088:5790000436101'),
  lines: [],
  bank: { regNumber: '1234', accountNumber: '0001234567', iban: '' },
  fi: null,
  paymentTermsDays: 14,
  pdf: null,
};
/** Decision 289's example: rykker 2 of a 10,000.00 invoice, 6,000.00 open, after rykker 1's 126.30. */
const second: OioublReminder = {
  id: '01a21ce8-a3a9-7b12-a213-50d9dcada600',
  number: 2,
  date: '2026-10-05',
  balance: new Decimal('6000.00'),
  fee: new Decimal('100.00'),
  interest: new Decimal('15.78'),
  earlier: [{ id: '01a21ce8-a3a9-7b12-a213-50d9dcada5ff', number: 1, date: '2026-09-25', charges: new Decimal('126.30') }],
};
const errors = async (xml: string) => (await validateEinvoiceHere(xml, 'oioubl-reminder')).fatal;
const amount = (xml: string, element: string) =>
  new RegExp(`<cbc:${element} currencyID="DKK">([^<]+)<`).exec(xml.slice(xml.indexOf('<cac:LegalMonetaryTotal>')))?.[1];

describe('oioublReminderXml', () => {
  // Loading SaxonJS and the Reminder rules: seconds of CPU, once.
  beforeAll(() => validateEinvoiceHere('<Reminder xmlns="urn:oasis:names:specification:ubl:schema:xsd:Reminder-2"/>', 'oioubl-reminder'), 600_000);

  it("the rules themselves: the package's own Reminder example passes", async () => {
    // The project's shared reference folder, beside the repository (as validate.test.ts reads it).
    const repo = join(import.meta.dirname, '..', '..', '..', '..');
    const reference = [join(repo, '..', 'shared', 'reference'), '/work/shared/reference'].find(existsSync) ?? join(repo, '..', 'shared', 'reference');
    const example = readFileSync(join(reference, 'einvoice', 'oioubl', 'examples', 'OIOUBL_Reminder_v2p2.xml'), 'utf8');
    expect(await errors(example)).toEqual([]);
  });

  it('writes a reminder the official OIOUBL Reminder rules accept, with the fee, the interest and the earlier charges', async () => {
    const xml = oioublReminderXml(invoice, second);
    expect(await errors(xml)).toEqual([]);
    expect(xml).toContain('<cbc:ID>1042-R2</cbc:ID>');
    expect(xml).toContain('>Reminder</cbc:ReminderTypeCode><cbc:ReminderSequenceNumeric>2</cbc:ReminderSequenceNumeric>');
    // 6,000.00 + 126.30 (rykker 1) + 100.00 + 15.78 = 6,242.08.
    expect([amount(xml, 'LineExtensionAmount'), amount(xml, 'ChargeTotalAmount'), amount(xml, 'PayableAmount')]).toEqual(['6126.30', '115.78', '6242.08']);
    expect(xml).toContain(
      '<cac:InvoiceDocumentReference><cbc:ID>1042</cbc:ID><cbc:UUID>01a21ce8-a3a9-7b12-a213-50d9dcada53e</cbc:UUID><cbc:IssueDate>2026-09-01</cbc:IssueDate>',
    );
  });

  it('writes one without charges (fees and interest off) that the rules accept', async () => {
    const xml = oioublReminderXml(invoice, { ...second, number: 1, fee: new Decimal(0), interest: new Decimal(0), earlier: [] });
    expect(await errors(xml)).toEqual([]);
    expect(amount(xml, 'PayableAmount')).toBe('6000.00');
  });

  it('a deliberately wrong total is caught by the rules (F-REM085)', async () => {
    const xml = oioublReminderXml(invoice, second).replace('<cbc:PayableAmount currencyID="DKK">6242.08<', '<cbc:PayableAmount currencyID="DKK">6342.08<');
    expect((await errors(xml)).map((e) => e.id)).toContain('F-REM085');
  });
});
