// The company's exchange-rate table (valutakurser): rates put in batches, listed, and looked up for a
// document's date. A document that gives its own rate never reads the table; one that gives none takes
// the rate of its date here (rateOn), so a later change of the table changes no booked document.
import type { Db, Prisma } from '@tlr/db';
import { addDays, fromDate, toDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { listPage, type ListParams, type ListSpec, type Page } from '../lists/list.ts';
import { Decimal } from '../money.ts';
import { exchangeRateToJson, LEDGER_CURRENCY, parseNationalbankenXml, RATE_LOOKBACK_DAYS, type NationalbankenFile } from './rules.ts';
import type { ExchangeRateInput, ExchangeRateSource, ExchangeRateView } from './schema.ts';

interface RateRow {
  id: string;
  currency: string;
  date: Date;
  rate: Prisma.Decimal;
  source: string;
  created_at: Date;
  updated_at: Date;
}

function exchangeRateView(r: RateRow): ExchangeRateView {
  return {
    id: r.id,
    currency: r.currency,
    date: fromDate(r.date),
    rate: exchangeRateToJson(r.rate),
    source: r.source as ExchangeRateSource,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

const key = (r: { currency: string; date: string }) => `${r.currency} ${r.date}`;

/**
 * Stores `rates` in one statement: a currency and date the company has already is overwritten (PUT
 * semantics; its updated_at moves only when the rate or source changed, so a repeat answers the same).
 * Refuses DKK and one currency and date given twice, naming rates[i]. Answers the stored rows in the
 * order given. How many one call may carry is the caller's limit (REST: MAX_RATES_PER_PUT).
 */
export async function putExchangeRates(
  db: Db,
  scope: CompanyScope,
  rates: readonly ExchangeRateInput[],
  source: ExchangeRateSource = 'api',
): Promise<ExchangeRateView[]> {
  const first = new Map<string, number>();
  rates.forEach((r, i) => {
    if (r.currency === LEDGER_CURRENCY) throw invalidRequest("DKK is the ledger's currency; its rate is always 1.", `rates[${i}].currency`);
    const earlier = first.get(key(r));
    if (earlier !== undefined) throw invalidRequest(`${r.currency} on ${r.date} is given twice, in rates[${earlier}] and rates[${i}].`, `rates[${i}]`);
    first.set(key(r), i);
  });
  if (rates.length === 0) return [];
  // In key order, so two overlapping batches at once lock their rows in the same order and never deadlock.
  const sorted = [...rates].sort((a, b) => (key(a) < key(b) ? -1 : 1));
  const rows = await db.$queryRaw<RateRow[]>`
    INSERT INTO exchange_rates AS r (id, company_id, currency, date, rate, source)
    SELECT i.id, ${scope.companyId}::uuid, i.currency, i.date, i.rate, ${source}
    FROM unnest(${sorted.map(() => newId())}::uuid[], ${sorted.map((r) => r.currency)}::text[], ${sorted.map((r) => r.date)}::date[],
                ${sorted.map((r) => r.rate.toFixed())}::numeric[]) WITH ORDINALITY AS i(id, currency, date, rate, n)
    ORDER BY i.n
    ON CONFLICT (company_id, currency, date) DO UPDATE
    SET rate = EXCLUDED.rate, source = EXCLUDED.source,
        updated_at = CASE WHEN r.rate = EXCLUDED.rate AND r.source = EXCLUDED.source THEN r.updated_at ELSE now() END
    RETURNING id, currency, date, rate, source, created_at, updated_at`;
  const byKey = new Map(rows.map((row) => [key({ currency: row.currency, date: fromDate(row.date) }), row]));
  return rates.map((r) => exchangeRateView(byKey.get(key(r))!));
}

export const EXCHANGE_RATE_LIST = {
  sort: { date: 'date', currency: 'currency', created_at: 'created_at' },
  defaultSort: 'date',
  search: ['currency'],
  dateColumn: 'date',
  dateDescription: 'rate date (kursdato)',
} satisfies ListSpec;

export function listExchangeRates(db: Db, scope: CompanyScope, params: ListParams & { currency?: string | undefined }): Promise<Page<ExchangeRateView>> {
  const base = { company_id: scope.companyId, ...(params.currency ? { currency: params.currency } : {}) };
  return listPage(db.exchangeRate, base, params, EXCHANGE_RATE_LIST, exchangeRateView);
}

/**
 * The rate of `currency` for a document dated `date`: the company's latest rate on that day or in the
 * RATE_LOOKBACK_DAYS before it (no quotation on weekends and bank holidays), and the date it is from.
 * DKK is 1. None: 422 exchange_rate_missing naming exchange_rate, the field that would have avoided it.
 */
export async function rateOn(db: Db, scope: CompanyScope, currency: string, date: string): Promise<{ rate: Decimal; date: string }> {
  if (currency === LEDGER_CURRENCY) return { rate: new Decimal(1), date };
  const from = addDays(date, -RATE_LOOKBACK_DAYS);
  const row = await db.exchangeRate.findFirst({
    where: { company_id: scope.companyId, currency, date: { gte: toDate(from), lte: toDate(date) } },
    orderBy: { date: 'desc' },
    select: { rate: true, date: true },
  });
  if (!row) {
    throw new DomainError(
      'exchange_rate_missing',
      `The company has no ${currency} rate from ${from} to ${date}: give exchange_rate, or put the rate with PUT /exchange-rates.`,
      'exchange_rate',
    );
  }
  return { rate: new Decimal(row.rate.toString()), date: fromDate(row.date) };
}

/**
 * `tlr exchange-rates load`: the rates of a Nationalbanken file (parseNationalbankenXml) into a company's
 * table, all of them in one statement, as source nationalbanken. Only that company: a sandbox has a
 * table of its own (decision 197). Answers how many rates for which dates, and the codes left out.
 */
export async function loadNationalbankenRates(
  db: Db,
  companyId: string,
  xml: string,
): Promise<{ company_id: string; rates: number; dates: { date: string; rates: number }[]; skipped: NationalbankenFile['skipped'] }> {
  const company = await db.company.findUnique({ where: { id: companyId }, select: { sandbox_of_id: true } });
  if (!company) throw notFound('company', companyId);
  const file = parseNationalbankenXml(xml);
  await putExchangeRates(db, { companyId, livemode: company.sandbox_of_id === null }, file.rates, 'nationalbanken');
  const perDate = new Map<string, number>();
  for (const r of file.rates) perDate.set(r.date, (perDate.get(r.date) ?? 0) + 1);
  const dates = [...perDate].sort(([a], [b]) => (a < b ? -1 : 1)).map(([date, rates]) => ({ date, rates }));
  return { company_id: companyId, rates: file.rates.length, dates, skipped: file.skipped };
}
