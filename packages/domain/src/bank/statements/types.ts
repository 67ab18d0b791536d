// What every bank file format reads into: lines and a statement head, the same for camt.053 and CSV,
// and the one error a malformed file gets (400 bank_file_invalid naming the line and the field).
import { DomainError } from '../../errors.ts';
import type { Decimal } from '../../money.ts';
import type { BalanceStatus } from '../schema.ts';

/** One booked line of a file, before it has an identity. */
export interface BankFileLine {
  /** Where it is in the file: the CSV line number (1-based, header lines counted) or the camt.053 entry number (Ntry, 1-based). */
  n: number;
  booking_date: string;
  value_date: string | null;
  /** Signed: + money in, - money out. At most 2 decimals. */
  amount: Decimal;
  text: string;
  counterparty_name: string;
  counterparty_iban: string;
  reference: string;
  bank_reference: string;
}

/** What the file says about itself, known once it has been read to the end. */
export interface StatementHead {
  format: string;
  statement_ref: string;
  from_date: string | null;
  to_date: string | null;
  opening: Decimal | null;
  closing: Decimal | null;
  balance_status: BalanceStatus;
  /** On a mismatch: what the stated balance is above what the lines make it. */
  balance_difference: Decimal | null;
}

/** A parser: batches of lines as the bytes stream in, and the head as its return value. */
export type BankFileParser = AsyncGenerator<BankFileLine[], StatementHead, void>;

/** A malformed file: `where` is "line 12" (CSV) or "entry 12" (camt.053), `field` the file's own name for the field. */
export function fileError(where: { kind: 'line' | 'entry'; n: number } | null, field: string, message: string): DomainError {
  const at = where ? `${where.kind === 'line' ? 'Line' : 'Entry'} ${where.n}, ${field}` : field;
  return new DomainError('bank_file_invalid', `${at}: ${message}`.slice(0, 2000), field, where ? { line: where.n } : {});
}
