// The VAT return (momsangivelse) from the books: the figures of a period read from the running totals
// the posting keeps (account_monthly_balances for the VAT and duty accounts, vat_monthly_bases for the
// boxes), so the return costs a few rows whatever the size of the ledger; the journal lines behind each
// field; and settling a period: the settlement posting, the return as filed (immutable, a correction is
// its next version) and the lock date, in one transaction under the company's row lock.
import type { z } from 'zod';
import { Prisma, type Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest, notFound } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { newId } from '../ids.ts';
import { fromDate, toDate as toDateColumn, today } from '../calendar.ts';
import { Decimal, amountToJson } from '../money.ts';
import { postTransaction } from '../ledger/post.ts';
import type { PostingLine } from '../ledger/rules.ts';
import type { VatFrequency } from '../ledger/fiscal-years.ts';
import type { ListMeta, ListParams, ListSpec } from '../lists/list.ts';
import {
  ACCOUNT_FIELDS,
  BOX_OF_KIND,
  isSalesKind,
  returnFigures,
  VAT_ACCOUNT_NUMBERS,
  VAT_RETURN_FIELDS,
  type ReturnFigures,
  type Sides,
  type VatKind,
  type VatReturnField,
} from './codes.ts';
import { filingDeadline, parseVatPeriod, periodContaining, type VatPeriod } from './periods.ts';
import { registrationView } from '../trail/actor.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';
import type { SettleInput, VatReturnLine, vatReturnResource } from './schema.ts';

const FIELD_ACCOUNTS = ACCOUNT_FIELDS.map((f) => f.account_number);

/** The return as the API answers it (vat/schema.ts). */
export type VatReturnView = z.input<typeof vatReturnResource>;
type FiledVersion = VatReturnView['versions'][number];

/** The company's period named `text`; a period of another frequency than the company files is refused. */
async function companyPeriod(db: Db, scope: CompanyScope, text: string): Promise<{ period: VatPeriod; lockDate: Date | null }> {
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
async function figures(db: Db, scope: CompanyScope, p: VatPeriod): Promise<ReturnFigures> {
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

type ReturnRow = Prisma.VatReturnGetPayload<object>;

const asJson = (values: Record<VatReturnField, Decimal>, whole: boolean) =>
  Object.fromEntries(VAT_RETURN_FIELDS.map((f) => [f, whole ? values[f].toNumber() : amountToJson(values[f])])) as Record<VatReturnField, number>;
const fromJson = (stored: Prisma.JsonValue) =>
  Object.fromEntries(VAT_RETURN_FIELDS.map((f) => [f, new Decimal(String((stored as Record<string, string>)[f] ?? '0'))])) as Record<VatReturnField, Decimal>;
const toStored = (values: Record<VatReturnField, Decimal>) => Object.fromEntries(VAT_RETURN_FIELDS.map((f) => [f, values[f].toFixed(2)]));

function view(p: VatPeriod, current: ReturnFigures, filed: ReturnRow | undefined): Omit<VatReturnView, 'versions'> {
  const exact = filed ? fromJson(filed.exact) : current.exact;
  return {
    period: p.period,
    frequency: p.frequency,
    start_date: p.start,
    end_date: p.end,
    deadline: filingDeadline(p),
    period_ended: p.end < today(),
    status: filed ? 'settled' : 'open',
    version: filed?.version ?? null,
    settled_at: filed?.settled_at.toISOString() ?? null,
    transaction_id: filed?.transaction_id ?? null,
    fields: filed ? asJson(fromJson(filed.fields), true) : asJson(current.kroner, true),
    exact_fields: asJson(exact, false),
    changed_since_settlement: filed ? VAT_RETURN_FIELDS.some((f) => !exact[f].equals(current.exact[f])) : false,
  };
}

async function latestFiled(db: Db, scope: CompanyScope, period: string): Promise<ReturnRow | undefined> {
  return (await db.vatReturn.findFirst({ where: { company_id: scope.companyId, period }, orderBy: { version: 'desc' } })) ?? undefined;
}

/** The filed versions of a period, oldest first: what each settlement filed, never changed. */
async function filedVersions(db: Db, scope: CompanyScope, period: string): Promise<FiledVersion[]> {
  const rows = await db.vatReturn.findMany({ where: { company_id: scope.companyId, period }, orderBy: { version: 'asc' } });
  return rows.map((r) => ({
    version: r.version,
    settled_at: r.settled_at.toISOString(),
    ...registrationView(r),
    transaction_id: r.transaction_id,
    fields: asJson(fromJson(r.fields), true),
    exact_fields: asJson(fromJson(r.exact), false),
  }));
}

/** GET /vat-returns?period=: the return of a period, as filed when settled, else as the books stand, with its filed versions. */
export async function getVatReturn(db: Db, scope: CompanyScope, periodText: string): Promise<VatReturnView> {
  const { period } = await companyPeriod(db, scope, periodText);
  const current = await figures(db, scope, period);
  const versions = await filedVersions(db, scope, period.period);
  return { ...view(period, current, await latestFiled(db, scope, period.period)), versions };
}

/** The lines' order: by date (posting order within a day) or by the amount the line adds, then posting order. */
function order(sign: 1 | -1, page: ListParams): Prisma.Sql {
  const dir = page.order === 'asc' ? Prisma.sql`ASC` : Prisma.sql`DESC`;
  const amount = sign === 1 ? Prisma.sql`(l.credit - l.debit)` : Prisma.sql`(l.debit - l.credit)`;
  return page.sort === 'amount'
    ? Prisma.sql`${amount} ${dir}, t.system_id ${dir}, l.line_number ${dir}`
    : Prisma.sql`t.date ${dir}, t.system_id ${dir}, l.line_number ${dir}`;
}

/** Which lines make up a field: the field's account (VAT and duties), or the coded base lines of its kinds (boxes). */
function fieldFilter(field: VatReturnField): { accountNumber?: string; kinds?: VatKind[]; sign: 1 | -1 } {
  const account = ACCOUNT_FIELDS.find((f) => f.field === field);
  if (account) return { accountNumber: account.account_number, sign: account.sign };
  const kinds = (Object.keys(BOX_OF_KIND) as VatKind[]).filter((k) => BOX_OF_KIND[k] === field);
  return { kinds, sign: isSalesKind(kinds[0]!) ? 1 : -1 };
}

export const VAT_RETURN_LINE_LIST = {
  sort: { date: 'date', amount: 'amount' },
  defaultSort: 'date',
  search: ['description'],
  dateColumn: 'date',
  dateDescription: 'posting date (within the period)',
} satisfies ListSpec;

/**
 * GET /vat-returns/{period}/lines?field=: the journal lines behind one field, with the contract's list
 * parameters (sort by posting date, ties in posting order, or by the amount the line adds; since and
 * until narrow the period; search the line's text).
 */
export async function vatReturnLines(
  db: Db,
  scope: CompanyScope,
  periodText: string,
  field: VatReturnField,
  page: ListParams,
): Promise<{ data: VatReturnLine[]; meta: ListMeta }> {
  if (field === 'net_vat') throw invalidRequest('field: net_vat is computed from the other fields; drill into one of them.', 'field');
  const { period } = await companyPeriod(db, scope, periodText);
  const f = fieldFilter(field);
  const c = scope.companyId;
  // The settlement postings are not part of any field; a box counts only lines off the VAT accounts.
  const lines = Prisma.sql`
    FROM ledger_transactions t
    JOIN transaction_lines l ON l.transaction_id = t.id
    JOIN accounts a ON a.id = l.account_id
    WHERE t.company_id = ${c}::uuid AND t.date BETWEEN ${period.start}::date AND ${period.end}::date AND t.source <> 'vat_settlement'
      AND (${page.since ?? null}::date IS NULL OR t.date >= ${page.since ?? null}::date)
      AND (${page.until ?? null}::date IS NULL OR t.date <= ${page.until ?? null}::date)
      AND (${page.search?.trim() || null}::text IS NULL OR l.description ILIKE '%' || ${page.search?.trim() ?? ''} || '%')
      AND ${
        f.accountNumber
          ? Prisma.sql`a.account_number = ${f.accountNumber}`
          : Prisma.sql`l.vat_code IN (SELECT code FROM vat_codes WHERE company_id = ${c}::uuid AND kind = ANY(${f.kinds}::text[]))
                       AND a.account_number <> ALL(${[...VAT_ACCOUNT_NUMBERS]}::text[])`
      }`;
  type Row = Omit<VatReturnLine, 'debit' | 'credit' | 'amount' | 'document_number' | 'date'> & {
    debit: string;
    credit: string;
    document_number: bigint;
    date: Date;
  };
  const rows = await db.$queryRaw<Row[]>`
    SELECT t.id AS transaction_id, t.document_number, t.date, t.source, l.line_number, a.account_number, l.vat_code, l.description,
           l.debit::text AS debit, l.credit::text AS credit
    ${lines}
    ORDER BY ${order(f.sign, page)}
    LIMIT ${page.per_page} OFFSET ${(page.page - 1) * page.per_page}`;
  const [count] = await db.$queryRaw<{ total: bigint }[]>`SELECT count(*) AS total ${lines}`;
  const total = Number(count!.total);
  return {
    data: rows.map((r) => {
      const debit = new Decimal(r.debit);
      const credit = new Decimal(r.credit);
      return {
        transaction_id: r.transaction_id,
        document_number: Number(r.document_number),
        date: fromDate(r.date),
        source: r.source,
        line_number: r.line_number,
        account_number: r.account_number,
        vat_code: r.vat_code,
        description: r.description,
        debit: amountToJson(debit),
        credit: amountToJson(credit),
        amount: amountToJson(f.sign === 1 ? credit.minus(debit) : debit.minus(credit)),
      };
    }),
    meta: { page: page.page, per_page: page.per_page, total, total_pages: Math.ceil(total / page.per_page) },
  };
}

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
  const current = await figures(db, scope, period);
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
  const settled = { ...view(period, current, row), versions: await filedVersions(db, scope, period.period) };
  await recordEvent(db, scope, 'vat_return.settled', {
    period: settled.period,
    version: settled.version,
    net_vat: settled.fields.net_vat,
    deadline: settled.deadline,
    transaction_id: settled.transaction_id,
  });
  return settled;
}
