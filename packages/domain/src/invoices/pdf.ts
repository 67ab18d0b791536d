// The invoice as a Danish PDF document: what faktureringsbekendtgørelsen (BEK nr 1595 af 2021, § 4)
// requires of a full invoice — issue date, a sequential number, the seller's name, address and CVR
// number, the buyer's name and address, each line's description, quantity and unit price excluding VAT,
// the VAT rate and VAT amount per rate, the totals — plus payment terms and bank details. A credit note
// (kreditnota) names the invoice it credits. A draft has no number yet and is watermarked KLADDE; a
// cancelled invoice is watermarked ANNULLERET, names the credit note that credited it and asks for no payment.
//
// invoiceDocument reads what the page shows (the buyer frozen at approval; a draft's buyer as the
// customer is now); renderInvoicePdf lays it out with pdfkit. Amounts travel as strings with two
// decimals, never as floats.
import type PDFDocument from 'pdfkit';
import type { Company, Customer, Db, Prisma } from '@tlr/db';
import { daysBetween, fromDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { printIban } from '../identifiers/bank.ts';
import { fiPaymentLine } from '../identifiers/fi-payment.ts';
import { notFound } from '../errors.ts';
import { Decimal, roundOere } from '../money.ts';
import { invoiceTotals } from './rules.ts';
import { invoiceVatLabel } from '../vat/codes.ts';
import { toDkk } from '../currency/rules.ts';
import { fullInvoiceInclude } from './views.ts';
import { monthEnd } from '../assets/rules.ts';

/** A quote (tilbud) is laid out as an invoice is: its valid_until stands where an invoice's due date does. */
export type InvoiceDocumentKind = 'invoice' | 'credit_note' | 'quote';

export interface Party {
  name: string;
  address: string[];
  cvr: string;
  /** The buyer's EU VAT number (momsregistreringsnummer), printed on an EU B2B sale. */
  vat_number?: string;
  ean?: string;
  email?: string;
  phone?: string;
}

export interface InvoiceDocument {
  kind: InvoiceDocumentKind;
  draft: boolean;
  /** The invoice or credit note number; "" on a draft. */
  number: string;
  date: string;
  due_date: string;
  payment_terms_days: number;
  /** The credited invoice, on a credit note. */
  credits: { invoice_number: string; issue_date: string } | null;
  /** On a cancelled invoice: the credit note that credited it (nothing is to be paid). */
  credited_by: { number: string; date: string } | null;
  seller: Seller;
  /** The FI payment line (+71) of an invoice with a payment id; "" otherwise, and always on a credit note. */
  fi_payment_line: string;
  buyer: Party;
  lines: {
    description: string;
    quantity: string;
    unit: string;
    discount_percent: string;
    unit_price: string;
    vat_rate: string;
    amount: string;
    /** An accrued line's period (decision 879): the first day of its first month and the last day of its last; none when not accrued. */
    period?: LinePeriod | null | undefined;
  }[];
  vat: { label: string; base: string; amount: string }[];
  /** The invoice's currency (ISO 4217); amounts are in it. */
  currency: string;
  /** A foreign-currency invoice: the rate and its VAT in DKK, which momsloven § 52 a requires stated; null for DKK (or a draft without a rate). */
  dkk: { rate: string; vat_amount: string } | null;
  subtotal: string;
  vat_amount: string;
  total: string;
  paid_amount: string;
  notes: string;
  filename: string;
}

export const addressLines = (line1: string, line2: string, postal: string, city: string, country: string) =>
  [line1, line2, `${postal} ${city}`.trim(), country && country !== 'DK' ? country : ''].filter(Boolean);

export type Seller = Party & { bank_reg_number: string; bank_account_number: string; iban: string };

/** The company as the seller its documents print (the profile as it is when the PDF is made). */
export function sellerParty(company: Company): Seller {
  return {
    name: company.name,
    address: addressLines(company.address_line1, company.address_line2, company.postal_code, company.city, company.country),
    cvr: company.cvr ?? '',
    email: company.email,
    phone: company.phone,
    bank_reg_number: company.bank_reg_number,
    bank_account_number: company.bank_account_number,
    iban: company.iban,
  };
}

/** A customer as the buyer of a document not yet issued (a draft, a quote): as the customer is now. */
export const customerParty = (customer: Customer): Party => ({
  name: customer.name,
  address: addressLines(customer.address_line1, customer.address_line2, customer.postal_code, customer.city, customer.country),
  cvr: customer.cvr,
  vat_number: customer.vat_number,
  ean: customer.ean,
});

/** The period a line's goods or services cover, in days (both included). */
export interface LinePeriod {
  start: string;
  end: string;
}

/**
 * An accrued invoice line's period, as the customer is shown it (decision 879): from the first day of the
 * accrual's first month to the last day of its last; null for a line not accrued (and a quote's lines).
 */
export const linePeriod = (l: { accrual_from?: Date | null; accrual_to?: Date | null }): LinePeriod | null =>
  l.accrual_from && l.accrual_to ? { start: fromDate(l.accrual_from), end: monthEnd(fromDate(l.accrual_to)) } : null;

/** The lines of a document as the page shows them, and its VAT per code computed from them. */
export function documentLines(
  lines: readonly (Omit<
    Prisma.InvoiceLineGetPayload<object>,
    'id' | 'company_id' | 'invoice_id' | 'account_id' | 'dimensions' | 'accrual_from' | 'accrual_to'
  > & { accrual_from?: Date | null; accrual_to?: Date | null })[],
) {
  const totals = invoiceTotals(
    lines.map((l) => ({ quantity: l.quantity, unitPrice: l.unit_price, vatRate: l.vat_rate, vatCode: l.vat_code, discountPercent: l.discount_percent })),
  );
  return {
    lines: lines.map((l) => ({
      description: l.description,
      quantity: new Decimal(l.quantity.toString()).toString(),
      unit_price: l.unit_price.toFixed(2),
      vat_rate: new Decimal(l.vat_rate.toString()).toString(),
      unit: l.unit,
      discount_percent: new Decimal(l.discount_percent.toString()).toString(),
      amount: roundOere(new Decimal(l.amount.toString())).toFixed(2),
      period: linePeriod(l),
    })),
    vat: totals.byRate.map((g) => ({ label: invoiceVatLabel(g.code, g.rate), base: g.net.toFixed(2), amount: g.vat.toFixed(2) })),
  };
}

/** What the PDF of an invoice (or of the credit note that cancelled it) shows, read in one snapshot. */
export async function invoiceDocument(db: Db, scope: CompanyScope, id: string, kind: InvoiceDocumentKind): Promise<InvoiceDocument> {
  const row = await db.invoice.findFirst({ where: { id, company_id: scope.companyId }, include: fullInvoiceInclude });
  if (!row) throw notFound('invoice', id);
  if (kind === 'credit_note' && !row.credit_note) throw notFound(`credit note for invoice ${id} (only a cancelled invoice has one)`);
  const company = await db.company.findUniqueOrThrow({ where: { id: scope.companyId } });
  const draft = row.status === 'draft';
  // A draft's buyer is the customer as it is now; from approval on, the buyer frozen on the invoice.
  const customer = draft && row.customer_id ? await db.customer.findFirst({ where: { id: row.customer_id, company_id: scope.companyId } }) : null;
  const buyer: Party = customer
    ? customerParty(customer)
    : {
        name: row.customer_name,
        address: addressLines(row.customer_address_line1, row.customer_address_line2, row.customer_postal_code, row.customer_city, row.customer_country),
        cvr: row.customer_cvr,
        ean: row.customer_ean,
      };
  const note = kind === 'credit_note' ? row.credit_note! : null;
  const number = note ? String(note.document_number) : row.invoice_number;
  const issue = fromDate(row.issue_date);
  return {
    kind,
    draft,
    number,
    date: note ? fromDate(note.date) : issue,
    due_date: fromDate(row.due_date),
    payment_terms_days: daysBetween(issue, fromDate(row.due_date)),
    credits: note ? { invoice_number: row.invoice_number, issue_date: issue } : null,
    credited_by: kind === 'invoice' && row.credit_note ? { number: String(row.credit_note.document_number), date: fromDate(row.credit_note.date) } : null,
    seller: sellerParty(company),
    // The creditor number frozen with the id, not the company's current one (decision 246).
    fi_payment_line: kind === 'invoice' && row.payment_id ? fiPaymentLine(row.payment_id, row.fi_creditor_number) : '',
    buyer,
    ...documentLines(row.lines),
    currency: row.currency,
    dkk:
      row.currency !== 'DKK' && row.exchange_rate
        ? {
            rate: new Decimal(row.exchange_rate.toString()).toString(),
            vat_amount: toDkk(new Decimal(row.vat_amount.toString()), new Decimal(row.exchange_rate.toString())).toFixed(2),
          }
        : null,
    subtotal: row.subtotal.toFixed(2),
    vat_amount: row.vat_amount.toFixed(2),
    total: row.total.toFixed(2),
    paid_amount: row.paid_amount.toFixed(2),
    notes: row.notes,
    filename: `${kind === 'credit_note' ? 'kreditnota' : 'faktura'}-${number || `kladde-${row.id}`}.pdf`,
  };
}

// ---------------------------------------------------------------------------------------------------
// Layout

/** 1234567.5 -> "1.234.567,50" (Danish grouping and decimal comma), from the exact decimal string. */
export function kroner(amount: string, negate = false): string {
  const d = new Decimal(amount);
  const value = negate ? d.negated() : d;
  const [int, dec] = value.abs().toFixed(2).split('.') as [string, string];
  return `${value.isNegative() && !value.isZero() ? '-' : ''}${int.replace(/\B(?=(\d{3})+(?!\d))/g, '.')},${dec}`;
}
/** A quantity or rate with a decimal comma and no trailing zeros: "1,5", "3", "12,25". */
export const decimalComma = (n: string) => new Decimal(n).toString().replace('.', ',');
/** 2026-11-22 -> "22.11.2026". */
export const danishDate = (iso: string) => iso.split('-').reverse().join('.');
const cancelledText = (by: { number: string; date: string }) => `Annulleret – krediteret ved kreditnota nr. ${by.number} af ${danishDate(by.date)}`;

export const A4 = { width: 595.28, height: 841.89 };
export const M = 50;
export const FONT = 'Helvetica';
export const BOLD = 'Helvetica-Bold';
export const GREY = '#555555';
// Columns of the line table: x and width; the numbers are right-aligned. Each heading fits its column on
// one line ("Enhedspris ekskl. moms" is 94 pt wide in 8 pt bold).
const COLS = { description: [M, 210], quantity: [M + 215, 55], price: [M + 275, 100], rate: [M + 380, 45], amount: [M + 430, 65] } as const;
const HEADINGS: [string, keyof typeof COLS][] = [
  ['Beskrivelse', 'description'],
  ['Antal', 'quantity'],
  ['Enhedspris ekskl. moms', 'price'],
  ['Moms %', 'rate'],
  ['Beløb', 'amount'],
];

/** The Danish abbreviation of the common units after a quantity (7,5 t); another unit shows its code; C62 ("one") none. */
const UNIT_LABELS: Readonly<Record<string, string>> = {
  C62: '',
  EA: '',
  H87: '',
  HUR: 't',
  DAY: 'd',
  WEE: 'uge',
  MON: 'md',
  MIN: 'min',
  KGM: 'kg',
  MTR: 'm',
  KMT: 'km',
  LTR: 'l',
  MTK: 'm²',
  MTQ: 'm³',
};
const quantityText = (quantity: string, unit: string) => [decimalComma(quantity), UNIT_LABELS[unit] ?? unit].filter(Boolean).join(' ');
const MONTHS = ['januar', 'februar', 'marts', 'april', 'maj', 'juni', 'juli', 'august', 'september', 'oktober', 'november', 'december'];
/** "2026-07-01" -> "juli 2026". */
const danishMonth = (iso: string) => `${MONTHS[Number(iso.slice(5, 7)) - 1]} ${iso.slice(0, 4)}`;
/** An accrued line's months (decision 879): "Periode: juli 2026 – juni 2027", or the one month. */
export function periodText(p: LinePeriod): string {
  const [from, to] = [danishMonth(p.start), danishMonth(p.end)];
  return `Periode: ${from === to ? from : `${from} – ${to}`}`;
}
/** The line's text: its description, its period and its discount under it. */
const lineText = (line: InvoiceDocument['lines'][number]) =>
  [line.description, line.period ? periodText(line.period) : '', line.discount_percent !== '0' ? `Rabat ${decimalComma(line.discount_percent)} %` : '']
    .filter(Boolean)
    .join('\n');

// pdfkit is loaded by the first document: its fonts and Unicode tables take a quarter of a second, which
// every process importing the domain (the CLI) would otherwise pay (decision 421).
let pdfkit: Promise<typeof PDFDocument> | undefined;

/** A Danish A4 document and the bytes it will have once `doc.end()` is called. */
export async function startPdf(title: string, author: string) {
  const Document = await (pdfkit ??= import('pdfkit').then((m) => m.default));
  const doc = new Document({ size: 'A4', margin: M, info: { Title: title, Author: author, Creator: 'tlr' }, lang: 'da-DK' });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  return { doc, done };
}

/** A party's block (seller or buyer) under its heading at (x, y); the y below it. */
export function drawParty(doc: InstanceType<typeof PDFDocument>, p: Party, x: number, y: number, width: number, heading: string): number {
  doc.font(BOLD).fontSize(8).fillColor(GREY).text(heading, x, y, { width });
  doc
    .font(BOLD)
    .fontSize(10)
    .fillColor('black')
    .text(p.name || '(ingen kunde)', { width });
  doc.font(FONT).fontSize(9);
  for (const line of p.address) doc.text(line, { width });
  if (p.cvr) doc.text(`CVR-nr. ${p.cvr}`, { width });
  if (p.vat_number) doc.text(`Momsnr. ${p.vat_number}`, { width });
  if (p.ean) doc.text(`EAN-nr. ${p.ean}`, { width });
  if (p.email) doc.text(p.email, { width });
  if (p.phone) doc.text(`Tlf. ${p.phone}`, { width });
  return doc.y;
}

/** Where to pay: the Danish account and the IBAN the seller has, as the payment text names them. */
export const bankDetails = (s: Seller) =>
  [
    s.bank_reg_number || s.bank_account_number ? `Reg.nr. ${s.bank_reg_number} Kontonr. ${s.bank_account_number}` : '',
    s.iban ? `IBAN ${printIban(s.iban)}` : '',
  ].filter(Boolean);

export async function renderInvoicePdf(d: InvoiceDocument): Promise<Buffer> {
  const credit = d.kind === 'credit_note';
  const quote = d.kind === 'quote';
  const name = credit ? 'Kreditnota' : quote ? 'Tilbud' : 'Faktura';
  const title = name.toUpperCase();
  const { doc, done } = await startPdf(`${name} ${d.number || '(kladde)'} - ${d.seller.name}`, d.seller.name);

  // A draft is not yet an invoice; a cancelled one is no longer a claim: both say so across every page.
  const stamp = d.draft ? 'KLADDE' : d.credited_by ? 'ANNULLERET' : '';
  const watermark = () => {
    if (!stamp) return;
    const size = stamp.length > 6 ? 72 : 110;
    doc.save();
    doc.rotate(-35, { origin: [A4.width / 2, A4.height / 2] });
    doc.font(BOLD).fontSize(size).fillColor('#d9d9d9').fillOpacity(0.6);
    doc.text(stamp, 0, A4.height / 2 - size / 2, { width: A4.width, align: 'center', lineBreak: false });
    doc.restore();
    doc.fillColor('black').fillOpacity(1);
  };
  watermark();
  doc.on('pageAdded', watermark);

  // Seller, top right; title and buyer, left.
  const sellerBottom = drawParty(doc, d.seller, 340, M, 205, 'Sælger');
  doc
    .font(BOLD)
    .fontSize(22)
    .fillColor('black')
    .text(stamp ? `${title} (${stamp})` : title, M, M, { width: 280 });
  const buyerBottom = drawParty(doc, d.buyer, M, M + 45, 280, `${name} til`);

  // The document's facts.
  let y = Math.max(sellerBottom, buyerBottom) + 20;
  const facts: [string, string][] = credit
    ? [
        ['Kreditnotanr.', d.number],
        ['Dato', danishDate(d.date)],
        ['Krediterer faktura', `nr. ${d.credits!.invoice_number} af ${danishDate(d.credits!.issue_date)}`],
      ]
    : quote
      ? [
          ['Tilbudsnr.', d.draft ? 'tildeles ved afsendelse' : d.number],
          ['Tilbudsdato', danishDate(d.date)],
          ['Gyldigt til', danishDate(d.due_date)],
        ]
      : [
          ['Fakturanr.', d.draft ? 'tildeles ved godkendelse' : d.number],
          ['Fakturadato', danishDate(d.date)],
          d.credited_by ? ['Status', cancelledText(d.credited_by)] : ['Forfaldsdato', danishDate(d.due_date)],
        ];
  for (const [label, value] of facts) {
    doc.font(BOLD).fontSize(9).text(label, M, y, { width: 110 });
    doc.font(FONT).text(value, M + 110, y, { width: 385 });
    y = doc.y + 2;
  }

  // Lines.
  y += 16;
  const header = () => {
    doc.font(BOLD).fontSize(8).fillColor(GREY);
    let bottom = y;
    for (const [label, col] of HEADINGS) {
      const [x, width] = COLS[col];
      doc.text(col === 'amount' ? `${label} ${d.currency}` : label, x, y, { width, align: col === 'description' ? 'left' : 'right' });
      bottom = Math.max(bottom, doc.y); // the rule goes under the tallest heading
    }
    y = bottom + 3;
    doc
      .moveTo(M, y)
      .lineTo(A4.width - M, y)
      .lineWidth(0.5)
      .strokeColor(GREY)
      .stroke();
    y += 5;
    doc.fillColor('black').font(FONT).fontSize(9);
  };
  const room = (height: number) => {
    if (y + height <= A4.height - M) return false;
    doc.addPage();
    y = M;
    return true;
  };
  header();
  for (const line of d.lines) {
    const text = lineText(line);
    const height = doc.heightOfString(text || ' ', { width: COLS.description[1] }) + 4;
    if (room(height)) header();
    doc.text(text, COLS.description[0], y, { width: COLS.description[1] });
    doc.text(quantityText(line.quantity, line.unit), COLS.quantity[0], y, { width: COLS.quantity[1], align: 'right' });
    doc.text(kroner(line.unit_price), COLS.price[0], y, { width: COLS.price[1], align: 'right' });
    doc.text(decimalComma(line.vat_rate), COLS.rate[0], y, { width: COLS.rate[1], align: 'right' });
    doc.text(kroner(line.amount, credit), COLS.amount[0], y, { width: COLS.amount[1], align: 'right' });
    y += height;
  }

  // Totals: the subtotal, VAT per rate on its base, the total.
  const totals: [string, string, boolean][] = [
    ['Subtotal ekskl. moms', kroner(d.subtotal, credit), false],
    ...d.vat.map((g): [string, string, boolean] => [`${g.label} af ${kroner(g.base, credit)}`, kroner(g.amount, credit), false]),
    [`Moms i alt`, kroner(d.vat_amount, credit), false],
    [credit ? `Krediteret i alt ${d.currency}` : `Total ${d.currency} inkl. moms`, kroner(d.total, credit), true],
  ];
  // Momsloven § 52 a: VAT on an invoice in another currency is also stated in kroner.
  if (d.dkk) totals.push([`Moms i DKK (kurs ${decimalComma(d.dkk.rate)})`, kroner(d.dkk.vat_amount, credit), false]);
  const paid = new Decimal(d.paid_amount);
  if (!credit && !d.draft && paid.greaterThan(0)) {
    totals.push(['Betalt', kroner(d.paid_amount, true), false], [`Restbeløb ${d.currency}`, kroner(new Decimal(d.total).minus(paid).toFixed(2)), true]);
  }
  if (room(totals.length * 14 + 10)) y = M;
  y += 6;
  doc
    .moveTo(COLS.rate[0] - 120, y)
    .lineTo(A4.width - M, y)
    .lineWidth(0.5)
    .strokeColor(GREY)
    .stroke();
  y += 6;
  for (const [label, value, bold] of totals) {
    doc.font(bold ? BOLD : FONT).fontSize(bold ? 10 : 9);
    doc.text(label, COLS.rate[0] - 200, y, { width: 240, align: 'right' });
    doc.text(value, COLS.amount[0], y, { width: COLS.amount[1], align: 'right' });
    y = doc.y + 3;
  }

  // Payment terms and bank details; notes.
  const bank = bankDetails(d.seller);
  const terms = credit
    ? ['Beløbet modregnes eller tilbagebetales.']
    : quote
      ? [`Tilbuddet er gældende til og med ${danishDate(d.due_date)}.`]
      : d.credited_by
        ? [`${cancelledText(d.credited_by)}.`, 'Fakturaen skal ikke betales.']
        : [
            `Betalingsbetingelser: netto ${d.payment_terms_days} dage. Forfaldsdato ${danishDate(d.due_date)}.`,
            bank.length ? `Betales til ${bank.join(', ')}.` : d.fi_payment_line ? '' : 'Bankoplysninger: ikke angivet.',
            d.fi_payment_line ? `Indbetalingskort (FI): ${d.fi_payment_line}` : '',
            d.number ? `Angiv venligst fakturanr. ${d.number} ved betaling.` : '',
          ].filter(Boolean);
  y += 18;
  const text = [...terms, ...(d.notes ? ['', d.notes] : [])].join('\n');
  if (room(doc.heightOfString(text, { width: A4.width - 2 * M }) + 10)) y = M;
  doc
    .font(FONT)
    .fontSize(9)
    .fillColor('black')
    .text(text, M, y, { width: A4.width - 2 * M });

  doc.end();
  return done;
}
