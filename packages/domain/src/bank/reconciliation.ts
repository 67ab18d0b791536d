// Bank reconciliation (afstemning): a bank account's balance by its statement lines against the
// balance of the ledger account it reconciles to, the lines left unmatched on each side and the difference.
import { z } from 'zod';
import { Prisma, type Db } from '@tlr/db';
import { fromDate, today } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { invalidRequest, notFound } from '../errors.ts';
import { amountOut, dateOut } from '../fields.ts';
import { count, ordinal } from '../integers.ts';
import { amountToJson, Decimal } from '../money.ts';
import { BEGINNING } from '../reports/balances.ts';

/** How many unmatched items of each side the answer carries; the rest are counted and summed only. */
export const RECONCILIATION_ITEMS = 100;

/** The definition, once: the OpenAPI description of the endpoint and of its resource (decision 300). */
export const RECONCILIATION_RULES = [
  "The window starts at the bank account's opening_balance_date (from the beginning when it has none) and ends at as_of.",
  'Lines and postings before the window are taken as agreed: opening_balance is the ledger balance at the end of the day before opening_balance_date (0 without one).',
  'bank_balance = opening_balance + the sum of the bank lines booked in the window. ledger_balance = debit − credit of the linked ledger account at the end of as_of, every posting included.',
  'difference = bank_balance − ledger_balance: the unreconciled difference (BEK 97/2023, annex 2 no. 3); it equals unmatched_bank_lines.sum − unmatched_ledger_entries.sum when no posting on the account before the window belongs to a line in it.',
  "A bank line is unmatched until it is reconciled; a ledger entry (a journal line on the linked account dated in the window) is unmatched while no bank line names it as its journal_line_id. Each side lists its first 100 by date, then id; `more` says there are others (the bank side's whole list: GET /bank-accounts/{id}/lines?status=unmatched).",
  'A bank account in another currency than DKK is reconciled in that currency: the ledger side counts the journal lines registered in it, by their currency_amount (a DKK line on the account, such as an exchange-rate adjustment, moves no foreign money and is left out).',
].join(' ');

const amount = (description: string) => amountOut(`${description}, in the bank account's currency`);

const unmatchedBankLine = z
  .object({
    id: z.guid(),
    booking_date: dateOut(),
    amount: amount('Signed: + money in, − money out'),
    text: z.string(),
    counterparty_name: z.string(),
    reference: z.string().meta({ description: 'Structured creditor reference, FI payment id or end-to-end id; "" for none' }),
  })
  .meta({ id: 'ReconciliationBankLine', description: 'An unmatched bank line: the fields of the bank line that identify it' });

const unmatchedLedgerEntry = z
  .object({
    transaction_id: z.guid(),
    journal_line_id: z.guid().meta({ description: 'The journal line: what a bank line names as its journal_line_id once matched' }),
    line_number: ordinal(),
    date: dateOut(),
    description: z.string().meta({ description: "The line's description, else the transaction's" }),
    amount: amount('Debit − credit on the ledger account'),
    document_number: ordinal(),
  })
  .meta({ id: 'ReconciliationLedgerEntry' });

const side = <T extends z.ZodType>(item: T, what: string) =>
  z.object({
    count: count().meta({ description: `How many ${what} are unmatched` }),
    sum: amount(`Their sum`),
    items: z.array(item).meta({ description: `The first ${RECONCILIATION_ITEMS}, by date, then id` }),
    more: z.boolean().meta({ description: `There are more than ${RECONCILIATION_ITEMS}: count and sum cover them all` }),
  });

export const bankReconciliationResource = z
  .object({
    bank_account_id: z.guid(),
    as_of: dateOut(),
    currency: z.string().meta({ description: "The bank account's currency: every amount here is in it", example: 'DKK' }),
    window_start: dateOut().nullable().meta({ description: "The bank account's opening_balance_date; null: from the beginning" }),
    opening_balance: amount('The ledger balance at the end of the day before window_start'),
    bank_balance: amount('opening_balance + the bank lines booked from window_start to as_of'),
    ledger_balance: amount('The linked ledger account at the end of as_of'),
    difference: amount('bank_balance − ledger_balance: the unreconciled difference'),
    last_matched_date: dateOut().nullable().meta({ description: 'The latest booking_date of a matched bank line up to as_of; null for none' }),
    unmatched_bank_lines: side(unmatchedBankLine, 'bank lines booked in the window'),
    unmatched_ledger_entries: side(unmatchedLedgerEntry, 'journal lines on the ledger account dated in the window'),
  })
  .meta({ id: 'BankReconciliation', description: RECONCILIATION_RULES });

export type BankReconciliation = z.input<typeof bankReconciliationResource>;

/** What the query sums, as numeric text (never a float). */
export interface ReconciliationTotals {
  opening: string;
  bankLines: string;
  ledger: string;
}

/**
 * The balances from the sums (pure): the bank side is the agreed opening plus its lines, the ledger side is
 * the account's balance as it stands; the difference is what the unmatched lines of both sides leave open.
 */
export function reconcile(t: ReconciliationTotals) {
  const opening = new Decimal(t.opening);
  const bank = opening.plus(t.bankLines);
  const ledger = new Decimal(t.ledger);
  return { opening, bank, ledger, difference: bank.minus(ledger) };
}

export interface ReconciledAccount {
  id: string;
  currency: string;
  opening_balance_date: Date | null;
  ledger_account_id: string;
}

interface Row {
  opening: string;
  ledger: string;
  bank_total: string;
  bank_count: number;
  bank_sum: string;
  bank_items: { id: string; booking_date: string; amount: string; text: string; counterparty_name: string; reference: string }[];
  last_matched: Date | null;
  ledger_count: number;
  ledger_sum: string;
  ledger_items: {
    transaction_id: string;
    journal_line_id: string;
    line_number: number;
    date: string;
    description: string;
    amount: string;
    document_number: string;
  }[];
}

/**
 * One statement, so every number comes from one snapshot (an import committing halfway would otherwise
 * show its lines on one side only). Every sum and count is read from the account's running day totals
 * (bank_reconciliation_days, kept by triggers on the lines themselves: a few hundred rows a year, whatever
 * the number of lines); only the first unmatched items of each side are read from the lines, day by day
 * from the first day that has one open. Exported for the bench's EXPLAIN.
 */
export function reconciliationSql(companyId: string, a: ReconciledAccount, from: string, asOf: string): Prisma.Sql {
  const c = Prisma.sql`${companyId}::uuid`;
  const dkk = a.currency === 'DKK';
  // A foreign line's currency_amount is positive on the side its DKK amount stands (a reversal swaps sides).
  const lineAmount = Prisma.sql`tlr_bank_ledger_amount(${a.currency}, tl.debit, tl.credit, tl.currency, tl.currency_amount)`;
  const inCurrency = dkk ? Prisma.empty : Prisma.sql`AND tl.currency = ${a.currency}`;
  const window = Prisma.sql`date >= ${from}::date`;
  return Prisma.sql`
    WITH totals AS (
      SELECT COALESCE(SUM(ledger_sum) FILTER (WHERE date < ${from}::date), 0) AS opening, COALESCE(SUM(ledger_sum), 0) AS ledger,
             COALESCE(SUM(bank_sum) FILTER (WHERE ${window}), 0) AS bank_total,
             COALESCE(SUM(open_bank_count) FILTER (WHERE ${window}), 0)::int AS bank_count,
             COALESCE(SUM(open_bank_sum) FILTER (WHERE ${window}), 0) AS bank_sum,
             COALESCE(SUM(ledger_count - matched_count) FILTER (WHERE ${window}), 0)::int AS ledger_count,
             COALESCE(SUM(ledger_sum - matched_sum) FILTER (WHERE ${window}), 0) AS ledger_open_sum
      FROM bank_reconciliation_days WHERE company_id = ${c} AND bank_account_id = ${a.id}::uuid AND date <= ${asOf}::date
    ),
    -- The first unmatched journal lines: the days with one open, in order, each day's transactions by the
    -- (company_id, date) index and their lines on the account; the LIMIT stops after the first few days.
    open_entries AS (
      SELECT tl.id, tl.transaction_id, tl.line_number, d.date, t.document_number,
             COALESCE(NULLIF(tl.description, ''), t.description) AS description, ${lineAmount} AS amount
      FROM bank_reconciliation_days d
      JOIN ledger_transactions t ON t.company_id = ${c} AND t.date = d.date
      JOIN transaction_lines tl ON tl.transaction_id = t.id AND tl.account_id = ${a.ledger_account_id}::uuid ${inCurrency}
      WHERE d.company_id = ${c} AND d.bank_account_id = ${a.id}::uuid AND d.${window} AND d.date <= ${asOf}::date
        AND d.ledger_count > d.matched_count
        AND NOT EXISTS (SELECT 1 FROM bank_lines b WHERE b.journal_line_id = tl.id AND b.company_id = ${c})
      ORDER BY d.date, tl.id LIMIT ${RECONCILIATION_ITEMS + 1}
    )
    SELECT totals.opening::text AS opening, totals.ledger::text AS ledger,
      totals.bank_total::text AS bank_total, totals.bank_count, totals.bank_sum::text AS bank_sum,
      (SELECT COALESCE(json_agg(json_build_object('id', id, 'booking_date', booking_date, 'amount', amount::text, 'text', text,
                'counterparty_name', counterparty_name, 'reference', reference) ORDER BY booking_date, id), '[]')
         FROM (SELECT * FROM bank_lines WHERE bank_account_id = ${a.id}::uuid AND status = 'unmatched'
               AND booking_date BETWEEN ${from}::date AND ${asOf}::date
               ORDER BY booking_date, id LIMIT ${RECONCILIATION_ITEMS + 1}) x) AS bank_items,
      (SELECT MAX(booking_date) FROM bank_lines
         WHERE bank_account_id = ${a.id}::uuid AND status = 'matched' AND booking_date <= ${asOf}::date) AS last_matched,
      totals.ledger_count, totals.ledger_open_sum::text AS ledger_sum,
      (SELECT COALESCE(json_agg(json_build_object('transaction_id', transaction_id, 'journal_line_id', id, 'line_number', line_number,
                'date', date, 'description', description, 'amount', amount::text, 'document_number', document_number::text) ORDER BY date, id), '[]')
         FROM open_entries) AS ledger_items
    FROM totals`;
}

/** The first RECONCILIATION_ITEMS of up to one more, and whether there was that one more. */
const firstItems = <T>(items: T[]) => ({ items: items.slice(0, RECONCILIATION_ITEMS), more: items.length > RECONCILIATION_ITEMS });

/** The reconciliation of one of the company's bank accounts at the end of `as_of` (default: today in Denmark). */
export async function bankReconciliation(
  db: Db,
  scope: CompanyScope,
  bankAccountId: string,
  query: { as_of?: string | undefined },
): Promise<BankReconciliation> {
  const [account] = await db.$queryRaw<ReconciledAccount[]>`
    SELECT b.id, b.currency, b.opening_balance_date, a.id AS ledger_account_id
    FROM bank_accounts b JOIN accounts a ON a.company_id = b.company_id AND a.account_number = b.account_number
    WHERE b.id = ${bankAccountId}::uuid AND b.company_id = ${scope.companyId}::uuid`;
  if (!account) throw notFound('bank account', bankAccountId);
  const asOf = query.as_of ?? today();
  const start = account.opening_balance_date ? fromDate(account.opening_balance_date) : null;
  // Before its opening balance date the bank side is not known (decision 302).
  if (start && asOf < start) throw invalidRequest(`as_of (${asOf}) is before the bank account's opening_balance_date (${start}).`, 'as_of');
  const [row] = await db.$queryRaw<Row[]>(reconciliationSql(scope.companyId, account, start ?? BEGINNING, asOf));
  const r = row!;
  const totals = reconcile({ opening: start ? r.opening : '0', bankLines: r.bank_total, ledger: r.ledger });
  const bank = firstItems(r.bank_items);
  const ledger = firstItems(r.ledger_items);
  return {
    bank_account_id: account.id,
    as_of: asOf,
    currency: account.currency,
    window_start: start,
    opening_balance: amountToJson(totals.opening),
    bank_balance: amountToJson(totals.bank),
    ledger_balance: amountToJson(totals.ledger),
    difference: amountToJson(totals.difference),
    last_matched_date: r.last_matched ? fromDate(r.last_matched) : null,
    unmatched_bank_lines: {
      count: r.bank_count,
      sum: amountToJson(r.bank_sum),
      items: bank.items.map((l) => ({ ...l, amount: amountToJson(l.amount) })),
      more: bank.more,
    },
    unmatched_ledger_entries: {
      count: r.ledger_count,
      sum: amountToJson(r.ledger_sum),
      items: ledger.items.map((l) => ({ ...l, amount: amountToJson(l.amount), document_number: Number(l.document_number) })),
      more: ledger.more,
    },
  };
}
