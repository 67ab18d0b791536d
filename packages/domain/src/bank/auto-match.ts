// Automatic matching: the lines not yet looked at, a batch per transaction, each line matched when exactly
// one target is certain; the row locks and the unique ledger line make each match happen once.
import { Prisma, type Db, type InTransaction } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError } from '../errors.ts';
import { rankSuggestions, type Suggestion } from './rules.ts';
import { lockLine, type Target } from './bank-line-match.ts';
import { findCandidates } from './find-candidates.ts';
import { applyMatch } from './apply-match.ts';

/** Lines matched per transaction: a transaction costs far more than a line's statements (docs/perf.md). */
const AUTO_BATCH = 100;

/** The invoice or expense a match would pay, locked unless another transaction holds it (then: null). */
async function lockTarget(db: Db, target: Target): Promise<boolean> {
  if (target.type === 'transaction') return true;
  if (target.type === 'vat_filing') {
    const rows = await db.$queryRaw<{ id: string }[]>`SELECT id FROM vat_filings WHERE id = ${target.id}::uuid FOR UPDATE SKIP LOCKED`;
    return rows.length > 0;
  }
  const rows =
    target.type === 'invoice'
      ? await db.$queryRaw<{ id: string }[]>`SELECT id FROM invoices WHERE id = ${target.id}::uuid FOR UPDATE SKIP LOCKED`
      : await db.$queryRaw<{ id: string }[]>`SELECT id FROM expenses WHERE id = ${target.id}::uuid FOR UPDATE SKIP LOCKED`;
  return rows.length > 0;
}

/**
 * Automatic matching of one line, inside the batch's transaction and its own savepoint. The line is
 * taken with SKIP LOCKED and only while unmatched, and so is the invoice or expense it would pay: the
 * machine never waits on a row a request holds (which could be waiting on the machine's document number),
 * it leaves that line for the next round. A match the payment functions refuse (a locked period, no
 * exchange rate) is rolled back to the savepoint and the line kept unmatched with the refusal among its
 * first suggestion's reasons.
 */
async function autoMatchLine(db: Db, scope: CompanyScope, id: string): Promise<'matched' | 'unmatched' | 'skipped'> {
  await db.$executeRaw`SAVEPOINT bank_line`;
  let suggestions: Suggestion[] = [];
  let outcome: 'matched' | 'unmatched' | 'skipped' = 'unmatched';
  try {
    const locked = await lockLine(db, scope, id, true);
    const found = locked && locked.line.status === 'unmatched' ? await findCandidates(db, scope, locked.line, locked.bank) : undefined;
    suggestions = rankSuggestions(found?.suggestions ?? []);
    const target = found?.certain.length === 1 ? found.certain[0]! : undefined;
    if (!locked || !found || (target && !(await lockTarget(db, target)))) outcome = 'skipped';
    else if (target) {
      await applyMatch(db, scope, locked.line, locked.bank, target, 'auto');
      outcome = 'matched';
    }
  } catch (e) {
    // Anything but a refusal (the database gone, a deadlock) ends the batch's transaction as it is.
    if (!(e instanceof DomainError)) throw e;
    await db.$executeRaw`ROLLBACK TO SAVEPOINT bank_line`;
    suggestions = suggestions.map((s, i) => (i === 0 ? { ...s, reasons: [...s.reasons, `not matched: ${e.message}`] } : s));
  }
  await db.$executeRaw`RELEASE SAVEPOINT bank_line`;
  if (outcome === 'unmatched') {
    await db.bankLine.updateMany({
      where: { id, status: 'unmatched' },
      data: { checked_at: new Date(), suggestions: suggestions as unknown as Prisma.InputJsonValue },
    });
  }
  return outcome;
}

export interface MatchRound {
  checked: number;
  matched: number;
}

/**
 * Matches the lines automatic matching has not looked at yet, of one bank account or of every company
 * (the worker's sweep), at most `limit` lines, AUTO_BATCH lines per transaction. The companies take turns:
 * each company's oldest line first, then each one's second, and so on, so that one company's statement
 * of 100,000 lines does not keep another's lines waiting through the sweep's rounds (at about 30 lines a
 * second, an hour).
 */
export async function autoMatch(run: InTransaction, db: Db, o: { bankAccountId?: string; limit?: number } = {}): Promise<MatchRound> {
  const limit = o.limit ?? 10_000;
  const round: MatchRound = { checked: 0, matched: 0 };
  while (round.checked < limit) {
    const batch = await db.$queryRaw<{ id: string; company_id: string; livemode: boolean }[]>`
      SELECT w.id, w.company_id, c.sandbox_of_id IS NULL AS livemode
        FROM (SELECT b.id, b.company_id, b.booking_date,
                     row_number() OVER (PARTITION BY b.company_id ORDER BY b.booking_date, b.id) AS turn
                FROM bank_lines b
               WHERE b.checked_at IS NULL AND b.status = 'unmatched' ${o.bankAccountId ? Prisma.sql`AND b.bank_account_id = ${o.bankAccountId}::uuid` : Prisma.empty}) w
        JOIN companies c ON c.id = w.company_id
       ORDER BY w.turn, w.booking_date, w.id LIMIT ${Math.min(AUTO_BATCH, limit - round.checked)}`;
    if (!batch.length) break;
    const done = await run(async (tx) => {
      const outcomes = [];
      for (const l of batch) outcomes.push(await autoMatchLine(tx, { companyId: l.company_id, livemode: l.livemode }, l.id));
      return outcomes;
    });
    const looked = done.filter((d) => d !== 'skipped');
    round.checked += looked.length;
    round.matched += looked.filter((d) => d === 'matched').length;
    // Every line of the batch was another's (a matcher, a request): leave the rest to them and the next round.
    if (!looked.length) break;
  }
  return round;
}
