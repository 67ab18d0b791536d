// The API shapes of ledger rows: what responses return and events carry.
import type { Prisma } from '@tlr/db';
import { amountToJson, Decimal } from '../money.ts';
import { fromDate } from '../calendar.ts';
import { exchangeRateToJson } from '../currency/rules.ts';
import { registrationView } from '../trail/actor.ts';
import { dimensionsOf } from './rules.ts';

type TransactionRow = Prisma.LedgerTransactionGetPayload<{
  include: {
    lines: {
      include: {
        account: { select: { account_number: true; name: true } };
        dimensions: { select: { value: { select: { code: true; dimension: { select: { name: true } } } } } };
      };
    };
    reversed_by: { select: { id: true } };
  };
}>;

export function transactionView(t: TransactionRow) {
  let debit = new Decimal(0);
  let credit = new Decimal(0);
  const lines = t.lines.map((l) => {
    debit = debit.plus(l.debit.toString());
    credit = credit.plus(l.credit.toString());
    return {
      line_number: l.line_number,
      account_id: l.account_id,
      account_number: l.account.account_number,
      account_name: l.account.name,
      debit: amountToJson(l.debit),
      credit: amountToJson(l.credit),
      description: l.description,
      vat_code: l.vat_code,
      // A DKK line has none of the three (bogføringsloven § 15 asks them of foreign registrations).
      currency: l.currency || null,
      currency_amount: l.currency_amount === null ? null : amountToJson(l.currency_amount),
      exchange_rate: l.exchange_rate === null ? null : exchangeRateToJson(l.exchange_rate),
      dimensions: dimensionsOf(l.dimensions),
    };
  });
  return {
    id: t.id,
    document_number: Number(t.document_number),
    system_id: Number(t.system_id),
    date: fromDate(t.date),
    description: t.description,
    source: t.source,
    source_journal_id: t.source_journal_id,
    source_transaction_id: t.source_transaction_id,
    reverses_transaction_id: t.reverses_id,
    reversed_by_transaction_id: t.reversed_by?.id ?? null,
    voucher_id: t.voucher_id ?? '',
    total_debit: amountToJson(debit),
    total_credit: amountToJson(credit),
    currency: 'DKK',
    lines,
    created_at: t.created_at.toISOString(),
    ...registrationView(t),
  };
}
export type TransactionView = ReturnType<typeof transactionView>;

type AccountRow = Prisma.AccountGetPayload<object>;

export function accountView(a: AccountRow, groupName: string) {
  return {
    id: a.id,
    account_number: a.account_number,
    name: a.name,
    type: a.type,
    group_code: a.group_code,
    group_name: groupName,
    standard_account_id: a.standard_account_id,
    default_vat_code: a.default_vat_code,
    active: a.active,
    created_at: a.created_at.toISOString(),
    updated_at: a.updated_at.toISOString(),
  };
}
export type AccountView = ReturnType<typeof accountView>;
