// A customer's statement (kontoudtog) as a Danish PDF: the seller and the customer as on the invoice PDF
// (invoices/pdf.ts: the layout, the Danish number and date format), the period, the opening balance, each
// line with its balance, and the balance owed at the end with where to pay. Its figures are
// customerStatement's (accountant.ts), so the PDF, the JSON and the CSV say the same.
import type { Db } from '@tlr/db';
import {
  A4,
  addressLines,
  bankDetails,
  BOLD,
  danishDate,
  drawParty,
  FONT,
  GREY,
  kroner,
  M,
  sellerParty,
  startPdf,
  type Party,
  type Seller,
} from '../invoices/pdf.ts';
import { customerStatement, type StatementQuery } from './accountant.ts';

export interface StatementDocument {
  seller: Seller;
  buyer: Party;
  statement: Awaited<ReturnType<typeof customerStatement>>;
  filename: string;
}

/** What the statement PDF shows (404 for a customer that is not the company's). */
export async function statementDocument(db: Db, companyId: string, q: StatementQuery): Promise<StatementDocument> {
  const statement = await customerStatement(db, companyId, q);
  const company = await db.company.findUniqueOrThrow({ where: { id: companyId } });
  const c = statement.customer;
  return {
    seller: sellerParty(company),
    buyer: { name: c.name, address: addressLines(c.address_line1, c.address_line2, c.postal_code, c.city, c.country), cvr: c.cvr },
    statement,
    filename: `kontoudtog-${statement.from}-${statement.to}.pdf`,
  };
}

const TYPE_TEXT: Record<string, string> = {
  opening_entry: 'Åbningssaldo, bilag',
  invoice: 'Faktura',
  credit_note: 'Kreditnota',
  payment: 'Indbetaling',
  payment_reversal: 'Tilbageført indbetaling',
  reminder: 'Rykkergebyr og renter',
};

// Columns: x and width; the amounts right-aligned.
const COLS = { date: [M, 60], text: [M + 62, 190], due: [M + 254, 60], debit: [M + 316, 58], credit: [M + 376, 58], balance: [M + 436, 59] } as const;

export async function renderStatementPdf(d: StatementDocument): Promise<Buffer> {
  const s = d.statement;
  const { doc, done } = await startPdf(`Kontoudtog ${d.buyer.name} - ${d.seller.name}`, d.seller.name);
  const sellerBottom = drawParty(doc, d.seller, 340, M, 205, 'Afsender');
  doc.font(BOLD).fontSize(22).fillColor('black').text('KONTOUDTOG', M, M, { width: 280 });
  const buyerBottom = drawParty(doc, d.buyer, M, M + 45, 280, 'Til');
  let y = Math.max(sellerBottom, buyerBottom) + 20;
  doc
    .font(FONT)
    .fontSize(10)
    .text(`Periode ${danishDate(s.from)} – ${danishDate(s.to)}. Beløb i DKK.`, M, y, { width: A4.width - 2 * M });
  y = doc.y + 12;

  const cell = (text: string, [x, width]: readonly [number, number], right = false) => doc.text(text, x, y, { width, align: right ? 'right' : 'left' });
  const row = (cells: [string, string, string, string, string, string], bold = false) => {
    if (y > A4.height - M - 40) {
      doc.addPage();
      y = M;
    }
    doc.font(bold ? BOLD : FONT).fontSize(bold ? 8 : 9);
    const [date, text, due, debit, credit, balance] = cells;
    cell(date, COLS.date);
    cell(text, COLS.text);
    cell(due, COLS.due);
    cell(debit, COLS.debit, true);
    cell(credit, COLS.credit, true);
    cell(balance, COLS.balance, true);
    y = doc.y + 4;
  };
  row(['Dato', 'Tekst', 'Forfald', 'Debet', 'Kredit', 'Saldo'], true);
  doc
    .moveTo(M, y - 2)
    .lineTo(A4.width - M, y - 2)
    .lineWidth(0.5)
    .strokeColor(GREY)
    .stroke();
  row([danishDate(s.from), 'Saldo primo', '', '', '', kroner(String(s.opening_balance))]);
  for (const l of s.lines) {
    row([
      danishDate(l.date),
      `${TYPE_TEXT[l.type] ?? l.type} ${l.document_number}`,
      l.due_date ? danishDate(l.due_date) : '',
      l.debit ? kroner(String(l.debit)) : '',
      l.credit ? kroner(String(l.credit)) : '',
      kroner(String(l.balance)),
    ]);
  }
  row([danishDate(s.to), 'Saldo ultimo', '', kroner(String(s.debit)), kroner(String(s.credit)), kroner(String(s.closing_balance))], true);

  const bank = bankDetails(d.seller);
  const terms = [
    s.closing_balance > 0 ? `Saldo til betaling: DKK ${kroner(String(s.closing_balance))}.` : 'Der er intet at betale.',
    s.closing_balance > 0 && bank.length ? `Betales til ${bank.join(', ')}.` : '',
    'Kontakt os venligst, hvis kontoudtoget ikke stemmer med jeres bogføring.',
  ].filter(Boolean);
  doc
    .font(FONT)
    .fontSize(9)
    .fillColor('black')
    .text(terms.join('\n'), M, y + 18, { width: A4.width - 2 * M });
  doc.end();
  return done;
}
