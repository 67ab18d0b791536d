// POST /vat-returns/{period}/settle: the settlement posting (momsafregning), the return as filed and the
// lock date, in one transaction under the company's row lock.
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { newId } from '../ids.ts';
import { fromDate, toDate as toDateColumn, today } from '../calendar.ts';
import { Decimal } from '../money.ts';
import { postTransaction } from '../ledger/post.ts';
import type { PostingLine } from '../ledger/rules.ts';
import { ACCOUNT_FIELDS, VAT_RETURN_FIELDS, type VatReturnField } from './codes.ts';
import { filingDeadline, periodContaining, type VatPeriod } from './periods.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';
import type { SettleInput } from './schema.ts';
import { companyPeriod, FIELD_ACCOUNTS, periodFigures } from './return-figures.ts';
import { filingOf } from './filing.ts';
import { filedVersions, fromJson, latestFiled, returnView, toStored, type VatReturnView } from './filed-returns.ts';

/**
 * The earliest period before `p` with VAT activity that no filed return covers, or undefined. Activity:
 * a movement on a field's account or a base; a quiet period needs no settlement to go on.
 */
async function earlierOpenPeriod(db: Db, scope: CompanyScope, p: VatPeriod): Promise<VatPeriod | undefined> {
  const c = scope.companyId;
  const [row] = await db.$queryRaw<{ month: Date | null }[]>`
    SELECT min(x.month) AS month FROM (
      SELECT m.month FROM account_monthly_balances m JOIN accounts a ON a.id = m.account_id
      WHERE m.company_id = ${c}::uuid AND a.account_number = ANY(${FIELD_ACCOUNTS}::text[]) AND m.month < ${p.start}::date AND (m.debit <> 0 OR m.credit <> 0)
      UNION ALL
      SELECT b.month FROM vat_monthly_bases b WHERE b.company_id = ${c}::uuid AND b.month < ${p.start}::date AND (b.debit <> 0 OR b.credit <> 0)
    ) x
    WHERE NOT EXISTS (SELECT 1 FROM vat_returns r WHERE r.company_id = ${c}::uuid AND x.month BETWEEN r.start_date AND r.end_date)`;
  return row?.month ? periodContaining(fromDate(row.month), p.frequency) : undefined;
}

/**
 * The settlement (momsafregning): each field account's balance of the period moves to Skyldig moms
 * (7840), so the accounts start the next period at zero and 7840 holds what is owed (or refunded). A
 * correction moves what changed since the version before. Amounts are exact (øre); the return is filed
 * in whole kroner, and the øre difference settles with the payment.
 */
function settlementLines(delta: Record<VatReturnField, Decimal>, accountIds: Map<string, string>, text: string): PostingLine[] {
  const zero = new Decimal(0);
  const lines: PostingLine[] = [];
  let owed = zero;
  for (const f of ACCOUNT_FIELDS) {
    // The movement that empties the account: an owed (credit) balance is debited, a deducted (debit) one credited.
    const debit = delta[f.field].times(f.sign);
    if (debit.isZero()) continue;
    lines.push({
      accountId: accountIds.get(f.account_number)!,
      debit: debit.isNegative() ? zero : debit,
      credit: debit.isNegative() ? debit.negated() : zero,
      description: text,
      vatCode: '',
    });
    owed = owed.plus(debit);
  }
  if (lines.length === 0) return [];
  lines.push({
    accountId: accountIds.get(DEFAULT_ACCOUNTS.vatSettlement)!,
    debit: owed.isNegative() ? owed.negated() : zero,
    credit: owed.isNegative() ? zero : owed,
    description: text,
    vatCode: '',
  });
  return lines;
}

/**
 * POST /vat-returns/{period}/settle. Under the company's row lock (two settlements of one period at once
 * queue; the second finds the first): refuses a period that has not ended, one with an earlier period
 * open, and a second settlement (a correction must say so and must change something); posts the
 * settlement on the period's last day; files the return; moves the lock date up to the period's end.
 */
export async function settleVatReturn(db: Db, scope: CompanyScope, periodText: string, input: SettleInput): Promise<VatReturnView> {
  const { period } = await companyPeriod(db, scope, periodText);
  await db.$queryRaw`SELECT 1 FROM companies WHERE id = ${scope.companyId}::uuid FOR UPDATE`;
  if (period.end >= today()) {
    throw new DomainError('vat_period_not_ended', `The VAT period ${period.period} ends ${period.end}; it can be settled from the day after.`, 'period');
  }
  const filed = await latestFiled(db, scope, period.period);
  if (filed && !input.correction) {
    throw new DomainError(
      'vat_return_settled',
      `The VAT return for ${period.period} was settled on ${filed.settled_at.toISOString().slice(0, 10)} (version ${filed.version}); send {"correction": true} to file a correction.`,
      'period',
      { version: filed.version },
    );
  }
  if (!filed && input.correction) throw invalidRequest(`correction: ${period.period} has not been settled; settle it without correction.`, 'correction');
  const earlier = filed ? undefined : await earlierOpenPeriod(db, scope, period);
  if (earlier) {
    throw new DomainError('vat_period_open_before', `The VAT period ${earlier.period} has VAT activity and is not settled; settle it first.`, 'period', {
      earlier_period: earlier.period,
    });
  }
  const current = await periodFigures(db, scope, period);
  const before = filed ? fromJson(filed.exact) : undefined;
  const delta = Object.fromEntries(VAT_RETURN_FIELDS.map((f) => [f, before ? current.exact[f].minus(before[f]) : current.exact[f]])) as Record<
    VatReturnField,
    Decimal
  >;
  if (filed && VAT_RETURN_FIELDS.every((f) => delta[f].isZero())) {
    throw new DomainError(
      'vat_return_unchanged',
      `The books of ${period.period} have not changed since version ${filed.version}; there is nothing to correct.`,
      'period',
    );
  }

  const accounts = await db.account.findMany({
    where: { company_id: scope.companyId, account_number: { in: [...FIELD_ACCOUNTS, DEFAULT_ACCOUNTS.vatSettlement] } },
    select: { id: true, account_number: true, name: true },
  });
  const version = (filed?.version ?? 0) + 1;
  const text = `Momsafregning ${period.period}${version > 1 ? `, rettelse ${version - 1}` : ''}`;
  const lines = settlementLines(delta, new Map(accounts.map((a) => [a.account_number, a.id])), text);
  const named = new Map(accounts.map((a) => [a.id, { account_number: a.account_number, name: a.name }]));
  const posted = lines.length
    ? await postTransaction(db, scope, {
        date: period.end,
        description: text,
        source: 'vat_settlement',
        lines: lines.map((l) => ({ ...l, account: named.get(l.accountId) })),
      })
    : undefined;
  const row = await db.vatReturn.create({
    data: {
      id: newId(),
      company_id: scope.companyId,
      period: period.period,
      version,
      start_date: toDateColumn(period.start),
      end_date: toDateColumn(period.end),
      deadline: toDateColumn(filingDeadline(period)),
      fields: toStored(current.kroner),
      exact: toStored(current.exact),
      transaction_id: posted?.id ?? null,
    },
  });
  // Nothing of a settled period may change any more; a later lock date stays.
  await db.$executeRaw`UPDATE companies SET lock_date = ${period.end}::date WHERE id = ${scope.companyId}::uuid AND (lock_date IS NULL OR lock_date < ${period.end}::date)`;
  const settled = {
    ...returnView(period, current, row),
    versions: await filedVersions(db, scope, period.period),
    filing: await filingOf(db, scope, period.period),
  };
  await recordEvent(db, scope, 'vat_return.settled', {
    period: settled.period,
    version: settled.version,
    net_vat: settled.fields.net_vat,
    deadline: settled.deadline,
    transaction_id: settled.transaction_id,
  });
  return settled;
}
