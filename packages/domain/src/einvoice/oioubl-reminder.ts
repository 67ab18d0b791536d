// A payment reminder (rykker) as an OIOUBL 2.1 Reminder: the reminder of an invoice that was sent as
// OIOUBL goes the same way (decision 695). The parties and the payment means are the invoice's own, as
// oioubl.ts writes them; the invoice's open balance is the reminder's line, referring to the invoice by
// number and UUID; the fee and the interest are the reminder's charges (PenaltyFee, PenaltyRate), without
// VAT (ZeroRated: compensation, not a supply, decision 290); the unpaid charges of the reminders before
// it are a line each, referring to those reminders. "Valid" is what the official OIOUBL schematron's
// Reminder stylesheet (package 1.17.2) says, not this file.
import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';
import { DomainError } from '../errors.ts';
import { Decimal, sumAmounts } from '../money.ts';
import { OIOUBL_NS as NS, OIOUBL_TAX_CATEGORY, oioublAmount as money, oioublParts } from './oioubl.ts';
import type { UblDocument } from './ubl.ts';

const REMINDER_NS = 'urn:oasis:names:specification:ubl:schema:xsd:Reminder-2';
/** OIOUBL's basic billing profile (profileid-1.2), which carries the reminder beside the invoice. */
const PROFILE = { schemeAgencyID: '320', schemeID: 'urn:oioubl:id:profileid-1.2' };
const PROFILE_ID = 'Procurement-BilSim-1.0';
const REASON = { listAgencyID: '320', listID: 'urn:oioubl:codelist:reminderallowancechargereasoncode-1.0' };

/** What a reminder says, as issued (invoices/send-reminders.ts stores it so). */
export interface OioublReminder {
  /** The reminder's id: its UUID. */
  id: string;
  /** 1, 2 or 3. */
  number: number;
  /** The reminder's date, YYYY-MM-DD. */
  date: string;
  /** The invoice's balance due on the reminder, in the invoice's currency. */
  balance: Decimal;
  /** This reminder's fee and interest, in DKK. */
  fee: Decimal;
  interest: Decimal;
  /** The reminders before it whose fee or interest is still claimed: their number, date and charges (DKK). */
  earlier: { id: string; number: number; date: string; charges: Decimal }[];
}

/** A reminder's own document number: the invoice's number and the reminder's (1042-R2). */
export const reminderDocumentNumber = (invoiceNumber: string, number: number) => `${invoiceNumber}-R${number}`;

function zeroRated(parent: XMLBuilder, withPercent: boolean) {
  const c = parent.ele(NS.cac, 'cac:TaxCategory');
  c.ele(NS.cbc, 'cbc:ID', OIOUBL_TAX_CATEGORY).txt('ZeroRated');
  if (withPercent) c.ele(NS.cbc, 'cbc:Percent').txt('0');
  oioublParts.taxScheme(c);
}

/**
 * The reminder `r` of the invoice `d` (the invoice's document as the writers read it, ubl.ts) as an
 * OIOUBL 2.1 Reminder. The fee and interest are DKK: a reminder of an invoice in another currency that
 * charges any is not one document's currency, and is refused (the caller sends none, decision 697).
 */
export function oioublReminderXml(d: UblDocument, r: OioublReminder): string {
  const charges = [
    { reason: 'PenaltyFee', amount: r.fee },
    { reason: 'PenaltyRate', amount: r.interest },
  ].filter((c) => c.amount.greaterThan(0));
  const earlier = r.earlier.filter((e) => e.charges.greaterThan(0));
  if (d.currency !== 'DKK' && (charges.length || earlier.length)) {
    throw new Error(`The reminder charges DKK on an invoice in ${d.currency}: an OIOUBL Reminder states one currency (its caller sends none).`);
  }
  const seller = oioublParts.partyEndpoint(d.seller);
  const buyer = oioublParts.partyEndpoint(d.buyer);
  if (!seller || !buyer) throw new DomainError('einvoice_party_unaddressable', 'The invoice names a party that OIOUBL cannot address.');
  const cur = { currencyID: d.currency };
  const doc = create({ version: '1.0', encoding: 'UTF-8' }).ele(REMINDER_NS, 'Reminder').att('xmlns:cac', NS.cac).att('xmlns:cbc', NS.cbc);
  doc.ele(NS.cbc, 'cbc:UBLVersionID').txt('2.1');
  doc.ele(NS.cbc, 'cbc:CustomizationID').txt('OIOUBL-2.1');
  doc.ele(NS.cbc, 'cbc:ProfileID', PROFILE).txt(PROFILE_ID);
  doc.ele(NS.cbc, 'cbc:ID').txt(reminderDocumentNumber(d.number, r.number));
  doc.ele(NS.cbc, 'cbc:CopyIndicator').txt('false');
  doc.ele(NS.cbc, 'cbc:UUID').txt(r.id);
  doc.ele(NS.cbc, 'cbc:IssueDate').txt(r.date);
  // Reminder: a demand for payment (Advis is a notice before the due date).
  doc.ele(NS.cbc, 'cbc:ReminderTypeCode', { listAgencyID: '320', listID: 'urn:oioubl:codelist:remindertypecode-1.1' }).txt('Reminder');
  doc.ele(NS.cbc, 'cbc:ReminderSequenceNumeric').txt(String(r.number));
  doc.ele(NS.cbc, 'cbc:Note').txt(`Rykker ${r.number} for faktura ${d.number}`);
  doc.ele(NS.cbc, 'cbc:DocumentCurrencyCode').txt(d.currency);
  doc.ele(NS.cbc, 'cbc:AccountingCost').txt(d.buyerReference);
  // Overdue from the invoice's due date to the reminder's.
  const period = doc.ele(NS.cac, 'cac:ReminderPeriod');
  period.ele(NS.cbc, 'cbc:StartDate').txt(d.dueDate);
  period.ele(NS.cbc, 'cbc:EndDate').txt(r.date);
  oioublParts.partyXml(doc.ele(NS.cac, 'cac:AccountingSupplierParty'), d.seller, seller);
  oioublParts.partyXml(doc.ele(NS.cac, 'cac:AccountingCustomerParty'), d.buyer, buyer, d.buyerReference);
  oioublParts.paymentMeans(doc, d);
  charges.forEach((c, i) => {
    const a = doc.ele(NS.cac, 'cac:AllowanceCharge');
    a.ele(NS.cbc, 'cbc:ID').txt(String(i + 1));
    a.ele(NS.cbc, 'cbc:ChargeIndicator').txt('true');
    a.ele(NS.cbc, 'cbc:AllowanceChargeReasonCode', REASON).txt(c.reason);
    a.ele(NS.cbc, 'cbc:Amount', cur).txt(money(c.amount));
    zeroRated(a, false);
  });
  const chargeTotal = sumAmounts(charges.map((c) => c.amount));
  const lineTotal = r.balance.plus(sumAmounts(earlier.map((e) => e.charges)));
  const total = doc.ele(NS.cac, 'cac:TaxTotal');
  total.ele(NS.cbc, 'cbc:TaxAmount', cur).txt(money(new Decimal(0)));
  // Always one VAT subtotal (F-LIB306), of the charges: 0.00 on 0.00 when there are none.
  const sub = total.ele(NS.cac, 'cac:TaxSubtotal');
  sub.ele(NS.cbc, 'cbc:TaxableAmount', cur).txt(money(chargeTotal));
  sub.ele(NS.cbc, 'cbc:TaxAmount', cur).txt(money(new Decimal(0)));
  zeroRated(sub, true);
  const monetary = doc.ele(NS.cac, 'cac:LegalMonetaryTotal');
  monetary.ele(NS.cbc, 'cbc:LineExtensionAmount', cur).txt(money(lineTotal));
  // OIOUBL's meaning, as on its invoices: TaxExclusiveAmount is the tax (none on a reminder).
  monetary.ele(NS.cbc, 'cbc:TaxExclusiveAmount', cur).txt(money(new Decimal(0)));
  monetary.ele(NS.cbc, 'cbc:TaxInclusiveAmount', cur).txt(money(lineTotal.plus(chargeTotal)));
  if (charges.length) monetary.ele(NS.cbc, 'cbc:ChargeTotalAmount', cur).txt(money(chargeTotal));
  monetary.ele(NS.cbc, 'cbc:PayableAmount', cur).txt(money(lineTotal.plus(chargeTotal)));
  const invoiceLine = doc.ele(NS.cac, 'cac:ReminderLine');
  invoiceLine.ele(NS.cbc, 'cbc:ID').txt('1');
  invoiceLine.ele(NS.cbc, 'cbc:Note').txt(`Faktura ${d.number}, forfalden ${d.dueDate}`);
  invoiceLine.ele(NS.cbc, 'cbc:DebitLineAmount', cur).txt(money(r.balance));
  const invoiceRef = invoiceLine.ele(NS.cac, 'cac:BillingReference').ele(NS.cac, 'cac:InvoiceDocumentReference');
  invoiceRef.ele(NS.cbc, 'cbc:ID').txt(d.number);
  invoiceRef.ele(NS.cbc, 'cbc:UUID').txt(d.uuid);
  invoiceRef.ele(NS.cbc, 'cbc:IssueDate').txt(d.issueDate);
  earlier.forEach((e, i) => {
    const line = doc.ele(NS.cac, 'cac:ReminderLine');
    line.ele(NS.cbc, 'cbc:ID').txt(String(i + 2));
    line.ele(NS.cbc, 'cbc:Note').txt(`Gebyr og renter, rykker ${e.number}`);
    line.ele(NS.cbc, 'cbc:DebitLineAmount', cur).txt(money(e.charges));
    const ref = line.ele(NS.cac, 'cac:BillingReference').ele(NS.cac, 'cac:ReminderDocumentReference');
    ref.ele(NS.cbc, 'cbc:ID').txt(reminderDocumentNumber(d.number, e.number));
    ref.ele(NS.cbc, 'cbc:UUID').txt(e.id);
    ref.ele(NS.cbc, 'cbc:IssueDate').txt(e.date);
  });
  return doc.end({ prettyPrint: false });
}
