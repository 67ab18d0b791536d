// The books a backup run records and the restore drill checks: per company, the last
// consecutive id and document number handed out and the trial balance up to that id; and the checks of a
// restored database against them (balances equal, numbers gapless, every voucher's SHA-256 its object's).
import { createHash } from 'node:crypto';
import type { Queryable } from '@tlr/db';

export interface CompanyBooks {
  last_system_id: string;
  last_document_number: string;
  /** account number -> debit minus credit over the transactions up to last_system_id, exact decimals. */
  balances: Record<string, string>;
}
/** Where voucher objects are read back (@tlr/storage's store). */
export interface ObjectReader {
  get(key: string): Promise<AsyncIterable<Buffer>>;
}

/** company id -> its books. */
export type Books = Record<string, CompanyBooks>;

/** Each company's trial balance over its transactions up to `upTo` (its last system id), in one snapshot. */
const BALANCES = `
  SELECT l.company_id, a.account_number, (sum(l.debit) - sum(l.credit))::text AS balance
  FROM transaction_lines l
  JOIN ledger_transactions t ON t.id = l.transaction_id
  JOIN accounts a ON a.id = l.account_id
  JOIN number_sequences s ON s.company_id = l.company_id
  WHERE t.system_id <= COALESCE(($1::jsonb -> l.company_id::text ->> 'last_system_id')::bigint, s.last_system_id)
  GROUP BY l.company_id, a.account_number`;

async function balances(db: Queryable, upTo: Books | Record<string, never>): Promise<Map<string, Record<string, string>>> {
  const { rows } = await db.query<{ company_id: string; account_number: string; balance: string }>(BALANCES, [JSON.stringify(upTo)]);
  const by = new Map<string, Record<string, string>>();
  for (const r of rows) {
    const b = by.get(r.company_id) ?? {};
    b[r.account_number] = r.balance;
    by.set(r.company_id, b);
  }
  return by;
}

/** The books now. Run it in one REPEATABLE READ transaction (or on an idle database) for one snapshot. */
export async function recordBooks(db: Queryable): Promise<Books> {
  const { rows } = await db.query<{ company_id: string; last_system_id: string; last_document_number: string }>(
    'SELECT company_id, last_system_id::text, last_document_number::text FROM number_sequences',
  );
  const by = await balances(db, {});
  return Object.fromEntries(
    rows.map((r) => [r.company_id, { last_system_id: r.last_system_id, last_document_number: r.last_document_number, balances: by.get(r.company_id) ?? {} }]),
  );
}

const sha256 = async (stream: AsyncIterable<Buffer>) => {
  const h = createHash('sha256');
  for await (const chunk of stream) h.update(chunk);
  return h.digest('hex');
};

/**
 * Checks a restored database against the books recorded at backup time; returns what is wrong, one line
 * each (none: the drill passed). Balances are compared up to each company's recorded last id, so later
 * writes the restore also brought back do not count; a company with fewer ids than recorded lost some.
 */
export async function checkBooks(db: Queryable, recorded: Books, store?: ObjectReader): Promise<string[]> {
  const problems: string[] = [];
  const now = await recordBooks(db);
  const then = await balances(db, recorded);
  for (const [company, books] of Object.entries(recorded)) {
    const current = now[company];
    if (!current || BigInt(current.last_system_id) < BigInt(books.last_system_id)) {
      problems.push(
        `company ${company}: transactions up to id ${books.last_system_id} were recorded, the restored database has ${current?.last_system_id ?? 'none'}`,
      );
      continue;
    }
    const restored = then.get(company) ?? {};
    for (const account of new Set([...Object.keys(books.balances), ...Object.keys(restored)])) {
      // Both sums of numeric(18,2) by the same statement: equal amounts are equal texts.
      const [a, b] = [books.balances[account] ?? '0.00', restored[account] ?? '0.00'];
      if (a !== b) problems.push(`company ${company}: account ${account} balance ${b} in the restored database, ${a} at backup time`);
    }
  }
  // Gapless: every company's ids 1..last and document numbers 1..last are each used.
  const { rows: gaps } = await db.query<{ company_id: string; ids: string; last_id: string; numbers: string; last_number: string }>(`
    SELECT s.company_id, count(t.id)::text AS ids, s.last_system_id::text AS last_id,
           count(DISTINCT t.document_number)::text AS numbers, s.last_document_number::text AS last_number
    FROM number_sequences s LEFT JOIN ledger_transactions t ON t.company_id = s.company_id
    GROUP BY s.company_id, s.last_system_id, s.last_document_number
    HAVING count(t.id) <> s.last_system_id OR count(DISTINCT t.document_number) <> s.last_document_number
        OR max(t.system_id) <> s.last_system_id OR max(t.document_number) <> s.last_document_number`);
  for (const g of gaps) {
    problems.push(
      `company ${g.company_id}: ${g.ids} transactions for ids up to ${g.last_id}, ${g.numbers} document numbers up to ${g.last_number} (not gapless)`,
    );
  }
  if (store) {
    const { rows: vouchers } = await db.query<{ id: string; storage_key: string; sha256: string }>('SELECT id, storage_key, sha256 FROM vouchers ORDER BY id');
    for (const v of vouchers) {
      const got = await store.get(v.storage_key).then(sha256, (e: Error) => `unreadable (${e.message})`);
      if (got !== v.sha256) problems.push(`voucher ${v.id}: SHA-256 ${got} of its object, ${v.sha256} recorded`);
    }
  }
  return problems;
}
