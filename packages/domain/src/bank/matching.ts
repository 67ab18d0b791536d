// Matching bank lines to what they pay (Order 15): automatically when one registration is unambiguous,
// by hand otherwise. A match posts the payment through the invoice and expense functions, in the same
// transaction as the line's new state; the line's row lock and the unique ledger line make it happen once.
import { Prisma, type BankAccount, type BankLine, type Db, type InTransaction } from '@tlr/db';
import { addDays, fromDate, today } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest, notFound } from '../errors.ts';
import { bookingLines, expenseVat } from '../expenses/rules.ts';
import { reverseExpensePayment } from '../expenses/reverse-expense-payment.ts';
import { setExpenseStatus } from '../expenses/set-expense-status.ts';
import { registerPayment } from '../invoices/register-payment.ts';
import { reversePayment } from '../invoices/reverse-payment.ts';
import { OPEN_STATUSES, type InvoiceStatus } from '../invoices/rules.ts';
import { postReversalOf } from '../ledger/documents.ts';
import { postTransaction } from '../ledger/post.ts';
import { reversingLines, type PostingLine } from '../ledger/rules.ts';
import { Decimal } from '../money.ts';
import { vatFromGross } from '../vat.ts';
import { isSalesKind, vatLines } from '../vat/codes.ts';
import { postableCode, vatCodesOf } from '../vat/treatments.ts';
import { candidateTokens, fiPaymentIdsIn, rankSuggestions, sameParty, type Suggestion } from './rules.ts';
import type { MatchInput, PostLineInput } from './schema.ts';

export const MATCH_TYPES = ['invoice', 'expense', 'transaction', 'posting'] as const;
export type MatchType = (typeof MATCH_TYPES)[number];
/** How far a posting's date may lie from the bank's booking date to be matched by amount and date. */
export const POSTING_WINDOW_DAYS = 7;

interface Bank {
  account: BankAccount;
  ledgerAccountId: string;
}
interface Target {
  type: Exclude<MatchType, 'posting'>;
  id: string;
  /** The ledger line a transaction match reconciles with (found by the rule or checked for the manual match). */
  journalLineId?: string;
}
interface Found {
  certain: Target[];
  suggestions: Suggestion[];
}

const dec = (v: { toString(): string }) => new Decimal(v.toString());

/** The line of the caller's company, locked until the transaction ends, with its bank account. */
async function lockLine(db: Db, scope: CompanyScope, id: string, skipLocked = false): Promise<{ line: BankLine; bank: Bank } | null> {
  const rows = skipLocked
    ? await db.$queryRaw<{ id: string }[]>`SELECT id FROM bank_lines WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE SKIP LOCKED`
    : await db.$queryRaw<{ id: string }[]>`SELECT id FROM bank_lines WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`;
  if (!rows.length) {
    if (skipLocked) return null;
    throw notFound('bank line', id);
  }
  const line = await db.bankLine.findUniqueOrThrow({ where: { id }, include: { bank_account: true } });
  const ledger = await db.account.findUniqueOrThrow({
    where: { company_id_account_number: { company_id: scope.companyId, account_number: line.bank_account.account_number } },
    select: { id: true },
  });
  return { line, bank: { account: line.bank_account, ledgerAccountId: ledger.id } };
}

/**
 * A ledger line's amount in the bank account's currency, signed as the bank's (+ money in = debit):
 * DKK from debit and credit, another currency from the amount each line records in it (§ 15).
 */
const ledgerAmount = (currency: string) =>
  currency === 'DKK'
    ? Prisma.sql`(l.debit - l.credit)`
    : Prisma.sql`(CASE WHEN l.currency = ${currency} THEN sign(l.debit - l.credit) * l.currency_amount END)`;

/** Ledger lines on the bank's account that no bank line reconciles yet, of the amount, in the transaction or the date window. */
function openLedgerLines(db: Db, scope: CompanyScope, bank: Bank, amount: Decimal, where: Prisma.Sql, near = '2000-01-01') {
  return db.$queryRaw<{ id: string; transaction_id: string; date: Date; description: string }[]>`
    SELECT l.id, l.transaction_id, t.date, t.description
      FROM transaction_lines l JOIN ledger_transactions t ON t.id = l.transaction_id
     WHERE l.company_id = ${scope.companyId}::uuid AND l.account_id = ${bank.ledgerAccountId}::uuid
       AND ${ledgerAmount(bank.account.currency)} = ${amount.toFixed(2)}::numeric AND ${where}
       AND NOT EXISTS (SELECT 1 FROM bank_lines b WHERE b.journal_line_id = l.id)
     ORDER BY abs(t.date - ${near}::date), l.id
     LIMIT 20`;
}

/** What the line may pay, rule by rule (Order 15, item 4); the first rule with one certain target decides. */
async function candidates(db: Db, scope: CompanyScope, line: BankLine, bank: Bank): Promise<Found> {
  const amount = dec(line.amount);
  const currency = bank.account.currency;
  const suggestions: Suggestion[] = [];
  const decide = (certain: Target[]): Found | undefined => (certain.length ? { certain, suggestions } : undefined);
  const open = (status: string) => OPEN_STATUSES.includes(status as InvoiceStatus);
  const due = (i: { total: Prisma.Decimal; paid_amount: Prisma.Decimal }) => dec(i.total).minus(dec(i.paid_amount));
  const text = `${line.reference} ${line.text}`;

  if (amount.greaterThan(0)) {
    // 1. The FI payment id (+71) of an invoice: certain when the invoice is open and the amount within its balance.
    const ids = fiPaymentIdsIn(text);
    if (ids.length) {
      const invoices = await db.invoice.findMany({ where: { company_id: scope.companyId, payment_id: { in: ids } } });
      const certain: Target[] = [];
      for (const i of invoices) {
        const reasons = [`FI payment id ${i.payment_id} of invoice ${i.invoice_number}`];
        if (!open(i.status)) reasons.push(`the invoice is ${i.status}`);
        else if (i.currency !== currency) reasons.push(`the invoice is in ${i.currency}, the account in ${currency}`);
        else if (amount.greaterThan(due(i))) reasons.push(`${amount.toFixed(2)} exceeds the balance due ${due(i).toFixed(2)}`);
        else certain.push({ type: 'invoice', id: i.id });
        suggestions.push({ type: 'invoice', id: i.id, score: 100, reasons });
      }
      const decided = decide(certain);
      if (decided) return decided;
    }
    // 2. The amount and an invoice number in the text: certain when the balance due is exactly the amount.
    const tokens = candidateTokens(text);
    if (tokens.length) {
      const invoices = await db.invoice.findMany({
        where: { company_id: scope.companyId, invoice_number: { in: tokens }, status: { in: [...OPEN_STATUSES] }, currency },
      });
      const certain: Target[] = [];
      for (const i of invoices) {
        const exact = due(i).equals(amount);
        if (exact) certain.push({ type: 'invoice', id: i.id });
        const reasons = [`invoice number ${i.invoice_number} in the text`];
        reasons.push(exact ? `the amount equals the balance due` : `the balance due is ${due(i).toFixed(2)}`);
        suggestions.push({ type: 'invoice', id: i.id, score: exact ? 90 : 50, reasons });
      }
      const decided = decide(certain);
      if (decided) return decided;
    }
  }

  // 3. The amount and the supplier (IBAN, or name in the counterparty or the text): a booked expense,
  //    a bill paid (money out) or a supplier's credit note refunded (money in).
  const expenses = await db.expense.findMany({
    where: { company_id: scope.companyId, status: 'booked', currency, amount: amount.negated().toFixed(2) },
    take: 50,
  });
  const supplierIds = [...new Set(expenses.flatMap((e) => (e.supplier_id ? [e.supplier_id] : [])))];
  const suppliers = new Map(
    (supplierIds.length ? await db.supplier.findMany({ where: { company_id: scope.companyId, id: { in: supplierIds } } }) : []).map((s) => [s.id, s]),
  );
  const certainExpenses: Target[] = [];
  for (const e of expenses) {
    const supplier = e.supplier_id ? suppliers.get(e.supplier_id) : undefined;
    const party = supplier ? sameParty(supplier, line) : undefined;
    if (party) certainExpenses.push({ type: 'expense', id: e.id });
    const reasons = [`the amount equals the expense's ${dec(e.amount).toFixed(2)}`, ...(party ? [party] : [])];
    suggestions.push({ type: 'expense', id: e.id, score: party ? 80 : 30, reasons });
  }
  const byExpense = decide(certainExpenses);
  if (byExpense) return byExpense;

  // 4. The amount and the date, within a window: a posting on the bank account not yet reconciled.
  const booked = fromDate(line.booking_date);
  const postings = await openLedgerLines(
    db,
    scope,
    bank,
    amount,
    Prisma.sql`t.date BETWEEN ${addDays(booked, -POSTING_WINDOW_DAYS)}::date AND ${addDays(booked, POSTING_WINDOW_DAYS)}::date`,
    booked,
  );
  for (const p of postings) {
    const days = Math.abs(Math.round((p.date.getTime() - line.booking_date.getTime()) / 86_400_000));
    suggestions.push({
      type: 'transaction',
      id: p.transaction_id,
      score: 60 - days,
      reasons: [
        `a posting of ${amount.toFixed(2)} on account ${bank.account.account_number}`,
        `dated ${fromDate(p.date)}, ${days} day(s) from the bank's date`,
      ],
    });
  }
  return { certain: postings.map((p) => ({ type: 'transaction', id: p.transaction_id, journalLineId: p.id })), suggestions };
}

/** Posts (or links) the target and marks the line matched; the caller holds the line's lock. */
async function apply(db: Db, scope: CompanyScope, line: BankLine, bank: Bank, target: Target, by: 'auto' | 'manual'): Promise<BankLine> {
  const amount = dec(line.amount);
  const date = fromDate(line.booking_date);
  const settle = { date, account_number: bank.account.account_number };
  let transactionId: string;
  switch (target.type) {
    case 'invoice': {
      if (!amount.greaterThan(0)) throw invalidRequest(`A bank line of ${amount.toFixed(2)} is money out; an invoice is paid by money in.`, 'invoice_id');
      // The line's amount is in the bank account's currency; registerPayment reads it in the invoice's.
      const invoice = await db.invoice.findFirst({ where: { id: target.id, company_id: scope.companyId }, select: { currency: true } });
      if (invoice && invoice.currency !== bank.account.currency) {
        throw invalidRequest(`The invoice is in ${invoice.currency}; the bank account is in ${bank.account.currency}.`, 'invoice_id');
      }
      transactionId = (await registerPayment(db, scope, target.id, { amount, ...settle })).transaction_id;
      break;
    }
    case 'expense': {
      const expense = await db.expense.findFirst({ where: { id: target.id, company_id: scope.companyId } });
      if (!expense) throw notFound('expense', target.id);
      if (!dec(expense.amount).negated().equals(amount)) {
        throw invalidRequest(
          `The bank line of ${amount.toFixed(2)} does not pay expense ${target.id} of ${dec(expense.amount).toFixed(2)}: an expense is paid in full, the bank line carrying minus its amount.`,
          'expense_id',
        );
      }
      if (expense.currency !== bank.account.currency) {
        throw invalidRequest(`The expense is in ${expense.currency}; the bank account is in ${bank.account.currency}.`, 'expense_id');
      }
      await setExpenseStatus(db, scope, target.id, { status: 'paid', ...settle });
      transactionId = (await db.expense.findUniqueOrThrow({ where: { id: target.id } })).payment_transaction_id!;
      break;
    }
    case 'transaction':
      transactionId = target.id;
      break;
  }
  const journalLineId = target.journalLineId ?? (await openLedgerLines(db, scope, bank, amount, Prisma.sql`l.transaction_id = ${transactionId}::uuid`))[0]?.id;
  if (!journalLineId) {
    throw invalidRequest(
      `Transaction ${transactionId} has no line of ${amount.toFixed(2)} ${bank.account.currency} on account ${bank.account.account_number} that no other bank line reconciles.`,
      'transaction_id',
    );
  }
  return markMatched(db, line.id, {
    match_type: target.type,
    invoice_id: target.type === 'invoice' ? target.id : null,
    expense_id: target.type === 'expense' ? target.id : null,
    transaction_id: transactionId,
    journal_line_id: journalLineId,
    matched_by: by,
  });
}

function markMatched(
  db: Db,
  id: string,
  m: Pick<BankLine, 'match_type' | 'invoice_id' | 'expense_id' | 'transaction_id' | 'journal_line_id' | 'matched_by'>,
): Promise<BankLine> {
  const now = new Date();
  // The unique journal_line_id is the last word: a ledger line taken by a concurrent match fails here, and the whole match rolls back.
  return db.bankLine
    .update({ where: { id }, data: { ...m, status: 'matched', matched_at: now, checked_at: now, suggestions: [] } })
    .catch((e: unknown) =>
      Promise.reject(
        e instanceof Prisma.PrismaClientKnownRequestError && e.code === 'P2002'
          ? new DomainError('conflict', 'The ledger line was reconciled with another bank line at the same moment; fetch the line and retry.')
          : e,
      ),
    );
}

const alreadyMatched = (line: BankLine) =>
  new DomainError('bank_line_matched', `Bank line ${line.id} is already matched (${line.match_type}); unmatch it first.`, undefined, {
    current_status: line.status,
  });

export async function getBankLine(db: Db, scope: CompanyScope, id: string): Promise<BankLine> {
  const line = await db.bankLine.findFirst({ where: { id, company_id: scope.companyId } });
  if (!line) throw notFound('bank line', id);
  return line;
}

/** POST /bank-lines/{id}/match: the user names what the line pays. */
export async function matchBankLine(db: Db, scope: CompanyScope, id: string, input: MatchInput): Promise<BankLine> {
  const given = (['invoice_id', 'expense_id', 'transaction_id'] as const).filter((k) => input[k] !== undefined);
  if (given.length !== 1) throw invalidRequest('Name exactly one of invoice_id, expense_id and transaction_id.', given[1] ?? 'invoice_id');
  const locked = (await lockLine(db, scope, id))!;
  if (locked.line.status === 'matched') throw alreadyMatched(locked.line);
  const field = given[0]!;
  if (field === 'transaction_id') {
    const tx = await db.ledgerTransaction.findFirst({ where: { id: input.transaction_id!, company_id: scope.companyId }, select: { id: true } });
    if (!tx) throw invalidRequest(`No transaction ${input.transaction_id} in the company's books.`, 'transaction_id');
  }
  const type = field.replace('_id', '') as Target['type'];
  return apply(db, scope, locked.line, locked.bank, { type, id: input[field]! }, 'manual');
}

/**
 * POST /bank-lines/{id}/post: a line that pays no document (a fee, interest, an owner's draw) is posted
 * to an account, the bank's ledger account on the other side. The amount includes the VAT of the code:
 * a purchase code splits it as an expense's booking does, a sales code as a sale's; money the other way
 * posts the mirror (a refund), so the VAT return sees it reduced.
 */
export async function postBankLine(db: Db, scope: CompanyScope, id: string, input: PostLineInput): Promise<BankLine> {
  const { line, bank } = (await lockLine(db, scope, id))!;
  if (line.status === 'matched') throw alreadyMatched(line);
  const account = await db.account.findUnique({ where: { company_id_account_number: { company_id: scope.companyId, account_number: input.account_number } } });
  if (!account) throw invalidRequest(`No account ${input.account_number} in the chart of accounts.`, 'account_number');
  if (!account.active) throw new DomainError('account_inactive', `Account ${account.account_number} is deactivated.`, 'account_number');
  if (account.id === bank.ledgerAccountId)
    throw invalidRequest(`Account ${account.account_number} is the bank account's own ledger account.`, 'account_number');
  if (bank.account.currency !== 'DKK') {
    throw invalidRequest(
      `A line of a ${bank.account.currency} account is matched to a document or a posting in its currency, not posted from here.`,
      'account_number',
    );
  }
  const amount = dec(line.amount);
  const size = amount.abs();
  const text = (input.description ?? (line.text || line.counterparty_name || 'Bankpostering')).slice(0, 500);
  const plain: PostingLine[] = [
    { accountId: bank.ledgerAccountId, debit: size, credit: new Decimal(0), description: text, vatCode: '' },
    { accountId: account.id, debit: new Decimal(0), credit: size, description: text, vatCode: '' },
  ];
  let lines = amount.isNegative() ? reversingLines(plain) : plain;
  if (input.vat_code) {
    const code = (await vatCodesOf(db, scope, [input.vat_code])).get(input.vat_code);
    if (!code || !code.active) throw invalidRequest(`Unknown VAT code ${input.vat_code}; GET /vat-codes lists the company's codes.`, 'vat_code');
    postableCode(code, 'vat_code');
    if (isSalesKind(code.kind)) {
      // Money in under a sales code: the bank is debited the gross, the account credited the base, the VAT owed.
      const vat = code.kind === 'output' ? vatFromGross(size, code.rate).vat : new Decimal(0);
      const sale: PostingLine[] = [
        { accountId: bank.ledgerAccountId, debit: size, credit: new Decimal(0), description: text, vatCode: '' },
        { accountId: account.id, debit: new Decimal(0), credit: size.minus(vat), description: text, vatCode: code.code },
        ...vatLines(code, vat, text).lines,
      ];
      lines = amount.isNegative() ? reversingLines(sale) : sale;
    } else {
      // Money out under a purchase code is a bill paid at once: the expense's booking with the bank for payables.
      const bill = bookingLines(
        { costAccountId: account.id, payableAccountId: bank.ledgerAccountId, amount: size, vat: expenseVat(code, size, undefined), text },
        code,
      );
      lines = amount.isNegative() ? bill : reversingLines(bill);
    }
  }
  const posted = await postTransaction(db, scope, { date: fromDate(line.booking_date), description: text, source: 'bank', sourceId: line.id, lines });
  const [journal] = await openLedgerLines(db, scope, bank, amount, Prisma.sql`l.transaction_id = ${posted.id}::uuid`);
  return markMatched(db, line.id, {
    match_type: 'posting',
    invoice_id: null,
    expense_id: null,
    transaction_id: posted.id,
    journal_line_id: journal!.id,
    matched_by: 'manual',
  });
}

/**
 * POST /bank-lines/{id}/unmatch: the line is unmatched again. What the match posted is reversed by a new
 * entry (the invoice's or expense's payment, the line's own posting); a posting that was only found is
 * left as it was, no longer reconciled.
 */
export async function unmatchBankLine(db: Db, scope: CompanyScope, id: string): Promise<BankLine> {
  const { line } = (await lockLine(db, scope, id))!;
  if (line.status !== 'matched') {
    throw new DomainError('bank_line_not_matched', `Bank line ${line.id} is not matched.`, undefined, { current_status: line.status });
  }
  const date = today();
  if (line.match_type === 'invoice') await reversePayment(db, scope, line.transaction_id!, date);
  if (line.match_type === 'expense') await reverseExpensePayment(db, scope, line.expense_id!, date);
  if (line.match_type === 'posting') {
    await postReversalOf(db, scope, line.transaction_id!, {
      date: date < fromDate(line.booking_date) ? fromDate(line.booking_date) : date,
      description: `Tilbageført bankpostering: ${line.text}`.slice(0, 500),
      source: 'reversal',
      sourceId: line.id,
    });
  }
  return db.bankLine.update({
    where: { id },
    data: {
      status: 'unmatched',
      match_type: null,
      invoice_id: null,
      expense_id: null,
      transaction_id: null,
      journal_line_id: null,
      matched_by: null,
      matched_at: null,
      // A line unmatched by hand is not matched again by the machine: it was wrong once.
      checked_at: new Date(),
    },
  });
}

/** Lines matched per transaction: a transaction costs far more than a line's statements (docs/perf.md). */
const AUTO_BATCH = 100;

/** The invoice or expense a match would pay, locked unless another transaction holds it (then: null). */
async function lockTarget(db: Db, target: Target): Promise<boolean> {
  if (target.type === 'transaction') return true;
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
    const found = locked && locked.line.status === 'unmatched' ? await candidates(db, scope, locked.line, locked.bank) : undefined;
    suggestions = rankSuggestions(found?.suggestions ?? []);
    const target = found?.certain.length === 1 ? found.certain[0]! : undefined;
    if (!locked || !found || (target && !(await lockTarget(db, target)))) outcome = 'skipped';
    else if (target) {
      await apply(db, scope, locked.line, locked.bank, target, 'auto');
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
 * (the worker's sweep), at most `limit` lines, oldest first, AUTO_BATCH lines per transaction.
 */
export async function autoMatch(run: InTransaction, db: Db, o: { bankAccountId?: string; limit?: number } = {}): Promise<MatchRound> {
  const limit = o.limit ?? 10_000;
  const round: MatchRound = { checked: 0, matched: 0 };
  while (round.checked < limit) {
    const batch = await db.$queryRaw<{ id: string; company_id: string; livemode: boolean }[]>`
      SELECT b.id, b.company_id, c.sandbox_of_id IS NULL AS livemode FROM bank_lines b JOIN companies c ON c.id = b.company_id
       WHERE b.checked_at IS NULL AND b.status = 'unmatched' ${o.bankAccountId ? Prisma.sql`AND b.bank_account_id = ${o.bankAccountId}::uuid` : Prisma.empty}
       ORDER BY b.booking_date, b.id LIMIT ${Math.min(AUTO_BATCH, limit - round.checked)}`;
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
