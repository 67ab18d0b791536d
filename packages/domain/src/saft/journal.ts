// The hot loop of the SAF-T export: GeneralLedgerEntries/Journal/Transaction and Line elements as
// strings. Written by hand rather than through xmlbuilder2 because it runs once per ledger line
// (measured: see docs/decisions/saf-t-export.md); a unit test holds it equal to xmlbuilder2's output.
import { accountingPeriod, compactId, escapeText, SAFT_TEXT, xmlText } from './rules.ts';

/** A journal transaction: the fields its Transaction element carries before its lines. */
export interface JournalTransaction {
  system_id: number;
  document_number: number;
  /** Posting (voucher) date, YYYY-MM-DD. */
  date: string;
  description: string;
  source: string;
  /** UTC day the transaction was recorded (created_at). */
  entry_date: string;
  /** The voucher (bilag) documenting the transaction, when one is attached. */
  voucher_id: string | null;
}

/** One ledger line (amounts as 2-decimal text). */
export interface JournalLine {
  line_number: number;
  debit: string;
  credit: string;
  line_description: string;
  /** A line registered in foreign currency: its code, amount (2-decimal text) and rate (decimal text); '' and nulls in DKK. */
  currency: string;
  currency_amount: string | null;
  exchange_rate: string | null;
}

/** The Transaction start tag and every element before its first Line. */
export function transactionStart(t: JournalTransaction, fiscalYearStartMonth: number): string {
  const { period, year } = accountingPeriod(t.date, fiscalYearStartMonth);
  return (
    `<Transaction><TransactionID>${t.document_number}</TransactionID><Period>${period}</Period><PeriodYear>${year}</PeriodYear>` +
    `<TransactionDate>${t.date}</TransactionDate><TransactionType>${xmlText(t.source, SAFT_TEXT.short)}</TransactionType>` +
    `<Description>${xmlText(t.description, SAFT_TEXT.long)}</Description><SystemEntryDate>${t.entry_date}</SystemEntryDate>` +
    `<GLPostingDate>${t.entry_date}</GLPostingDate><SystemID>${t.system_id}</SystemID>`
  );
}

export const TRANSACTION_END = '</Transaction>';

/** What every Line of one transaction repeats, as XML: worked out once per transaction, not per line. */
export interface LineShared {
  /** The transaction's description, fitted and escaped: the text of a line without its own. */
  description: string;
  /** The voucher's id, as GET /vouchers/{id} knows it (without hyphens: SAF-T ids are short text). */
  sourceDocument: string;
}

export function lineShared(t: JournalTransaction): LineShared {
  return {
    description: xmlText(t.description, SAFT_TEXT.long),
    sourceDocument: t.voucher_id ? `<SourceDocumentID>${compactId(t.voucher_id)}</SourceDocumentID>` : '',
  };
}

/** numeric(18,6) text without its trailing zeros: 7.461200 -> 7.4612, 100.000000 -> 100. */
const trimScale = (rate: string) => (rate.includes('.') ? rate.replace(/\.?0+$/, '') : rate);

/**
 * One Line: RecordID, AccountID, SourceDocumentID (the voucher), Description, and the debit or the
 * credit with its currency triplet (AmountStructure: Amount, CurrencyCode, CurrencyAmount, ExchangeRate,
 * in that order): the line's own currency, amount and rate when it was registered in foreign currency,
 * else the file's currency at rate 1. `shared` is lineShared of the line's transaction.
 */
export function lineElement(
  l: JournalLine,
  accountNumber: string,
  shared: LineShared,
  isDebit: boolean,
  currency: string,
  analysis: readonly AnalysisRef[] = [],
): string {
  const side = isDebit ? 'DebitAmount' : 'CreditAmount';
  const amount = isDebit ? l.debit : l.credit;
  const foreign = l.currency !== '' && l.currency_amount !== null && l.exchange_rate !== null;
  const amounts =
    `<Amount>${amount}</Amount><CurrencyCode>${foreign ? l.currency : currency}</CurrencyCode>` +
    `<CurrencyAmount>${foreign ? l.currency_amount : amount}</CurrencyAmount>` +
    `<ExchangeRate>${foreign ? trimScale(l.exchange_rate!) : '1'}</ExchangeRate>`;
  return (
    `<Line><RecordID>${l.line_number}</RecordID><AccountID>${escapeText(accountNumber)}</AccountID>` +
    // The line's dimensions (decision 586): each applies to the line's whole amount.
    analysis
      .map((a) => `<Analysis><AnalysisType>${a.type}</AnalysisType><AnalysisID>${a.id}</AnalysisID><AnalysisAmount>${amounts}</AnalysisAmount></Analysis>`)
      .join('') +
    shared.sourceDocument +
    // A line without text of its own is described by its transaction.
    `<Description>${l.line_description ? xmlText(l.line_description, SAFT_TEXT.long) : shared.description}</Description>` +
    `<${side}>${amounts}</${side}></Line>`
  );
}

/** A dimension value as a Line's Analysis names it: AnalysisType and AnalysisID, escaped (AnalysisTypeTable). */
export interface AnalysisRef {
  type: string;
  id: string;
}
