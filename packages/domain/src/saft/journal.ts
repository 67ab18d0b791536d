// The hot loop of the SAF-T export: GeneralLedgerEntries/Journal/Transaction and Line elements as
// strings. Written by hand rather than through xmlbuilder2 because it runs once per ledger line
// (measured: see docs/decisions.md, SAF-T export); a unit test holds it equal to xmlbuilder2's output.
import { accountingPeriod, compactId, escapeText, SAFT_TEXT, xmlText } from './rules.ts';

/** One ledger line with its transaction, as the export query returns it (amounts as 2-decimal text). */
export interface JournalRow {
  system_id: number;
  document_number: number;
  /** Posting (voucher) date, YYYY-MM-DD. */
  date: string;
  description: string;
  source: string;
  /** UTC day the transaction was recorded (created_at). */
  entry_date: string;
  line_number: number;
  account_number: string | null;
  debit: string;
  credit: string;
  line_description: string;
  /** The voucher (bilag) documenting the transaction, when one is attached. */
  voucher_id: string | null;
}

/** The Transaction start tag and every element before its first Line. */
export function transactionStart(r: JournalRow, fiscalYearStartMonth: number): string {
  const { period, year } = accountingPeriod(r.date, fiscalYearStartMonth);
  return (
    `<Transaction><TransactionID>${r.document_number}</TransactionID><Period>${period}</Period><PeriodYear>${year}</PeriodYear>` +
    `<TransactionDate>${r.date}</TransactionDate><TransactionType>${xmlText(r.source, SAFT_TEXT.short)}</TransactionType>` +
    `<Description>${xmlText(r.description, SAFT_TEXT.long)}</Description><SystemEntryDate>${r.entry_date}</SystemEntryDate>` +
    `<GLPostingDate>${r.entry_date}</GLPostingDate><SystemID>${r.system_id}</SystemID>`
  );
}

export const TRANSACTION_END = '</Transaction>';

/** One Line: RecordID, AccountID, SourceDocumentID (the voucher), Description, and the debit or the credit with its currency triplet. */
export function lineElement(r: JournalRow, isDebit: boolean, currency: string): string {
  const side = isDebit ? 'DebitAmount' : 'CreditAmount';
  const amount = isDebit ? r.debit : r.credit;
  // A line without text of its own is described by its transaction.
  const description = r.line_description || r.description;
  return (
    `<Line><RecordID>${r.line_number}</RecordID><AccountID>${escapeText(r.account_number ?? '')}</AccountID>` +
    // The voucher's id, as GET /vouchers/{id} knows it (without hyphens: SAF-T ids are short text).
    (r.voucher_id ? `<SourceDocumentID>${compactId(r.voucher_id)}</SourceDocumentID>` : '') +
    `<Description>${xmlText(description, SAFT_TEXT.long)}</Description>` +
    `<${side}><Amount>${amount}</Amount><CurrencyCode>${currency}</CurrencyCode><CurrencyAmount>${amount}</CurrencyAmount>` +
    `<ExchangeRate>1</ExchangeRate></${side}></Line>`
  );
}
