// Fixed assets without the database: the asset groups and their accounts in the standard chart, the
// straight-line monthly schedule (the last month takes the rounding), the disposal's lines, and the tax
// view's saldo method. docs/assets.md; decisions 567-579.
import { Decimal } from '../money.ts';
import { daysInMonth, ymd } from '../calendar.ts';

/**
 * The asset groups (anlægstyper) and their accounts of the standard chart (decision 568): the asset's
 * cost ("årets tilgange"), its accumulated depreciation ("årets af- og nedskrivninger"), the expense
 * ("Af- og nedskrivninger af ...") and the gain or loss on disposal. `saldo`: the group is operating
 * equipment pooled by the saldo method for tax (afskrivningsloven § 5); the others are not in the tax view.
 */
export const ASSET_GROUPS = {
  operating_equipment: {
    name: 'Andre anlæg, driftsmateriel og inventar',
    asset: '5580',
    accumulated: '5610',
    depreciation: '3050',
    gain: '1530',
    loss: '3170',
    saldo: true,
  },
  machinery: { name: 'Produktionsanlæg og maskiner', asset: '5430', accumulated: '5470', depreciation: '3030', gain: '1530', loss: '3170', saldo: true },
  leasehold_improvements: {
    name: 'Indretning af lejede lokaler',
    asset: '5510',
    accumulated: '5540',
    depreciation: '3040',
    gain: '1530',
    loss: '3170',
    saldo: false,
  },
  buildings: { name: 'Grunde og bygninger', asset: '5330', accumulated: '5390', depreciation: '3020', gain: '1530', loss: '3170', saldo: false },
  intangible: {
    name: 'Erhvervede immaterielle anlægsaktiver',
    asset: '5090',
    accumulated: '5120',
    depreciation: '3000',
    gain: '1510',
    loss: '3160',
    saldo: false,
  },
  goodwill: { name: 'Goodwill', asset: '5020', accumulated: '5050', depreciation: '3010', gain: '1510', loss: '3160', saldo: false },
} as const;
export type AssetGroup = keyof typeof ASSET_GROUPS;
export const ASSET_GROUP_NAMES = Object.keys(ASSET_GROUPS) as [AssetGroup, ...AssetGroup[]];

export const ASSET_STATUSES = ['active', 'fully_depreciated', 'disposed'] as const;
export type AssetStatus = (typeof ASSET_STATUSES)[number];

/** At most 100 years of months. */
export const MAX_LIFE_MONTHS = 1200;

/** The first day of the month `n` months after `date`'s month (n may be 0). */
export function monthStart(date: string, n = 0): string {
  const y = Number(date.slice(0, 4));
  const m = Number(date.slice(5, 7)) - 1 + n;
  return ymd(y + Math.floor(m / 12), (m % 12) + 1, 1);
}

/** The last day of `date`'s month. */
export function monthEnd(date: string): string {
  const y = Number(date.slice(0, 4));
  const m = Number(date.slice(5, 7));
  return ymd(y, m, daysInMonth(y, m));
}

/** Whole months from `from`'s month to `to`'s month (March to May: 2). */
export const monthsBetween = (from: string, to: string) =>
  (Number(to.slice(0, 4)) - Number(from.slice(0, 4))) * 12 + Number(to.slice(5, 7)) - Number(from.slice(5, 7));

export interface ScheduleMonth {
  /** The month's first day. */
  month: string;
  amount: Decimal;
}

/**
 * Straight-line monthly depreciation (decision 569): (cost − residual) over the life in months, from the
 * month of acquisition, each month rounded to øre half up and the last month taking the rest, so that the
 * months sum to exactly cost − residual. When rounding up would leave the last month negative (a tiny
 * amount over a long life), every month but the last is rounded down instead.
 */
export function depreciationSchedule(a: { acquisition_date: string; cost: Decimal; residual_value: Decimal; useful_life_months: number }): ScheduleMonth[] {
  const total = a.cost.minus(a.residual_value);
  const life = a.useful_life_months;
  let monthly = total.dividedBy(life).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
  if (monthly.times(life - 1).greaterThan(total)) monthly = total.dividedBy(life).toDecimalPlaces(2, Decimal.ROUND_DOWN);
  const last = total.minus(monthly.times(life - 1));
  return Array.from({ length: life }, (_, i) => ({ month: monthStart(a.acquisition_date, i), amount: i === life - 1 ? last : monthly }));
}

/**
 * The disposal's lines (decision 573): the proceeds to their account, the accumulated depreciation and
 * the cost taken off, and the difference as a gain (credit) or loss (debit). Zero lines are left out.
 */
export function disposalLines(a: { cost: Decimal; depreciated: Decimal; proceeds: Decimal }): {
  proceeds: Decimal;
  accumulated: Decimal;
  cost: Decimal;
  gain: Decimal;
  loss: Decimal;
} {
  const result = a.proceeds.plus(a.depreciated).minus(a.cost);
  const zero = new Decimal(0);
  return {
    proceeds: a.proceeds,
    accumulated: a.depreciated,
    cost: a.cost,
    gain: result.isPositive() && !result.isZero() ? result : zero,
    loss: result.isNegative() ? result.negated() : zero,
  };
}

/**
 * The small-asset limit (småaktivgrænse, afskrivningsloven § 6, stk. 1, nr. 2) and the small-pool limit
 * (småsaldigrænse, § 5, stk. 3), the same amount, per income year: the basic amount of 26.200 kr.
 * (2010 level) regulated by personskatteloven § 20, as Skatteministeriet publishes them
 * (skm.dk, "Beløbsgrænser i skattelovgivningen der reguleres efter personskattelovens § 20", 2023-2026).
 * A year after the last known uses the last; before the first, the first (decision 575).
 */
export const SMALL_ASSET_LIMITS: Readonly<Record<number, string>> = { 2023: '32000', 2024: '33100', 2025: '34400', 2026: '36000' };

export function statutorySmallAssetLimit(year: number): Decimal {
  const years = Object.keys(SMALL_ASSET_LIMITS)
    .map(Number)
    .sort((a, b) => a - b);
  const known = years.filter((y) => y <= year).at(-1) ?? years[0]!;
  return new Decimal(SMALL_ASSET_LIMITS[known]!);
}

/** The saldo method's largest rate for operating equipment (afskrivningsloven § 5, stk. 3). */
export const SALDO_RATE = new Decimal('0.25');

export interface SaldoYear {
  opening: Decimal;
  additions: Decimal;
  disposals: Decimal;
  basis: Decimal;
  depreciation: Decimal;
  /** A negative basis is taxable income and the pool starts again at 0 (§ 5, stk. 5). */
  income: Decimal;
  closing: Decimal;
  /** The whole pool written off because the basis was at most the small-pool limit (§ 5, stk. 3). */
  written_off: boolean;
}

/**
 * One income year of the saldo method: opening + additions − disposal proceeds is the basis; the largest
 * depreciation is 25 % of it, or all of it when it is at most the small-pool limit; a negative basis is
 * income. Amounts to øre, half up.
 */
export function saldoYear(opening: Decimal, additions: Decimal, disposals: Decimal, limit: Decimal): SaldoYear {
  const zero = new Decimal(0);
  const basis = opening.plus(additions).minus(disposals);
  if (basis.isNegative()) return { opening, additions, disposals, basis, depreciation: zero, income: basis.negated(), closing: zero, written_off: false };
  if (basis.lessThanOrEqualTo(limit))
    return { opening, additions, disposals, basis, depreciation: basis, income: zero, closing: zero, written_off: !basis.isZero() };
  const depreciation = basis.times(SALDO_RATE).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
  return { opening, additions, disposals, basis, depreciation, income: zero, closing: basis.minus(depreciation), written_off: false };
}
