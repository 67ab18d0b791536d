// What a bank line may pay, rule by rule (the FI payment id, an invoice number with the amount, a supplier's
// booked expense, a posting within the window): the certain targets and the ranked suggestions.
import { Prisma, type BankLine, type Db } from '@tlr/db';
import { addDays, fromDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { OPEN_STATUSES, type InvoiceStatus } from '../invoices/rules.ts';
import { decimalOf } from '../money.ts';
import { candidateTokens, fiPaymentIdsIn, sameParty, type Suggestion } from './rules.ts';
import { openLedgerLines, type Bank, type Found, type Target } from './bank-line-match.ts';
import { taxAccountCandidates } from '../vat/tax-account.ts';

/** How far a posting's date may lie from the bank's booking date to be matched by amount and date. */
export const POSTING_WINDOW_DAYS = 7;

/** What the line may pay, rule by rule; the first rule with one certain target decides. */
export async function findCandidates(db: Db, scope: CompanyScope, line: BankLine, bank: Bank): Promise<Found> {
  const amount = decimalOf(line.amount);
  const currency = bank.account.currency;
  const suggestions: Suggestion[] = [];
  const decide = (certain: Target[]): Found | undefined => (certain.length ? { certain, suggestions } : undefined);
  const open = (status: string) => OPEN_STATUSES.includes(status as InvoiceStatus);
  const due = (i: { total: Prisma.Decimal; paid_amount: Prisma.Decimal }) => decimalOf(i.total).minus(decimalOf(i.paid_amount));
  const text = `${line.reference} ${line.text}`;

  // 0. The tax account of an approved VAT return: its OCR number or Skattestyrelsen's name, with the amount (vat/tax-account.ts).
  const taxAccount = decide((await taxAccountCandidates(db, scope, line)).map((id): Target => ({ type: 'vat_filing', id })));
  if (taxAccount) return taxAccount;

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
    const reasons = [`the amount equals the expense's ${decimalOf(e.amount).toFixed(2)}`, ...(party ? [party] : [])];
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
