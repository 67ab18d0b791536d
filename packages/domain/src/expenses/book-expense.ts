// Booking an expense (draft -> booked): the posting through the posting function (the expense account and
// input VAT against payables, in DKK at the bill's rate) with a number from the unified sequence.
import { someDimensions, type LineDimensions } from '../dimensions/schema.ts';
import type { Db } from '@tlr/db';
import { fromDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError } from '../errors.ts';
import { postTransaction } from '../ledger/post.ts';
import { decimalOf } from '../money.ts';
import { codeFor, postableCode, vatCodesOf } from '../vat/treatments.ts';
import { documentCurrency, netOn, postingInDkk } from '../currency/convert.ts';
import { bookingLines, LEGACY_EXPENSE_CODE, linesBookingLines } from './rules.ts';
import { learnItemAccounts, linesToBook } from './lines.ts';
import type { VatTreatment } from '../vat/codes.ts';
import { markVoucherPosted } from '../vouchers/vouchers.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';
import { announceExpense, type ExpenseRow } from './expense-rows.ts';
import { acceptReceivedDocument } from '../einvoice/invoice-responses.ts';
import { holdingAccount, recordAccruals, type AccruedLine } from '../accruals/accruals.ts';
import { rangeOf } from '../accruals/rules.ts';

/** The treatment of each VAT code the lines are booked under, checked as a bill's code is (a purchase code that posts). */
async function lineTreatments(db: Db, scope: CompanyScope, lines: readonly { code: string }[]): Promise<Map<string, VatTreatment>> {
  const codes = [...new Set(lines.map((l) => l.code).filter((c) => c))];
  const known = await vatCodesOf(db, scope, codes);
  return new Map(codes.map((c) => [c, postableCode(codeFor(known, c, 'purchase', 'vat_code'), 'vat_code')]));
}

/** Draft -> booked: post (bookingLines, in DKK at the bill's rate) and mark the voucher posted. */
export async function bookExpense(db: Db, scope: CompanyScope, row: ExpenseRow): Promise<ExpenseRow> {
  const payable = await db.account.findFirst({ where: { company_id: scope.companyId, account_number: DEFAULT_ACCOUNTS.payable } });
  if (!payable) throw new DomainError('chart_incomplete', `The chart of accounts has no account ${DEFAULT_ACCOUNTS.payable}, which an expense posts to.`);
  const amount = decimalOf(row.amount);
  const vat = decimalOf(row.vat_amount);
  const code = row.vat_code || (vat.isZero() ? '' : LEGACY_EXPENSE_CODE);
  const treatment = code ? postableCode(codeFor(await vatCodesOf(db, scope, [code]), code, 'purchase', 'vat_code'), 'vat_code') : undefined;
  const text = (row.description || 'Udgift').slice(0, 500);
  const date = fromDate(row.date);
  const fx = await documentCurrency(db, scope, row.currency, row.exchange_rate && decimalOf(row.exchange_rate), date);
  const deductible = row.vat_deductible_percent ? decimalOf(row.vat_deductible_percent) : undefined;
  // With lines: one cost line per account and VAT code (decision 683); without: the one amount, as before lines.
  // The dimensions go with the cost lines (the cost and any VAT not deductible), not with VAT or payables
  // (decision 587): with lines, each line's own over the expense's (decision 855), grouped by them.
  const dimensions = someDimensions(row.dimensions as LineDimensions | null);
  const stored = await linesToBook(db, row.id, dimensions);
  // Accrued (decision 820): the cost goes to prepaid expenses at booking, and month by month to its own account.
  const range = stored.length ? null : rangeOf(row.accrual_from, row.accrual_to);
  const accrued: AccruedLine[] = range
    ? [{ lineId: null, description: text, resultAccountId: row.account_id, range, weight: amount.minus(vat), dimensions, field: 'accrual' }]
    : stored.flatMap((l) =>
        l.accrual
          ? [
              {
                lineId: l.id,
                description: l.description || text,
                resultAccountId: l.accountId,
                range: l.accrual,
                weight: l.net,
                dimensions: l.dimensions,
                field: `lines[${l.position - 1}].accrual`,
              },
            ]
          : [],
      );
  const prepaid = accrued.length ? await holdingAccount(db, scope, 'expense', accrued[0]!.field) : null;
  const lines = stored.map((l) => (l.accrual ? { ...l, accountId: prepaid!.id } : l));
  const costAccount = range ? prepaid!.id : row.account_id;
  const tagged = lines.length
    ? linesBookingLines({ payableAccountId: payable.id, amount, text }, lines, await lineTreatments(db, scope, lines), deductible)
    : bookingLines({ costAccountId: costAccount, payableAccountId: payable.id, amount, vat, text }, treatment, deductible).map((l) =>
        dimensions && l.accountId === costAccount ? { ...l, dimensions } : l,
      );
  // Payables (the last line) balances the DKK posting.
  const posting = postingInDkk(tagged, fx, tagged.length - 1);
  const posted = await postTransaction(db, scope, {
    date,
    description: text,
    source: 'expense',
    sourceId: row.id,
    voucherId: row.voucher_id ?? undefined,
    lines: posting,
  });
  // What booking put on prepaid expenses, in DKK, is what the months move on (decision 822).
  if (prepaid) await recordAccruals(db, scope, { type: 'expense', id: row.id }, prepaid.id, netOn(posting, prepaid.id), accrued);
  if (row.voucher_id) await markVoucherPosted(db, scope, row.voucher_id, { id: posted.id, date }, { expenseId: row.id });
  const booked = await db.expense.update({
    where: { id: row.id },
    data: {
      status: 'booked',
      posted_transaction_id: posted.id,
      posted_system_id: posted.system_id,
      exchange_rate: fx.rate.toFixed(6),
      payable_dkk: netOn(posting, payable.id).negated().toFixed(2),
    },
  });
  // The supplier's items learn the accounts they were booked to: the next document's same item proposes them.
  if (lines.length) await learnItemAccounts(db, scope, row.id, row.supplier_id);
  await announceExpense(db, scope, 'expense.updated', booked);
  // Booking a received e-invoice's expense accepts the document: its sender is told so.
  await acceptReceivedDocument(db, scope, row.id);
  return booked;
}
