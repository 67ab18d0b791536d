// A bank line's identity: what makes the same line of two statements (a re-import, an overlapping
// period) one line. The bank's own reference where the file gives one; otherwise a hash of what the
// line says, with its occurrence among identical lines of the same file (two equal card payments on
// one day are two lines). Pure; docs/bank-statements.md documents the canonical string.
import { createHash } from 'node:crypto';
import type { BankFileLine } from './types.ts';

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

/** booking date | amount (2 decimals, signed) | text | counterparty name | reference, whitespace collapsed. */
export function canonicalLine(l: Pick<BankFileLine, 'booking_date' | 'amount' | 'text' | 'counterparty_name' | 'reference'>): string {
  return [l.booking_date, l.amount.toFixed(2), norm(l.text), norm(l.counterparty_name), norm(l.reference)].join('|');
}

/** The identities of one file's lines, in file order (the occurrence count is per file). */
export class LineIdentities {
  private readonly seen = new Map<string, number>();

  of(l: BankFileLine): string {
    if (l.bank_reference) return `ref:${l.bank_reference}`;
    const hash = createHash('sha256').update(canonicalLine(l)).digest('hex');
    const n = (this.seen.get(hash) ?? 0) + 1;
    this.seen.set(hash, n);
    return `sha256:${hash}#${n}`;
  }
}
