// A period's VAT return figures (momsangivelse) from the running totals the posting keeps
// (account_monthly_balances for the VAT and duty accounts, vat_monthly_bases for the boxes), so the return
// costs a few rows whatever the size of the ledger; and the company's period a request names.
import { Prisma, type Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { invalidRequest, notFound } from '../errors.ts';
import { today } from '../calendar.ts';
import { Decimal } from '../money.ts';
import type { VatFrequency } from '../ledger/fiscal-years.ts';
import { ACCOUNT_FIELDS, returnFigures, type ReturnFigures, type Sides, type VatKind } from './codes.ts';
import { parseVatPeriod, periodContaining, type VatPeriod } from './periods.ts';

export const FIELD_ACCOUNTS = ACCOUNT_FIELDS.map((f) => f.account_number);

/** The company's period named `text`; a period of another frequency than the company files is refused. */
export async function companyPeriod(db: Db, scope: CompanyScope, text: string): Promise<{ period: VatPeriod; lockDate: Date | null }> {
  const p = parseVatPeriod(text);
  if (typeof p === 'string') throw invalidRequest(`period: ${p}.`, 'period');
  const [company] = await db.$queryRaw<{ vat_period_frequency: VatFrequency; lock_date: Date | null }[]>`
    SELECT vat_period_frequency, lock_date FROM companies WHERE id = ${scope.companyId}::uuid`;
  if (!company) throw notFound('company', scope.companyId);
  if (p.frequency !== company.vat_period_frequency) {
    const example = periodContaining(today(), company.vat_period_frequency).period;
    throw invalidRequest(
      `period: the company files ${company.vat_period_frequency.replace('_', '-')} VAT returns; name a period such as ${example}.`,
      'period',
    );
  }
  return { period: p, lockDate: company.lock_date };
}

interface SumRow {
  what: 'account' | 'settled' | 'base';
  key: string;
  debit: string;
  credit: string;
}

/**
 * The sums a period's return is made of, in one statement: the field accounts' monthly balances, the
 * settlement postings filed for the period (their lines are in no field) and the bases per code kind.
 */
export function vatReturnSql(companyId: string, start: string, end: string): Prisma.Sql {
  return Prisma.sql`
    SELECT 'account' AS what, a.account_number AS key, sum(m.debit)::text AS debit, sum(m.credit)::text AS credit
    FROM accounts a JOIN account_monthly_balances m ON m.company_id = a.company_id AND m.account_id = a.id
    WHERE a.company_id = ${companyId}::uuid AND a.account_number = ANY(${FIELD_ACCOUNTS}::text[]) AND m.month BETWEEN ${start}::date AND ${end}::date
    GROUP BY a.account_number
    UNION ALL
    SELECT 'settled', a.account_number, sum(l.debit)::text, sum(l.credit)::text
    FROM vat_returns r JOIN transaction_lines l ON l.transaction_id = r.transaction_id JOIN accounts a ON a.id = l.account_id
    WHERE r.company_id = ${companyId}::uuid AND r.end_date BETWEEN ${start}::date AND ${end}::date
    GROUP BY a.account_number
    UNION ALL
    SELECT 'base', v.kind, sum(b.debit)::text, sum(b.credit)::text
    FROM vat_monthly_bases b JOIN vat_codes v ON v.company_id = b.company_id AND v.code = b.vat_code
    WHERE b.company_id = ${companyId}::uuid AND b.month BETWEEN ${start}::date AND ${end}::date
    GROUP BY v.kind`;
}

/** The period's figures from the running totals, less the settlement postings filed for it. */
export async function periodFigures(db: Db, scope: CompanyScope, p: VatPeriod): Promise<ReturnFigures> {
  const rows = await db.$queryRaw<SumRow[]>(vatReturnSql(scope.companyId, p.start, p.end));
  const accounts = new Map<string, Sides>();
  const bases = new Map<VatKind, Sides>();
  for (const r of rows) {
    const sides = { debit: new Decimal(r.debit), credit: new Decimal(r.credit) };
    if (r.what === 'base') bases.set(r.key as VatKind, sides);
    else {
      // A settlement moved the balances out of the period's accounts: its lines do not count.
      const sign = r.what === 'settled' ? -1 : 1;
      const t = accounts.get(r.key) ?? { debit: new Decimal(0), credit: new Decimal(0) };
      accounts.set(r.key, { debit: t.debit.plus(sides.debit.times(sign)), credit: t.credit.plus(sides.credit.times(sign)) });
    }
  }
  return returnFigures(accounts, bases);
}
