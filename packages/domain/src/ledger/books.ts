// A company's books: provisioning (the standard chart, VAT codes, the number sequence, the first
// fiscal year and its VAT periods), the accounting settings, and finding the open fiscal year of a
// posting date (opening the next year automatically).
import type { Company, Db, FiscalYear } from '@tlr/db';
import { DomainError, invalidRequest, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { checkDate, dayAfter, fromDate, toDate, today } from '../calendar.ts';
import { fiscalYearContaining, fiscalYearStarting, vatPeriods, VAT_FREQUENCIES, type DateRange, type VatFrequency } from './fiscal-years.ts';
import { seedAccounts, type ChartAccount } from './standard-chart.ts';
import { VAT_CODES } from '../vat/codes.ts';

interface CompanySettings {
  id: string;
  fiscal_year_start_month: number;
  vat_period_frequency: string;
}

/** Creates a fiscal year and its VAT periods; a concurrent creation of the same year is joined. */
export async function createFiscalYear(db: Db, company: CompanySettings, year: DateRange) {
  await db.fiscalYear.createMany({
    data: [{ id: newId(), company_id: company.id, start_date: toDate(year.start), end_date: toDate(year.end) }],
    skipDuplicates: true,
  });
  const fy = await db.fiscalYear.findUniqueOrThrow({ where: { company_id_start_date: { company_id: company.id, start_date: toDate(year.start) } } });
  await db.vatPeriod.createMany({
    data: vatPeriods(year, company.vat_period_frequency as VatFrequency).map((p) => ({
      id: newId(),
      company_id: company.id,
      fiscal_year_id: fy.id,
      start_date: toDate(p.start),
      end_date: toDate(p.end),
    })),
    skipDuplicates: true,
  });
  return fy;
}

/** Seeds a new (or reset) company: chart of accounts, VAT codes, number sequence, current fiscal year. */
export async function provisionBooks(db: Db, company: CompanySettings, asOf = today()): Promise<void> {
  // The 305 accounts in one statement of arrays: Prisma's createMany spent about 50 ms of CPU compiling
  // their 2,400 parameters, half of a company's creation (decision 748).
  const accounts = seedAccounts();
  const col = (k: keyof ChartAccount) => accounts.map((a) => a[k]);
  await db.$executeRaw`
    INSERT INTO accounts (id, company_id, account_number, name, type, group_code, standard_account_id, default_vat_code)
    SELECT v.id, ${company.id}::uuid, v.account_number, v.name, v.type, v.group_code, v.standard_account_id, v.default_vat_code
    FROM unnest(${accounts.map(() => newId())}::uuid[], ${col('account_number')}::text[], ${col('name')}::text[], ${col('type')}::text[],
                ${col('group_code')}::text[], ${col('standard_account_id')}::text[], ${col('default_vat_code')}::text[])
      AS v(id, account_number, name, type, group_code, standard_account_id, default_vat_code)`;
  await db.vatCode.createMany({ data: VAT_CODES.map((v) => ({ ...v, id: newId(), company_id: company.id })) });
  await db.numberSequence.create({ data: { company_id: company.id } });
  await createFiscalYear(db, company, fiscalYearContaining(asOf, company.fiscal_year_start_month));
}

type YearRow = Pick<FiscalYear, 'id' | 'start_date' | 'end_date' | 'closed'>;

/**
 * The company and its fiscal year containing `date` (null when there is none yet), in one statement:
 * what a posting reads before it takes the number lock (openFiscalYearFor then decides).
 */
export async function companyAndYear(
  db: Db,
  companyId: string,
  date: string,
): Promise<{ company: Company; year: YearRow | null; dimensionsRequired: boolean }> {
  const [row] = await db.$queryRaw<
    (Company & { fy_id: string | null; fy_start_date: Date | null; fy_end_date: Date | null; fy_closed: boolean | null; dimensions_required: boolean })[]
  >`
    SELECT c.*, fy.id AS fy_id, fy.start_date AS fy_start_date, fy.end_date AS fy_end_date, fy.closed AS fy_closed,
           -- Whether a posting must read the company's dimensions even when its lines name none (decision 583).
           EXISTS (SELECT 1 FROM dimensions d WHERE d.company_id = c.id AND cardinality(d.required_account_ids) > 0) AS dimensions_required
    FROM companies c
    LEFT JOIN fiscal_years fy ON fy.company_id = c.id AND fy.start_date <= ${date}::date AND fy.end_date >= ${date}::date
    WHERE c.id = ${companyId}::uuid
    LIMIT 1`;
  if (!row) throw notFound('company', companyId);
  const { fy_id, fy_start_date, fy_end_date, fy_closed, dimensions_required, ...company } = row;
  return {
    company,
    year: fy_id ? { id: fy_id, start_date: fy_start_date!, end_date: fy_end_date!, closed: fy_closed! } : null,
    dimensionsRequired: dimensions_required,
  };
}

const notOpen = (date: string, detail: string) => new DomainError('fiscal_year_not_open', `${date}: ${detail}`, 'date');

/**
 * The open fiscal year containing `date`, given the year containing it as companyAndYear read it (null:
 * none). A date in the year right after the last one opens that year (with its VAT periods); two
 * postings opening it at once share the one year. With `history` (an import of the books kept before),
 * any date outside the years opens the year containing it.
 */
export async function openFiscalYearFor(db: Db, company: CompanySettings, date: string, fy: YearRow | null, opts: { history?: boolean } = {}) {
  const d = toDate(date);
  if (fy) {
    if (fy.closed) throw notOpen(date, `the fiscal year ${fromDate(fy.start_date)} to ${fromDate(fy.end_date)} is closed.`);
    return fy;
  }
  if (opts.history) return createFiscalYear(db, company, fiscalYearContaining(date, company.fiscal_year_start_month));
  const last = await db.fiscalYear.findFirst({ where: { company_id: company.id }, orderBy: { start_date: 'desc' } });
  if (last && d > last.end_date) {
    const next = fiscalYearStarting(dayAfter(fromDate(last.end_date)));
    if (date <= next.end) return createFiscalYear(db, company, next);
  }
  const first = await db.fiscalYear.findFirst({ where: { company_id: company.id }, orderBy: { start_date: 'asc' } });
  throw notOpen(
    date,
    first && last
      ? `outside the fiscal years of the company (${fromDate(first.start_date)} to ${fromDate(last.end_date)}; the year after the last opens automatically, the year before the first by POST /fiscal-years).`
      : 'the company has no fiscal year.',
  );
}

export interface AccountingSettingsInput {
  fiscal_year_start_month?: number | undefined;
  vat_registered?: boolean | undefined;
  vat_period_frequency?: string | undefined;
  /** YYYY-MM-DD, or null to remove the lock. */
  lock_date?: string | null | undefined;
}

/** Changes the accounting settings; VAT periods of open fiscal years follow a new frequency. */
export async function updateAccountingSettings(db: Db, companyId: string, input: AccountingSettingsInput) {
  const company = await db.company.findUnique({ where: { id: companyId } });
  if (!company) throw notFound('company', companyId);
  const { fiscal_year_start_month: month, vat_period_frequency: freq, lock_date: lock, vat_registered } = input;
  if (month !== undefined && (!Number.isInteger(month) || month < 1 || month > 12))
    throw invalidRequest('The fiscal year start month is 1 to 12.', 'fiscal_year_start_month');
  if (freq !== undefined && !VAT_FREQUENCIES.includes(freq as VatFrequency))
    throw invalidRequest(`The VAT period frequency is one of ${VAT_FREQUENCIES.join(', ')}.`, 'vat_period_frequency');
  const badLock = lock == null ? undefined : checkDate(lock);
  if (badLock) throw invalidRequest(`The lock date ${badLock}.`, 'lock_date');
  if (month !== undefined && month !== company.fiscal_year_start_month) {
    // Moving the fiscal year is only safe before anything was posted.
    if (await db.ledgerTransaction.findFirst({ where: { company_id: companyId }, select: { id: true } })) {
      throw new DomainError('books_not_empty', 'The fiscal year start cannot change once transactions are posted.', 'fiscal_year_start_month');
    }
  }
  const updated = await db.company.update({
    where: { id: companyId },
    data: {
      ...(month !== undefined ? { fiscal_year_start_month: month } : {}),
      ...(freq !== undefined ? { vat_period_frequency: freq } : {}),
      ...(vat_registered !== undefined ? { vat_registered } : {}),
      ...(lock !== undefined ? { lock_date: lock === null ? null : toDate(lock) } : {}),
    },
  });
  if (month !== undefined && month !== company.fiscal_year_start_month) {
    const years = await db.fiscalYear.findMany({ where: { company_id: companyId }, select: { id: true } });
    await db.vatPeriod.deleteMany({ where: { company_id: companyId } });
    await db.fiscalYear.deleteMany({ where: { id: { in: years.map((y) => y.id) } } });
    await createFiscalYear(db, updated, fiscalYearContaining(today(), month));
  } else if (freq !== undefined && freq !== company.vat_period_frequency) {
    const open = await db.fiscalYear.findMany({ where: { company_id: companyId, closed: false } });
    for (const fy of open) {
      await db.vatPeriod.deleteMany({ where: { fiscal_year_id: fy.id } });
      await db.vatPeriod.createMany({
        data: vatPeriods({ start: fromDate(fy.start_date), end: fromDate(fy.end_date) }, freq as VatFrequency).map((p) => ({
          id: newId(),
          company_id: companyId,
          fiscal_year_id: fy.id,
          start_date: toDate(p.start),
          end_date: toDate(p.end),
        })),
      });
    }
  }
  return accountingSettings(db, companyId);
}

export async function accountingSettings(db: Db, companyId: string) {
  const company = await db.company.findUniqueOrThrow({ where: { id: companyId } });
  const years = await db.fiscalYear.findMany({
    where: { company_id: companyId },
    orderBy: { start_date: 'asc' },
    include: { vat_periods: { orderBy: { start_date: 'asc' } } },
  });
  return {
    company_id: company.id,
    currency: company.currency,
    vat_registered: company.vat_registered,
    vat_period_frequency: company.vat_period_frequency,
    fiscal_year_start_month: company.fiscal_year_start_month,
    lock_date: company.lock_date ? fromDate(company.lock_date) : null,
    fiscal_years: years.map((y) => ({
      id: y.id,
      start_date: fromDate(y.start_date),
      end_date: fromDate(y.end_date),
      closed: y.closed,
      vat_periods: y.vat_periods.map((p) => ({ start_date: fromDate(p.start_date), end_date: fromDate(p.end_date) })),
    })),
  };
}

/**
 * The first day on or after `date` that can be posted (decision 571): after the lock date, in no closed
 * fiscal year, and not before the first fiscal year.
 */
export async function firstOpenDay(db: Db, companyId: string, date: string): Promise<string> {
  const [company, years] = await Promise.all([
    db.company.findUniqueOrThrow({ where: { id: companyId }, select: { lock_date: true } }),
    db.fiscalYear.findMany({ where: { company_id: companyId }, orderBy: { start_date: 'asc' }, select: { start_date: true, end_date: true, closed: true } }),
  ]);
  const lock = company.lock_date ? fromDate(company.lock_date) : null;
  const spans = years.map((y) => ({ start: fromDate(y.start_date), end: fromDate(y.end_date), closed: y.closed }));
  let d = date;
  for (;;) {
    if (lock && d <= lock) {
      d = dayAfter(lock);
      continue;
    }
    const y = spans.find((s) => s.start <= d && d <= s.end);
    if (y?.closed) {
      d = dayAfter(y.end);
      continue;
    }
    if (!y && spans[0] && d < spans[0].start) {
      d = spans[0].start;
      continue;
    }
    return d;
  }
}
