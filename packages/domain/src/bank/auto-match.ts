// Automatic matching: the lines not yet looked at, a batch per transaction, each line matched when exactly
// one target is certain; the row locks and the unique ledger line make each match happen once. The lines
// that pay invoices and expenses are paid together, set-based (invoices/register-payments.ts,
// expenses/pay-expenses.ts); the rest (postings, the tax account) line by line.
import { Prisma, type BankLine, type Db, type InTransaction } from '@tlr/db';
import { fromDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest } from '../errors.ts';
import type { PayableInvoice } from '../invoices/register-payment.ts';
import { registerPayments, type BatchPayment } from '../invoices/register-payments.ts';
import { payExpenses, type ExpenseBatchPayment } from '../expenses/pay-expenses.ts';
import { decimalOf } from '../money.ts';
import { rankSuggestions, type Suggestion } from './rules.ts';
import type { Bank, Found, Target } from './bank-line-match.ts';
import { findCandidatesMany } from './find-candidates.ts';
import { applyMatch } from './apply-match.ts';

/**
 * Lines matched per transaction: a transaction costs far more than a line's statements, and the
 * invoices' payments of a batch are written together (docs/perf.md). The journal's number lock is
 * held from the batch's first posting to its commit, so a batch stays well under a second.
 */
const AUTO_BATCH = 500;

type Outcome = 'matched' | 'unmatched' | 'skipped';

/** The invoice or expense a match would pay, locked unless another transaction holds it (then: false). */
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

/** The first suggestion's reasons end with why the match was refused. */
const refusedWith = (suggestions: Suggestion[], e: DomainError) =>
  suggestions.map((s, i) => (i === 0 ? { ...s, reasons: [...s.reasons, `not matched: ${e.message}`] } : s));

interface Looked {
  line: BankLine;
  bank: Bank;
  suggestions: Suggestion[];
  target: Target | undefined;
}

/**
 * One line's match on its own, inside the batch's transaction and its own savepoint: the target locked
 * with SKIP LOCKED (the machine never waits on a row a request holds, which could be waiting on the
 * machine's document number; it leaves that line for the next round), then applyMatch. A match the
 * payment functions refuse (a locked period, no exchange rate) is rolled back to the savepoint and the
 * line kept unmatched with the refusal among its first suggestion's reasons.
 */
async function matchOne(db: Db, scope: CompanyScope, l: Looked): Promise<{ outcome: Outcome; suggestions: Suggestion[] }> {
  await db.$executeRaw`SAVEPOINT bank_line`;
  let outcome: Outcome = 'skipped';
  let suggestions = l.suggestions;
  try {
    if (await lockTarget(db, l.target!)) {
      await applyMatch(db, scope, l.line, l.bank, l.target!, 'auto');
      outcome = 'matched';
    }
  } catch (e) {
    // Anything but a refusal (the database gone, a deadlock) ends the batch's transaction as it is.
    if (!(e instanceof DomainError)) throw e;
    await db.$executeRaw`ROLLBACK TO SAVEPOINT bank_line`;
    suggestions = refusedWith(suggestions, e);
    outcome = 'unmatched';
  }
  await db.$executeRaw`RELEASE SAVEPOINT bank_line`;
  return { outcome, suggestions };
}

type Done = Map<BankLine, { outcome: Outcome; suggestions: Suggestion[] }>;

/** The ids of `type` the lines pay, locked in id order with SKIP LOCKED: those another transaction holds are missing. */
function lockRows<T extends { id: string }>(db: Db, scope: CompanyScope, table: 'invoices' | 'expenses', ids: string[], columns: Prisma.Sql): Promise<T[]> {
  if (!ids.length) return Promise.resolve([]);
  // Locked and read in one statement: FOR UPDATE returns each row as the last commit left it.
  return db.$queryRaw<T[]>`
    SELECT ${columns} FROM ${Prisma.raw(table)} WHERE id = ANY(${ids}::uuid[]) AND company_id = ${scope.companyId}::uuid ORDER BY id FOR UPDATE SKIP LOCKED`;
}

/**
 * The invoice and expense matches of a batch, paid together: the invoices and expenses locked in id
 * order with SKIP LOCKED (one held elsewhere leaves its line for the next round), read again under the
 * lock and checked as applyMatch checks them; then the payments (registerPayments, payExpenses) and the
 * lines' new state, set-based, in a savepoint. A refusal only the writing finds rolls the savepoint back
 * and the lines are matched one by one (matchOne), so one line's refusal never costs the others theirs.
 */
async function matchDocuments(db: Db, scope: CompanyScope, looked: Looked[], out: Done) {
  const ofType = (type: Target['type']) => looked.filter((l) => l.target!.type === type).map((l) => l.target!.id);
  const invoices = new Map(
    (
      await lockRows<PayableInvoice>(
        db,
        scope,
        'invoices',
        ofType('invoice'),
        Prisma.sql`id, invoice_number, status, currency, total, paid_amount, total_dkk, paid_dkk, exchange_rate`,
      )
    ).map((r) => [r.id, r]),
  );
  const lockedExpenses = (await lockRows<{ id: string }>(db, scope, 'expenses', ofType('expense'), Prisma.sql`id`)).map((r) => r.id);
  const expenses = new Map(
    (lockedExpenses.length ? await db.expense.findMany({ where: { company_id: scope.companyId, id: { in: lockedExpenses } } }) : []).map((r) => [r.id, r]),
  );
  const paying: { l: Looked; invoice?: BatchPayment; expense?: ExpenseBatchPayment }[] = [];
  const alone: Looked[] = [];
  for (const l of looked) {
    const amount = decimalOf(l.line.amount);
    const settle = { date: fromDate(l.line.booking_date), account_number: l.bank.account.account_number };
    const currency = l.bank.account.currency;
    let refusal: DomainError | undefined;
    if (l.target!.type === 'invoice') {
      const invoice = invoices.get(l.target!.id);
      if (!invoice) {
        out.set(l.line, { outcome: 'skipped', suggestions: l.suggestions });
        continue;
      }
      // applyMatch's refusals of an invoice match, before the payment's own.
      if (!amount.greaterThan(0)) refusal = invalidRequest(`A bank line of ${amount.toFixed(2)} is money out; an invoice is paid by money in.`, 'invoice_id');
      else if (invoice.currency !== currency)
        refusal = invalidRequest(`The invoice is in ${invoice.currency}; the bank account is in ${currency}.`, 'invoice_id');
      else paying.push({ l, invoice: { invoice, amount, ...settle } });
    } else {
      const expense = expenses.get(l.target!.id);
      if (!expense) {
        out.set(l.line, { outcome: 'skipped', suggestions: l.suggestions });
        continue;
      }
      // applyMatch's refusals of an expense match; one no longer booked is matched alone, by the status change's own rules.
      if (!decimalOf(expense.amount).negated().equals(amount)) {
        refusal = invalidRequest(
          `The bank line of ${amount.toFixed(2)} does not pay expense ${expense.id} of ${decimalOf(expense.amount).toFixed(2)}: an expense is paid in full, the bank line carrying minus its amount.`,
          'expense_id',
        );
      } else if (expense.currency !== currency)
        refusal = invalidRequest(`The expense is in ${expense.currency}; the bank account is in ${currency}.`, 'expense_id');
      else if (expense.status !== 'booked') alone.push(l);
      else paying.push({ l, expense: { expense, ...settle } });
    }
    if (refusal) out.set(l.line, { outcome: 'unmatched', suggestions: refusedWith(l.suggestions, refusal) });
  }
  for (const l of alone) out.set(l.line, await matchOne(db, scope, l));
  if (!paying.length) return;
  await db.$executeRaw`SAVEPOINT bank_batch`;
  try {
    const forInvoices = paying.filter((p) => p.invoice);
    const forExpenses = paying.filter((p) => p.expense);
    const paid = [
      ...(forInvoices.length
        ? await registerPayments(
            db,
            scope,
            forInvoices.map((p) => p.invoice!),
          )
        : []
      ).map((o, i) => ({
        l: forInvoices[i]!.l,
        o: 'refused' in o ? o : { transactionId: o.transactionId, journalLineId: o.receivedLineId },
      })),
      ...(forExpenses.length
        ? await payExpenses(
            db,
            scope,
            forExpenses.map((p) => p.expense!),
          )
        : []
      ).map((o, i) => ({
        l: forExpenses[i]!.l,
        o: 'refused' in o ? o : { transactionId: o.transactionId, journalLineId: o.settlementLineId },
      })),
    ];
    const matched: { l: Looked; transactionId: string; journalLineId: string }[] = [];
    for (const { l, o } of paid) {
      if ('refused' in o) out.set(l.line, { outcome: 'unmatched', suggestions: refusedWith(l.suggestions, o.refused) });
      else matched.push({ l, ...o });
    }
    // As markMatched, for many: the line is the payment posting's line on the bank's ledger account.
    const now = new Date();
    const idOf = (m: (typeof matched)[number], type: Target['type']) => (m.l.target!.type === type ? m.l.target!.id : null);
    if (matched.length) {
      await db.$executeRaw`
        UPDATE bank_lines b
           SET status = 'matched', match_type = u.match_type, invoice_id = u.invoice_id, expense_id = u.expense_id, transaction_id = u.transaction_id,
               journal_line_id = u.journal_line_id, matched_by = 'auto', matched_at = ${now}, checked_at = ${now}, suggestions = '[]'::jsonb
          FROM unnest(${matched.map((m) => m.l.line.id)}::uuid[], ${matched.map((m) => m.l.target!.type)}::text[], ${matched.map((m) => idOf(m, 'invoice'))}::uuid[],
                      ${matched.map((m) => idOf(m, 'expense'))}::uuid[], ${matched.map((m) => m.transactionId)}::uuid[], ${matched.map((m) => m.journalLineId)}::uuid[])
            AS u(id, match_type, invoice_id, expense_id, transaction_id, journal_line_id)
         WHERE b.id = u.id AND b.company_id = ${scope.companyId}::uuid`;
    }
    await db.$executeRaw`RELEASE SAVEPOINT bank_batch`;
    for (const m of matched) out.set(m.l.line, { outcome: 'matched', suggestions: [] });
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    await db.$executeRaw`ROLLBACK TO SAVEPOINT bank_batch`;
    await db.$executeRaw`RELEASE SAVEPOINT bank_batch`;
    for (const { l } of paying) out.set(l.line, await matchOne(db, scope, l));
  }
}

/**
 * One batch of lines of one company, in the caller's transaction. Each line is taken with SKIP LOCKED
 * and only while unmatched (in id order, as every matcher takes them); what they may pay is read for
 * all of them at once (findCandidatesMany). A line whose rules looked at an invoice, expense or posting
 * that an earlier line of the batch matches is left for the next round, which sees that match, as one
 * line after another would.
 */
async function matchBatch(db: Db, scope: CompanyScope, ids: string[]): Promise<Map<string, Outcome>> {
  const order = new Map(ids.map((id, i) => [id, i]));
  // Locked and read in one statement (as lockLine, with SKIP LOCKED): each row as the last commit left it.
  const taken = await db.$queryRaw<BankLine[]>`
    SELECT * FROM bank_lines WHERE id = ANY(${ids}::uuid[]) AND company_id = ${scope.companyId}::uuid AND status = 'unmatched'
     ORDER BY id FOR UPDATE SKIP LOCKED`;
  const outcomes = new Map<string, Outcome>(ids.map((id) => [id, 'skipped']));
  if (!taken.length) return outcomes;
  const accounts = new Map(
    (await db.bankAccount.findMany({ where: { company_id: scope.companyId, id: { in: [...new Set(taken.map((l) => l.bank_account_id))] } } })).map((a) => [
      a.id,
      a,
    ]),
  );
  const lines = taken.map((l) => ({ ...l, bank_account: accounts.get(l.bank_account_id)! })).sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  const ledger = new Map(
    (
      await db.account.findMany({
        where: { company_id: scope.companyId, account_number: { in: [...new Set(lines.map((l) => l.bank_account.account_number))] } },
        select: { id: true, account_number: true },
      })
    ).map((a) => [a.account_number, a.id]),
  );
  const items = lines.map((line) => {
    const ledgerAccountId = ledger.get(line.bank_account.account_number);
    if (!ledgerAccountId) throw new Error(`The chart of accounts has no account ${line.bank_account.account_number} of bank account ${line.bank_account.id}.`);
    return { line, bank: { account: line.bank_account, ledgerAccountId } };
  });
  const found: Found[] = await findCandidatesMany(db, scope, items);
  const done: Done = new Map();
  const documentMatches: Looked[] = [];
  // What the batch's earlier lines match: a later line whose rules looked at one of them waits for the next round.
  const claimed = new Set<string>();
  const keyOf = (t: { type: string; id: string }) => `${t.type}:${t.id}`;
  for (const [i, { line, bank }] of items.entries()) {
    const f = found[i]!;
    const l: Looked = { line, bank, suggestions: rankSuggestions(f.suggestions), target: f.certain.length === 1 ? f.certain[0] : undefined };
    if ([...f.certain, ...f.suggestions].some((t) => claimed.has(keyOf(t)))) done.set(line, { outcome: 'skipped', suggestions: l.suggestions });
    else if (!l.target) done.set(line, { outcome: 'unmatched', suggestions: l.suggestions });
    else {
      claimed.add(keyOf(l.target));
      if (l.target.type === 'invoice' || l.target.type === 'expense') documentMatches.push(l);
      else done.set(line, await matchOne(db, scope, l));
    }
  }
  if (documentMatches.length) await matchDocuments(db, scope, documentMatches, done);
  // The lines looked at and not matched: checked, with their suggestions, in one statement.
  const unmatched = [...done].filter(([, d]) => d.outcome === 'unmatched');
  if (unmatched.length) {
    await db.$executeRaw`
      UPDATE bank_lines b SET checked_at = ${new Date()}, suggestions = u.suggestions::jsonb
        FROM unnest(${unmatched.map(([l]) => l.id)}::uuid[], ${unmatched.map(([, d]) => JSON.stringify(d.suggestions))}::text[]) AS u(id, suggestions)
       WHERE b.id = u.id AND b.status = 'unmatched'`;
  }
  for (const [line, d] of done) outcomes.set(line.id, d.outcome);
  return outcomes;
}

export interface MatchRound {
  checked: number;
  matched: number;
}

/**
 * Matches the lines automatic matching has not looked at yet, of one bank account or of every company
 * (the worker's sweep), at most `limit` lines, AUTO_BATCH lines per transaction. The companies take turns:
 * each batch is shared equally among the companies with lines waiting, so that one company's statement
 * of 100,000 lines does not keep another's lines waiting through the sweep's rounds.
 */
export async function autoMatch(run: InTransaction, db: Db, o: { bankAccountId?: string; limit?: number } = {}): Promise<MatchRound> {
  const limit = o.limit ?? 10_000;
  const round: MatchRound = { checked: 0, matched: 0 };
  const unchecked = Prisma.sql`b.checked_at IS NULL AND b.status = 'unmatched' ${o.bankAccountId ? Prisma.sql`AND b.bank_account_id = ${o.bankAccountId}::uuid` : Prisma.empty}`;
  // Most sweeps find nothing to do: no transaction for them.
  if (!(await db.$queryRaw<unknown[]>`SELECT 1 FROM bank_lines b WHERE ${unchecked} LIMIT 1`).length) return round;
  while (round.checked < limit) {
    const done = await run(async (tx) => {
      // The companies take turns (decision 488): each of those with lines waiting (the longest waiting
      // first) gets an equal share of the batch, its oldest lines that no other matcher or request holds
      // (two matchers take different lines).
      const size = Math.min(AUTO_BATCH, limit - round.checked);
      const waiting = await tx.$queryRaw<{ company_id: string }[]>`
        SELECT b.company_id FROM bank_lines b WHERE ${unchecked} GROUP BY b.company_id ORDER BY min(b.booking_date), b.company_id LIMIT ${size}`;
      if (!waiting.length) return [];
      const share = Math.ceil(size / waiting.length);
      const batch = await tx.$queryRaw<{ id: string; company_id: string; livemode: boolean }[]>`
        SELECT l.id, c.id AS company_id, c.sandbox_of_id IS NULL AS livemode
          FROM companies c
          CROSS JOIN LATERAL (SELECT b.id, b.booking_date FROM bank_lines b WHERE b.company_id = c.id AND ${unchecked}
                               ORDER BY b.booking_date, b.id LIMIT ${share} FOR UPDATE OF b SKIP LOCKED) l
         WHERE c.id = ANY(${waiting.map((w) => w.company_id)}::uuid[])
         ORDER BY l.booking_date, l.id`;
      const companies = new Map<string, { scope: CompanyScope; ids: string[] }>();
      for (const l of batch) {
        const c = companies.get(l.company_id) ?? { scope: { companyId: l.company_id, livemode: l.livemode }, ids: [] };
        c.ids.push(l.id);
        companies.set(l.company_id, c);
      }
      const outcomes: Outcome[] = [];
      for (const { scope, ids } of companies.values()) outcomes.push(...(await matchBatch(tx, scope, ids)).values());
      return outcomes;
    });
    const looked = done.filter((d) => d !== 'skipped');
    round.checked += looked.length;
    round.matched += looked.filter((d) => d === 'matched').length;
    // Nothing left that no one else holds, or every line waits on a row another holds or an earlier line's match: leave them to the next round.
    if (!looked.length) break;
  }
  return round;
}
