// Where a company's books in tlr begin, for a company that did not start here:
//   - the year before the first (POST /fiscal-years): opened while nothing is posted before the first
//     year, so that last year's books can be posted or imported and closed here;
//   - the opening balances (POST /opening-balances): one balanced entry of balance-sheet accounts, dated
//     the day before the first year (in none of the years: the first year's reports read it as their
//     opening balance), posted through the one journal writer; receivables and payables per customer
//     and supplier. docs/reports.md#where-the-books-begin; decisions 560-566.
import { Prisma, type Account, type Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest, notFound } from '../errors.ts';
import { addDays, fromDate, toDate, today } from '../calendar.ts';
import { alreadyMatched, lockLine, postAndMatch } from '../bank/bank-line-match.ts';
import { newId } from '../ids.ts';
import { amountToJson, Decimal, decimalOf } from '../money.ts';
import { postReversalOf, settlementAccount } from './documents.ts';
import { createFiscalYear, firstOpenDay } from './books.ts';
import { fiscalYearContaining } from './fiscal-years.ts';
import { DEFAULT_ACCOUNTS } from './default-accounts.ts';
import { postTransaction, type PostingSource } from './post.ts';
import { lineField } from './rules.ts';
import { resolveLines, type TransactionLineInput } from './transactions.ts';
import { listFiscalYears } from './year-end.ts';
import type { TransactionView } from './views.ts';

/** The source of the opening-balance entry: GET /transactions shows it; it is not reversed like a manual posting. */
export const OPENING_BALANCE_SOURCE = 'opening_balance' satisfies PostingSource;

/**
 * The company (row locked until commit: opening a year and entering opening balances take turns) and
 * its first fiscal year; refused while a posting is dated before that year.
 */
async function firstYearWithNothingBefore(db: Db, companyId: string) {
  const [company] = await db.$queryRaw<{ id: string; fiscal_year_start_month: number; vat_period_frequency: string }[]>`
    SELECT id, fiscal_year_start_month, vat_period_frequency FROM companies WHERE id = ${companyId}::uuid FOR UPDATE`;
  const first = await db.fiscalYear.findFirst({ where: { company_id: companyId }, orderBy: { start_date: 'asc' } });
  if (!company || !first) throw invalidRequest('The company has no fiscal year.', 'start');
  const start = fromDate(first.start_date);
  const before = await db.ledgerTransaction.findFirst({
    where: { company_id: companyId, date: { lt: first.start_date } },
    orderBy: [{ date: 'asc' }, { system_id: 'asc' }],
    select: { date: true, document_number: true, source: true },
  });
  return { company, start, before };
}

const precededBy = (start: string, p: { date: Date; document_number: bigint; source: string }, field: string) =>
  p.source === OPENING_BALANCE_SOURCE
    ? new DomainError(
        'postings_before_first_year',
        `The opening balances (voucher ${p.document_number}) are dated ${fromDate(p.date)}, before the first fiscal year (from ${start}).`,
        field,
      )
    : new DomainError(
        'postings_before_first_year',
        `Voucher ${p.document_number} is dated ${fromDate(p.date)}, before the first fiscal year (from ${start}).`,
        field,
      );

/**
 * Opens the fiscal year before the company's first: `start` must be its first day (the year ends the
 * day before the first year begins; 400 otherwise), and nothing may be posted before the first year (409).
 */
export async function openEarlierFiscalYear(db: Db, scope: CompanyScope, start: string) {
  const { company, start: firstStart, before } = await firstYearWithNothingBefore(db, scope.companyId);
  if (start === firstStart || (await db.fiscalYear.findFirst({ where: { company_id: scope.companyId, start_date: toDate(start) } }))) {
    throw new DomainError('fiscal_year_exists', `The fiscal year from ${start} exists already.`, 'start');
  }
  const year = fiscalYearContaining(addDays(firstStart, -1), company.fiscal_year_start_month);
  if (start !== year.start) {
    throw invalidRequest(
      `The year to open is the one before the first fiscal year (from ${firstStart}): start is ${year.start}, and it ends ${year.end}.`,
      'start',
    );
  }
  if (before) throw precededBy(firstStart, before, 'start');
  await createFiscalYear(db, company, year);
  return (await listFiscalYears(db, scope.companyId)).find((y) => y.start_date === start)!;
}

export interface OpeningBalanceLineInput extends TransactionLineInput {
  customer_id?: string | undefined;
  supplier_id?: string | undefined;
  /** A customer's or supplier's line: when it falls due (default the entry's date; decision 851). */
  due_date?: string | undefined;
}

/**
 * Posts the opening balances: one balanced entry dated the day before the first fiscal year. Refused
 * (409) when they exist already or anything else is dated before the first year. Every line is a
 * balance-sheet account; a line on the receivables account names its customer, one on the payables
 * account its supplier (the line's text names them), and may carry its due date: each such line is kept
 * as an open item of its party (opening_balance_items) for the aged lists and the statement (decision 850).
 */
export async function postOpeningBalances(
  db: Db,
  scope: CompanyScope,
  input: { description?: string | undefined; lines: OpeningBalanceLineInput[] },
): Promise<TransactionView> {
  const { start, before } = await firstYearWithNothingBefore(db, scope.companyId);
  if (before?.source === OPENING_BALANCE_SOURCE) {
    throw new DomainError('opening_balances_exist', `The opening balances are posted already (voucher ${before.document_number}, ${fromDate(before.date)}).`);
  }
  if (before) throw precededBy(start, before, 'lines');
  const lines = await resolveLines(db, scope, input.lines);
  const customerIds = input.lines.flatMap((l) => (l.customer_id ? [l.customer_id] : []));
  const supplierIds = input.lines.flatMap((l) => (l.supplier_id ? [l.supplier_id] : []));
  const [customers, suppliers, accounts] = await Promise.all([
    db.customer.findMany({ where: { company_id: scope.companyId, id: { in: customerIds } }, select: { id: true, name: true } }),
    db.supplier.findMany({ where: { company_id: scope.companyId, id: { in: supplierIds } }, select: { id: true, name: true } }),
    db.account.findMany({ where: { company_id: scope.companyId, id: { in: lines.map((l) => l.accountId) } }, select: { id: true, type: true } }),
  ]);
  const names = new Map([...customers, ...suppliers].map((p) => [p.id, p.name]));
  const date = addDays(start, -1);
  const types = new Map(accounts.map((a) => [a.id, a.type]));
  input.lines.forEach((l, i) => {
    const line = lines[i]!;
    const number = line.account!.account_number;
    const field = lineField(i);
    if (types.get(line.accountId) === 'revenue' || types.get(line.accountId) === 'expense') {
      throw invalidRequest(
        `Account ${number} is a profit and loss account: opening balances are balance-sheet accounts (earlier years' result is equity, ${DEFAULT_ACCOUNTS.yearResult}).`,
        `${field}.account_number`,
      );
    }
    const party = (kind: 'customer' | 'supplier', account: string, id: string | undefined) => {
      if (number === account && !id)
        throw invalidRequest(`A line on the ${kind === 'customer' ? 'receivables' : 'payables'} account ${account} names its ${kind}.`, `${field}.${kind}_id`);
      if (id && number !== account) throw invalidRequest(`A ${kind} is named on a line of account ${account} only.`, `${field}.${kind}_id`);
      if (id && !names.has(id)) throw invalidRequest(`No ${kind} ${id} in the company.`, `${field}.${kind}_id`);
    };
    party('customer', DEFAULT_ACCOUNTS.receivable, l.customer_id);
    party('supplier', DEFAULT_ACCOUNTS.payable, l.supplier_id);
    const named = l.customer_id ?? l.supplier_id;
    if (l.due_date && !named) throw invalidRequest('A due date is given on a line that names its customer or supplier only.', `${field}.due_date`);
    if (l.due_date && l.due_date < date) throw invalidRequest(`The due date ${l.due_date} is before the entry's date ${date}.`, `${field}.due_date`);
    if (named && !line.description) line.description = `Åbningssaldo ${names.get(named)}`;
  });
  const entry = await postTransaction(
    db,
    scope,
    { date, description: input.description ?? `Åbningsbalance pr. ${date}`, lines, source: OPENING_BALANCE_SOURCE },
    { beforeYears: true },
  );
  // What each customer owes (debit less credit) and each supplier is owed (credit less debit).
  const items = input.lines.flatMap((l, i) => {
    if (!l.customer_id && !l.supplier_id) return [];
    const { debit, credit } = lines[i]!;
    return [
      {
        company_id: scope.companyId,
        transaction_id: entry.id,
        line_number: entry.lines[i]!.line_number,
        customer_id: l.customer_id ?? null,
        supplier_id: l.supplier_id ?? null,
        amount: (l.customer_id ? debit.minus(credit) : credit.minus(debit)).toFixed(2),
        date: toDate(date),
        due_date: toDate(l.due_date ?? date),
      },
    ];
  });
  if (items.length) await db.openingBalanceItem.createMany({ data: items });
  return entry;
}

export interface OpeningBalancePaymentInput {
  customer_id?: string | undefined;
  supplier_id?: string | undefined;
  amount?: Decimal | undefined;
  date?: string | undefined;
  account_id?: string | undefined;
  account_number?: string | undefined;
  bank_line_id?: string | undefined;
}

/**
 * The bank line an opening balance's payment is made from (decision 877), locked: an unmatched line of a
 * DKK bank account, money in for a customer and out for a supplier; its date, account and amount are the
 * payment's (an amount given too must be the same).
 */
async function paymentBankLine(db: Db, scope: CompanyScope, input: OpeningBalancePaymentInput, kind: 'customer' | 'supplier') {
  for (const f of ['date', 'account_id', 'account_number'] as const)
    if (input[f] !== undefined) throw invalidRequest(`${f} is the bank line's; leave it out with bank_line_id.`, f);
  const id = input.bank_line_id!;
  if (!(await db.bankLine.findFirst({ where: { id, company_id: scope.companyId }, select: { id: true } })))
    throw invalidRequest(`No bank line ${id} in this company.`, 'bank_line_id');
  const locked = (await lockLine(db, scope, id))!;
  const { line, bank } = locked;
  if (line.status === 'matched') throw alreadyMatched(line);
  if (bank.account.currency !== 'DKK') throw invalidRequest(`The bank line is in ${bank.account.currency}; an opening balance is paid in DKK.`, 'bank_line_id');
  const amount = decimalOf(line.amount);
  if (kind === 'customer' ? !amount.isPositive() : !amount.isNegative())
    throw invalidRequest(
      `The bank line's amount is ${amount.toFixed(2)}: a customer's payment is money in, a payment to a supplier money out.`,
      'bank_line_id',
    );
  if (input.amount !== undefined && !input.amount.equals(amount.abs()))
    throw invalidRequest(`amount ${input.amount.toFixed(2)} is not the bank line's ${amount.abs().toFixed(2)}; leave it out with bank_line_id.`, 'amount');
  return { ...locked, amount: amount.abs(), date: fromDate(line.booking_date) };
}

/**
 * What is open of a party's opening balances: its items (locked until commit, so payments and their
 * reversals take turns) less its payments not reversed.
 */
async function openOfParty(db: Db, scope: CompanyScope, kind: 'customer' | 'supplier', partyId: string) {
  const column = kind === 'customer' ? Prisma.sql`customer_id` : Prisma.sql`supplier_id`;
  const [items] = await db.$queryRaw<{ n: number; amount: Decimal | null }[]>`
    SELECT count(*)::int AS n, SUM(amount) AS amount FROM (
      SELECT amount FROM opening_balance_items WHERE company_id = ${scope.companyId}::uuid AND ${column} = ${partyId}::uuid FOR UPDATE) i`;
  const paid = await db.openingBalancePayment.aggregate({
    where: { company_id: scope.companyId, [`${kind}_id`]: partyId, reversed_transaction_id: null },
    _sum: { amount: true },
  });
  return { n: items?.n ?? 0, open: decimalOf(items?.amount ?? 0).minus(decimalOf(paid._sum.amount ?? 0)) };
}

/**
 * A payment of a customer's or supplier's opening balance (POST /opening-balances/payments; decision
 * 853): received from the customer (debit the bank, credit receivables) or paid to the supplier (debit
 * payables, credit the bank), at most what is open of the party's opening balances; the aged lists apply
 * it to the party's opening items oldest due first. The party's items are locked while it is checked, so
 * two payments at once cannot pay more than is open.
 */
export async function payOpeningBalance(db: Db, scope: CompanyScope, input: OpeningBalancePaymentInput) {
  const kind = input.customer_id ? 'customer' : 'supplier';
  const partyId = input.customer_id ?? input.supplier_id;
  if (!partyId || (input.customer_id && input.supplier_id))
    throw invalidRequest('Name the customer_id or the supplier_id whose opening balance is paid, one of them.', 'customer_id');
  const field = `${kind}_id`;
  // The bank line first, as a match takes it: then the party's items.
  const fromLine = input.bank_line_id ? await paymentBankLine(db, scope, input, kind) : undefined;
  const amount = fromLine?.amount ?? input.amount;
  if (!amount) throw invalidRequest('amount is required (or bank_line_id, to take it from a bank line).', 'amount');
  const { n, open } = await openOfParty(db, scope, kind, partyId);
  if (!n) throw invalidRequest(`The ${kind} ${partyId} has no opening balance (POST /opening-balances).`, field);
  if (!amount.isPositive() || amount.isZero()) throw invalidRequest('A payment amount must be greater than 0.', 'amount');
  if (amount.greaterThan(open))
    throw new DomainError(
      'overpayment',
      `The payment ${amount.toFixed(2)} exceeds what is open of the ${kind}'s opening balance, ${open.toFixed(2)}.`,
      'amount',
      {
        balance_due: amountToJson(open),
      },
    );
  const party =
    kind === 'customer'
      ? await db.customer.findFirst({ where: { id: partyId, company_id: scope.companyId }, select: { name: true } })
      : await db.supplier.findFirst({ where: { id: partyId, company_id: scope.companyId }, select: { name: true } });
  const bank = await settlementAccount(db, scope, fromLine ? { account_id: fromLine.bank.ledgerAccountId } : input, DEFAULT_ACCOUNTS.bank, [
    DEFAULT_ACCOUNTS.receivable,
    DEFAULT_ACCOUNTS.payable,
  ]);
  const partyAccount = await db.account.findFirst({
    where: { company_id: scope.companyId, account_number: kind === 'customer' ? DEFAULT_ACCOUNTS.receivable : DEFAULT_ACCOUNTS.payable },
  });
  if (!partyAccount)
    throw new DomainError(
      'chart_incomplete',
      `The chart of accounts has no account ${kind === 'customer' ? DEFAULT_ACCOUNTS.receivable : DEFAULT_ACCOUNTS.payable}.`,
    );
  const id = newId();
  const date = fromLine?.date ?? input.date ?? today();
  const text = `Betaling af åbningssaldo: ${party?.name ?? partyId}`.slice(0, 500);
  const zero = new Decimal(0);
  const side = (account: Account, debit: boolean) => ({
    accountId: account.id,
    account: { account_number: account.account_number, name: account.name },
    debit: debit ? amount : zero,
    credit: debit ? zero : amount,
    description: text,
    vatCode: '',
  });
  const posting = {
    description: text,
    source: 'payment' as const,
    sourceId: id,
    lines: kind === 'customer' ? [side(bank, true), side(partyAccount, false)] : [side(partyAccount, true), side(bank, false)],
  };
  // From a bank line: posted on its date and matched to it in the same transaction, as a posting the line made
  // (unmatching it reverses the payment, decision 878).
  let transactionId = '';
  if (fromLine) await postAndMatch(db, scope, fromLine.line, fromLine.bank, posting, 'manual', async (posted) => void (transactionId = posted));
  else transactionId = (await postTransaction(db, scope, { date, ...posting })).id;
  await db.openingBalancePayment.create({
    data: {
      id,
      company_id: scope.companyId,
      customer_id: input.customer_id ?? null,
      supplier_id: input.supplier_id ?? null,
      date: toDate(date),
      amount: amount.toFixed(2),
      transaction_id: transactionId,
    },
  });
  return {
    id,
    customer_id: input.customer_id ?? null,
    supplier_id: input.supplier_id ?? null,
    date,
    amount: amountToJson(amount),
    open_amount: amountToJson(open.minus(amount)),
    transaction_id: transactionId,
    bank_line_id: input.bank_line_id ?? null,
    reversed_transaction_id: null,
  };
}

/**
 * Undoes a payment of an opening balance registered without a bank line (POST
 * /opening-balances/payments/{id}/reverse; decision 890): its posting is reversed by a new entry through
 * the journal writer, dated today (or the payment's date if later; the first open day after a lock or a
 * closed year, decision 571), and the payment keeps the reversal (reversed_transaction_id), so it stops
 * counting as an unmatched line's payment does (decision 878). 409 already_reversed the second time; 409
 * bank_line_matched while a bank line is matched to its posting (unmatch the line instead).
 */
export async function reverseOpeningBalancePayment(db: Db, scope: CompanyScope, id: string) {
  const [row] = await db.$queryRaw<{ id: string }[]>`
    SELECT id FROM opening_balance_payments WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`;
  if (!row) throw notFound('opening balance payment', id);
  const payment = await db.openingBalancePayment.findUniqueOrThrow({ where: { id } });
  if (payment.reversed_transaction_id)
    throw new DomainError('already_reversed', `The payment ${id} was already reversed by ${payment.reversed_transaction_id}.`);
  const line = await db.bankLine.findFirst({ where: { company_id: scope.companyId, transaction_id: payment.transaction_id, status: 'matched' } });
  if (line)
    throw new DomainError(
      'bank_line_matched',
      `Bank line ${line.id} is matched to the payment's posting; unmatch the line (POST /bank-lines/{id}/unmatch) instead.`,
      undefined,
      { current_status: line.status },
    );
  const kind = payment.customer_id ? 'customer' : 'supplier';
  const partyId = (payment.customer_id ?? payment.supplier_id)!;
  const paidOn = fromDate(payment.date);
  const reversal = await postReversalOf(db, scope, payment.transaction_id, {
    date: await firstOpenDay(db, scope.companyId, today() < paidOn ? paidOn : today()),
    description: `Tilbageført betaling af åbningssaldo (bilag ${await voucherOf(db, payment.transaction_id)})`,
    source: 'reversal',
    sourceId: payment.id,
  });
  await db.openingBalancePayment.update({ where: { id }, data: { reversed_transaction_id: reversal.id } });
  const { open } = await openOfParty(db, scope, kind, partyId);
  return {
    id,
    customer_id: payment.customer_id,
    supplier_id: payment.supplier_id,
    date: paidOn,
    amount: amountToJson(decimalOf(payment.amount)),
    open_amount: amountToJson(open),
    transaction_id: payment.transaction_id,
    bank_line_id: null,
    reversed_transaction_id: reversal.id,
  };
}

const voucherOf = async (db: Db, transactionId: string) =>
  (await db.ledgerTransaction.findUniqueOrThrow({ where: { id: transactionId }, select: { document_number: true } })).document_number;
