// A payment reminder (rykker) as a Danish PDF: "Rykker 1/2/3", the invoice it is about (number, dates,
// original amount, paid, balance), the fee and the interest (rate and days) it charges, the fees and
// interest of earlier reminders, the total to pay, and where to pay (bank details, the FI payment line).
// The seller, the parties' layout and the Danish number format are the invoice PDF's (pdf.ts). The
// amounts are the reminder's as issued, so the document reads the same whenever it is made.
import type { Db } from '@tlr/db';
import { fromDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { fiPaymentLine } from '../identifiers/fi-payment.ts';
import { notFound } from '../errors.ts';
import { Decimal } from '../money.ts';
import {
  A4,
  addressLines,
  bankDetails,
  BOLD,
  danishDate,
  decimalComma,
  drawParty,
  FONT,
  GREY,
  kroner,
  M,
  sellerParty,
  startPdf,
  type Party,
  type Seller,
} from './pdf.ts';
import { reminderByNumber } from './send-reminders.ts';

export interface ReminderDocument {
  number: number;
  date: string;
  seller: Seller;
  buyer: Party;
  invoice: { number: string; issue_date: string; due_date: string; currency: string; total: string; paid: string; balance: string };
  /** DKK, as strings with two decimals. */
  fee: string;
  interest: string;
  /** Percent a year and days charged; null when no interest. */
  interest_rate: string | null;
  interest_days: number;
  /** The fees and interest of the earlier reminders, DKK. */
  earlier_charges: string;
  fi_payment_line: string;
  filename: string;
}

/** What the PDF of reminder `number` of an invoice shows (404 for an invoice or reminder that is not there). */
export async function reminderDocument(db: Db, scope: CompanyScope, invoiceId: string, number: number): Promise<ReminderDocument> {
  const { row, earlier } = await reminderByNumber(db, scope, invoiceId, number);
  const invoice = await db.invoice.findFirst({ where: { id: invoiceId, company_id: scope.companyId } });
  if (!invoice) throw notFound('invoice', invoiceId);
  const company = await db.company.findUniqueOrThrow({ where: { id: scope.companyId } });
  const total = new Decimal(invoice.total.toString());
  const balance = new Decimal(row.balance_due.toString());
  const earlierCharges = earlier.reduce((sum, r) => sum.plus(r.fee.toString()).plus(r.interest.toString()), new Decimal(0));
  return {
    number: row.number,
    date: fromDate(row.date),
    seller: sellerParty(company),
    // The buyer frozen at approval: only an approved invoice takes a reminder.
    buyer: {
      name: invoice.customer_name,
      address: addressLines(
        invoice.customer_address_line1,
        invoice.customer_address_line2,
        invoice.customer_postal_code,
        invoice.customer_city,
        invoice.customer_country,
      ),
      cvr: invoice.customer_cvr,
      vat_number: invoice.customer_vat_number,
      ean: invoice.customer_ean,
    },
    invoice: {
      number: invoice.invoice_number,
      issue_date: fromDate(invoice.issue_date),
      due_date: fromDate(invoice.due_date),
      currency: invoice.currency,
      total: total.toFixed(2),
      paid: total.minus(balance).toFixed(2),
      balance: balance.toFixed(2),
    },
    fee: row.fee.toFixed(2),
    interest: row.interest.toFixed(2),
    interest_rate: row.rate === null ? null : row.rate.toFixed(2),
    interest_days: row.interest_days,
    earlier_charges: earlierCharges.toFixed(2),
    fi_payment_line: invoice.payment_id ? fiPaymentLine(invoice.payment_id, invoice.fi_creditor_number) : '',
    filename: `rykker-${row.number}-faktura-${invoice.invoice_number}.pdf`,
  };
}

/** The opening sentence of each reminder: a friendly first, a firmer second, the last before collection. */
const OPENING: Record<number, string> = {
  1: 'Vi kan ikke se, at vi har modtaget betaling for nedenstående faktura. Vi beder dig venligst betale restbeløbet snarest.',
  2: 'Vi har tidligere rykket for betaling af nedenstående faktura, men har endnu ikke modtaget beløbet. Vi beder dig betale straks.',
  3: 'Dette er sidste rykker for nedenstående faktura. Betales beløbet ikke inden 10 dage, overgives sagen til inkasso.',
};

export async function renderReminderPdf(d: ReminderDocument): Promise<Buffer> {
  const { doc, done } = await startPdf(`Rykker ${d.number} for faktura ${d.invoice.number} - ${d.seller.name}`, d.seller.name);
  const sellerBottom = drawParty(doc, d.seller, 340, M, 205, 'Afsender');
  doc.font(BOLD).fontSize(22).fillColor('black').text(`RYKKER ${d.number}`, M, M, { width: 280 });
  const buyerBottom = drawParty(doc, d.buyer, M, M + 45, 280, 'Til');

  let y = Math.max(sellerBottom, buyerBottom) + 20;
  const facts: [string, string][] = [
    ['Rykkerdato', danishDate(d.date)],
    ['Fakturanr.', d.invoice.number],
    ['Fakturadato', danishDate(d.invoice.issue_date)],
    ['Forfaldsdato', danishDate(d.invoice.due_date)],
  ];
  for (const [label, value] of facts) {
    doc.font(BOLD).fontSize(9).text(label, M, y, { width: 110 });
    doc.font(FONT).text(value, M + 110, y, { width: 385 });
    y = doc.y + 2;
  }
  y += 14;
  doc
    .font(FONT)
    .fontSize(10)
    .text(OPENING[d.number] ?? OPENING[1]!, M, y, { width: A4.width - 2 * M });
  y = doc.y + 16;

  // The claim: the invoice's balance in its currency, then the reminder's charges in DKK.
  const cur = d.invoice.currency;
  const charges = new Decimal(d.fee).plus(d.interest).plus(d.earlier_charges);
  const rows: [string, string, boolean][] = [
    [`Fakturabeløb ${cur}`, kroner(d.invoice.total), false],
    [`Betalt ${cur}`, kroner(d.invoice.paid, true), false],
    [`Restbeløb ${cur}`, kroner(d.invoice.balance), true],
    ...(new Decimal(d.fee).greaterThan(0) ? [['Rykkergebyr DKK (renteloven § 9 b)', kroner(d.fee), false] as [string, string, boolean]] : []),
    ...(d.interest_rate
      ? [[`Renter ${decimalComma(d.interest_rate)} % p.a. i ${d.interest_days} dage DKK`, kroner(d.interest), false] as [string, string, boolean]]
      : []),
    ...(new Decimal(d.earlier_charges).greaterThan(0)
      ? [['Gebyrer og renter fra tidligere rykkere DKK', kroner(d.earlier_charges), false] as [string, string, boolean]]
      : []),
    // In DKK the claim adds up to one amount; in another currency the balance and the charges are paid apart.
    cur === 'DKK'
      ? ['I alt at betale DKK', kroner(new Decimal(d.invoice.balance).plus(charges).toFixed(2)), true]
      : ['Gebyrer og renter i alt DKK', kroner(charges.toFixed(2)), true],
  ];
  doc
    .moveTo(M + 180, y)
    .lineTo(A4.width - M, y)
    .lineWidth(0.5)
    .strokeColor(GREY)
    .stroke();
  y += 6;
  for (const [label, value, bold] of rows) {
    doc.font(bold ? BOLD : FONT).fontSize(bold ? 10 : 9);
    doc.text(label, M + 120, y, { width: 255, align: 'right' });
    doc.text(value, M + 380, y, { width: 115, align: 'right' });
    y = doc.y + 3;
  }

  const bank = bankDetails(d.seller);
  const terms = [
    bank.length ? `Betales til ${bank.join(', ')}.` : '',
    d.fi_payment_line ? `Indbetalingskort (FI): ${d.fi_payment_line}` : '',
    `Angiv venligst fakturanr. ${d.invoice.number} ved betaling.`,
    '',
    d.interest_rate ? 'Renter efter renteloven § 5: referencesatsen tillagt 8 procentpoint om året, beregnet pr. dag fra forfaldsdagen.' : '',
    'Har du allerede betalt, kan du se bort fra denne rykker.',
  ].filter((line, i, all) => line || (i > 0 && all[i - 1]));
  doc
    .font(FONT)
    .fontSize(9)
    .fillColor('black')
    .text(terms.join('\n'), M, y + 18, { width: A4.width - 2 * M });
  doc.end();
  return done;
}
