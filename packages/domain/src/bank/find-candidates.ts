// What a bank line may pay, rule by rule (the FI payment id, an invoice number with the amount, a supplier's
// booked expense, a posting within the window): the certain targets and the ranked suggestions.
import { Prisma, type BankLine, type Db } from '@tlr/db';
import { addDays, fromDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { OPEN_STATUSES, type InvoiceStatus } from '../invoices/rules.ts';
import { decimalOf } from '../money.ts';
import { candidateTokens, fiPaymentIdsIn, sameParty, type Suggestion } from './rules.ts';
import { openLedgerLines, type Bank, type Found, type Target } from './bank-line-match.ts';
import { taxAccountCandidatesMany } from '../vat/tax-account.ts';

/** How far a posting's date may lie from the bank's booking date to be matched by amount and date. */
export const POSTING_WINDOW_DAYS = 7;

/** What the invoice rules read of an invoice. */
const RULE_COLUMNS = { id: true, invoice_number: true, payment_id: true, status: true, currency: true, total: true, paid_amount: true } as const;

/**
 * The rows whose `key` is one of `keys`, in the rows' own order: what `rows.filter((r) => keys.includes(key(r)))`
 * answers, through an index built once per batch (a filter per line made a batch's rules quadratic: 500
 * lines against 500 invoices, a third of Node's time in matching, docs/perf.md).
 */
function indexBy<T>(rows: readonly T[], key: (row: T) => string | null): (keys: readonly string[]) => T[] {
  const at = new Map<string, number[]>();
  rows.forEach((row, i) => {
    const k = key(row);
    if (k === null) return;
    const list = at.get(k);
    if (list) list.push(i);
    else at.set(k, [i]);
  });
  return (keys) => {
    const picked = [...new Set(keys.flatMap((k) => at.get(k) ?? []))];
    return picked.sort((a, b) => a - b).map((i) => rows[i]!);
  };
}

/** What the line may pay, rule by rule; the first rule with one certain target decides. */
export async function findCandidates(db: Db, scope: CompanyScope, line: BankLine, bank: Bank): Promise<Found> {
  return (await findCandidatesMany(db, scope, [{ line, bank }]))[0]!;
}

/**
 * findCandidates for many lines of one company (an automatic matching batch): each rule reads its rows
 * for every line still undecided in one query, then decides line by line exactly as for one line.
 */
export async function findCandidatesMany(db: Db, scope: CompanyScope, items: readonly { line: BankLine; bank: Bank }[]): Promise<Found[]> {
  const open = (status: string) => OPEN_STATUSES.includes(status as InvoiceStatus);
  const due = (i: { total: Prisma.Decimal; paid_amount: Prisma.Decimal }) => decimalOf(i.total).minus(decimalOf(i.paid_amount));
  const state = items.map(({ line, bank }) => ({
    line,
    bank,
    amount: decimalOf(line.amount),
    currency: bank.account.currency,
    text: `${line.reference} ${line.text}`,
    suggestions: [] as Suggestion[],
    found: undefined as Found | undefined,
  }));
  type State = (typeof state)[number];
  const decide = (s: State, certain: Target[]) => {
    if (certain.length) s.found = { certain, suggestions: s.suggestions };
  };
  const undecided = (filter: (s: State) => boolean = () => true) => state.filter((s) => !s.found && filter(s));

  // 0. The tax account of an approved VAT return: its OCR number or Skattestyrelsen's name, with the amount (vat/tax-account.ts).
  const taxAccount = await taxAccountCandidatesMany(
    db,
    scope,
    state.map((s) => s.line),
  );
  state.forEach((s, i) =>
    decide(
      s,
      taxAccount[i]!.map((id): Target => ({ type: 'vat_filing', id })),
    ),
  );

  // 1. The FI payment id (+71) of an invoice: certain when the invoice is open and the amount within its balance.
  const byPaymentId = undecided((s) => s.amount.greaterThan(0)).map((s) => ({ s, ids: fiPaymentIdsIn(s.text) }));
  const paymentIds = [...new Set(byPaymentId.flatMap((p) => p.ids))];
  if (paymentIds.length) {
    const invoices = await db.invoice.findMany({ where: { company_id: scope.companyId, payment_id: { in: paymentIds } }, select: RULE_COLUMNS });
    const withPaymentId = indexBy(invoices, (i) => i.payment_id);
    for (const { s, ids } of byPaymentId) {
      if (!ids.length) continue;
      const certain: Target[] = [];
      for (const i of withPaymentId(ids)) {
        const reasons = [`FI payment id ${i.payment_id} of invoice ${i.invoice_number}`];
        if (!open(i.status)) reasons.push(`the invoice is ${i.status}`);
        else if (i.currency !== s.currency) reasons.push(`the invoice is in ${i.currency}, the account in ${s.currency}`);
        else if (s.amount.greaterThan(due(i))) reasons.push(`${s.amount.toFixed(2)} exceeds the balance due ${due(i).toFixed(2)}`);
        else certain.push({ type: 'invoice', id: i.id });
        s.suggestions.push({ type: 'invoice', id: i.id, score: 100, reasons });
      }
      decide(s, certain);
    }
  }

  // 2. The amount and an invoice number in the text: certain when the balance due is exactly the amount.
  const byNumber = undecided((s) => s.amount.greaterThan(0)).map((s) => ({ s, tokens: candidateTokens(s.text) }));
  const tokens = [...new Set(byNumber.flatMap((n) => n.tokens))];
  if (tokens.length) {
    const invoices = await db.invoice.findMany({
      where: {
        company_id: scope.companyId,
        invoice_number: { in: tokens },
        status: { in: [...OPEN_STATUSES] },
        currency: { in: [...new Set(byNumber.map((n) => n.s.currency))] },
      },
      select: RULE_COLUMNS,
    });
    const withNumber = indexBy(invoices, (i) => i.invoice_number);
    for (const { s, tokens } of byNumber) {
      if (!tokens.length) continue;
      const certain: Target[] = [];
      for (const i of withNumber(tokens).filter((i) => i.currency === s.currency)) {
        const exact = due(i).equals(s.amount);
        if (exact) certain.push({ type: 'invoice', id: i.id });
        const reasons = [`invoice number ${i.invoice_number} in the text`];
        reasons.push(exact ? `the amount equals the balance due` : `the balance due is ${due(i).toFixed(2)}`);
        s.suggestions.push({ type: 'invoice', id: i.id, score: exact ? 90 : 50, reasons });
      }
      decide(s, certain);
    }
  }

  // 3. The amount and the supplier (IBAN, or name in the counterparty or the text): a booked expense,
  //    a bill paid (money out) or a supplier's credit note refunded (money in); at most 50 expenses a line.
  const byExpense = undecided();
  if (byExpense.length) {
    const expenses = await db.expense.findMany({
      where: {
        company_id: scope.companyId,
        status: 'booked',
        currency: { in: [...new Set(byExpense.map((s) => s.currency))] },
        amount: { in: [...new Set(byExpense.map((s) => s.amount.negated().toFixed(2)))] },
      },
    });
    const withAmount = indexBy(expenses, (e) => `${e.currency} ${decimalOf(e.amount).toFixed(2)}`);
    const ofLine = new Map(
      byExpense.map((s) => [
        s,
        withAmount([`${s.currency} ${s.amount.negated().toFixed(2)}`])
          .filter((e) => decimalOf(e.amount).equals(s.amount.negated()))
          .slice(0, 50),
      ]),
    );
    const supplierIds = [...new Set(expenses.flatMap((e) => (e.supplier_id ? [e.supplier_id] : [])))];
    const suppliers = new Map(
      (supplierIds.length ? await db.supplier.findMany({ where: { company_id: scope.companyId, id: { in: supplierIds } } }) : []).map((s) => [s.id, s]),
    );
    for (const s of byExpense) {
      const certain: Target[] = [];
      for (const e of ofLine.get(s)!) {
        const supplier = e.supplier_id ? suppliers.get(e.supplier_id) : undefined;
        const party = supplier ? sameParty(supplier, s.line) : undefined;
        if (party) certain.push({ type: 'expense', id: e.id });
        const reasons = [`the amount equals the expense's ${decimalOf(e.amount).toFixed(2)}`, ...(party ? [party] : [])];
        s.suggestions.push({ type: 'expense', id: e.id, score: party ? 80 : 30, reasons });
      }
      decide(s, certain);
    }
  }

  // 4. The amount and the date, within a window: a posting on the bank account not yet reconciled (a query a line: its window is its own).
  for (const s of undecided()) {
    const booked = fromDate(s.line.booking_date);
    const postings = await openLedgerLines(
      db,
      scope,
      s.bank,
      s.amount,
      Prisma.sql`t.date BETWEEN ${addDays(booked, -POSTING_WINDOW_DAYS)}::date AND ${addDays(booked, POSTING_WINDOW_DAYS)}::date`,
      booked,
    );
    for (const p of postings) {
      const days = Math.abs(Math.round((p.date.getTime() - s.line.booking_date.getTime()) / 86_400_000));
      s.suggestions.push({
        type: 'transaction',
        id: p.transaction_id,
        score: 60 - days,
        reasons: [
          `a posting of ${s.amount.toFixed(2)} on account ${s.bank.account.account_number}`,
          `dated ${fromDate(p.date)}, ${days} day(s) from the bank's date`,
        ],
      });
    }
    s.found = { certain: postings.map((p) => ({ type: 'transaction', id: p.transaction_id, journalLineId: p.id })), suggestions: s.suggestions };
  }
  return state.map((s) => s.found!);
}
