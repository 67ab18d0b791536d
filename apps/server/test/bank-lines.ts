// Bank lines for the reconciliation tests, written with SQL until the statement import lands:
// the one place to swap for POST /bank-accounts/{id}/statements and POST /bank-lines/{id}/match.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { testDb } from './helpers.ts';

export interface Line {
  date: string;
  amount: string;
  text?: string;
  /** Reconciled with the transaction's journal line on the bank account's ledger account. */
  matched?: string;
}

/**
 * The bank lines of a statement, as the import will store them, written with SQL until the import lands:
 * a statement row and its lines, and for a matched line the link a manual match makes (status, the
 * transaction and its journal line on the bank account's ledger account, the match's kind, who and when).
 * The one place to swap for POST /bank-accounts/{id}/statements and POST /bank-lines/{id}/match.
 */
export async function bankLines(companyId: string, account: { id: string; currency: string }, lines: Line[]): Promise<string[]> {
  const pool = testDb().pool;
  const statement = randomUUID();
  await pool.query(
    `INSERT INTO bank_statements (id, company_id, bank_account_id, format, file_sha256, line_count, new_count) VALUES ($1, $2, $3, 'csv', $4, $5, $5)`,
    [statement, companyId, account.id, randomUUID(), lines.length],
  );
  const ids: string[] = [];
  for (const l of lines) {
    const id = randomUUID();
    await pool.query(
      `INSERT INTO bank_lines (id, company_id, bank_account_id, statement_id, identity, booking_date, amount, currency, text, counterparty_name, reference)
       VALUES ($1, $2, $3, $4, $9, $5, $6, $7, $8, 'Modpart A/S', 'ref-' || $8)`,
      [id, companyId, account.id, statement, l.date, l.amount, account.currency, l.text ?? '', `test:${id}`],
    );
    if (l.matched) {
      const { rowCount } = await pool.query(
        `UPDATE bank_lines b SET status = 'matched', transaction_id = tl.transaction_id, journal_line_id = tl.id, match_type = 'posting',
                matched_by = 'manual', matched_at = now()
         FROM transaction_lines tl, bank_accounts ba, accounts a
         WHERE b.id = $1 AND tl.transaction_id = $2 AND ba.id = b.bank_account_id AND a.company_id = ba.company_id
           AND a.account_number = ba.account_number AND tl.account_id = a.id`,
        [id, l.matched],
      );
      expect(rowCount, `match of ${l.date} ${l.amount}`).toBe(1);
    }
    ids.push(id);
  }
  return ids;
}
