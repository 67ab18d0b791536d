// The layout of the profit and loss statement and the balance sheet (Danish standard chart, ÅRL skema 1
// "artsopdelt"), and the pure functions that place per-account totals into it. Decimal only; no database.
import { Decimal } from '../money.ts';

/** One account's summed debit and credit over the report's period (from account_daily_balances). */
export interface AccountTotals {
  account_id: string;
  account_number: string;
  name: string;
  type: string;
  group_code: string;
  debit: Decimal;
  credit: Decimal;
  /** The budgeted amount, signed as the report shows the account (GET /reports/profit-loss?budget=). */
  budget?: Decimal | undefined;
}

/** For the balance sheet: the part of debit/credit dated before the fiscal year of as_of. */
export interface BalanceAccountTotals extends AccountTotals {
  debit_before_year: Decimal;
  credit_before_year: Decimal;
}

export interface ReportLine {
  account_id: string;
  account_number: string;
  name: string;
  amount: Decimal;
  /** With a budget: the budgeted amount (0 when none). */
  budget?: Decimal | undefined;
}

export interface ReportSection<K extends string = string> {
  key: K;
  name: string;
  accounts: ReportLine[];
  total: Decimal;
  /** With a budget: the sum of the accounts' budgets. */
  budget?: Decimal | undefined;
}

type Side = 'credit' | 'debit';

interface SectionRule<K extends string> {
  key: K;
  name: string;
  /** credit: positive when credit > debit (income, equity and liabilities); debit: the opposite. */
  side: Side;
  /** Standard-chart group codes (accounts.group_code) that report here. */
  groups: readonly string[];
}

// ---- profit and loss ----------------------------------------------------------------------------

const PROFIT_LOSS_SECTIONS = [
  { key: 'revenue', name: 'Nettoomsætning', side: 'credit', groups: ['1010-1389'] },
  // ÅRL items 2-4: change in inventories of finished goods, own work capitalised, other operating income.
  { key: 'other_operating_income', name: 'Andre driftsindtægter', side: 'credit', groups: ['1410-1489', '1496-1498', '1510-1589'] },
  { key: 'cost_of_sales', name: 'Omkostninger til råvarer og hjælpematerialer', side: 'debit', groups: ['1610-1809'] },
  { key: 'other_external_expenses', name: 'Andre eksterne omkostninger', side: 'debit', groups: ['183-282', '1830-2009', '2030-2209', '2230-2829'] },
  { key: 'staff', name: 'Personaleomkostninger', side: 'debit', groups: ['284-298', '2845-2900', '2910-2925', '2928-2949'] },
  { key: 'depreciation', name: 'Af- og nedskrivninger', side: 'debit', groups: ['3000-3099', '3130-3139'] },
  { key: 'other_operating_expenses', name: 'Andre driftsomkostninger', side: 'debit', groups: ['3160-3174'] },
  // Revenue and expense accounts whose group is none of the above or below (3180, or a custom number
  // outside every group): kept, by type, and counted as operating items.
  { key: 'other_income', name: 'Øvrige indtægter', side: 'credit', groups: [] },
  { key: 'other_expenses', name: 'Øvrige omkostninger', side: 'debit', groups: [] },
  {
    key: 'financial_income',
    name: 'Finansielle indtægter',
    side: 'credit',
    groups: ['3181-3189', '3193-3239', '3252-3259', '3262-3269', '3272-3279', '3380-3409', '3440-3449', '3470-3539'],
  },
  { key: 'financial_expenses', name: 'Finansielle omkostninger', side: 'debit', groups: ['3560-3569', '3590-3699'] },
  { key: 'tax', name: 'Skat af årets resultat', side: 'debit', groups: ['3740-3789', '3810-3819'] },
] as const satisfies readonly SectionRule<string>[];

export type ProfitLossSectionKey = (typeof PROFIT_LOSS_SECTIONS)[number]['key'];
export const PROFIT_LOSS_SECTION_KEYS = PROFIT_LOSS_SECTIONS.map((s) => s.key) as [ProfitLossSectionKey, ...ProfitLossSectionKey[]];

export interface ProfitAndLoss {
  sections: ReportSection<ProfitLossSectionKey>[];
  totals: {
    /** Bruttofortjeneste: revenue + other operating income − cost of sales − other external expenses. */
    gross_profit: Decimal;
    /** Resultat af primær drift: gross profit − staff − depreciation − other operating expenses ± other. */
    operating_profit: Decimal;
    /** Resultat før skat: operating profit + financial income − financial expenses. */
    profit_before_tax: Decimal;
    /** Årets resultat: profit before tax − tax (= every revenue − every cost). */
    result: Decimal;
  };
}

const isProfitLossType = (type: string) => type === 'revenue' || type === 'expense';

const amountOn = (side: Side, debit: Decimal, credit: Decimal) => (side === 'credit' ? credit.minus(debit) : debit.minus(credit));

const byNumber = (a: { account_number: string }, b: { account_number: string }) =>
  a.account_number < b.account_number ? -1 : a.account_number > b.account_number ? 1 : 0;

/** Places accounts into sections by rule; `fallback` picks the section of an account no rule claims. */
function place<K extends string>(
  rules: readonly SectionRule<K>[],
  rows: readonly AccountTotals[],
  fallback: (row: AccountTotals) => K,
): Map<K, ReportSection<K>> {
  const sections = new Map<K, ReportSection<K>>(rules.map((r) => [r.key, { key: r.key, name: r.name, accounts: [], total: new Decimal(0) }]));
  const sideOf = new Map(rules.map((r) => [r.key, r.side]));
  const byGroup = new Map(rules.flatMap((r) => r.groups.map((g) => [g, r.key] as const)));
  for (const row of [...rows].sort(byNumber)) {
    const key = byGroup.get(row.group_code) ?? fallback(row);
    const amount = amountOn(sideOf.get(key)!, row.debit, row.credit);
    // An account with a budget shows even when nothing was posted on it.
    if (amount.isZero() && (row.budget === undefined || row.budget.isZero())) continue;
    const section = sections.get(key)!;
    section.accounts.push({
      account_id: row.account_id,
      account_number: row.account_number,
      name: row.name,
      amount,
      ...(row.budget === undefined ? {} : { budget: row.budget }),
    });
    section.total = section.total.plus(amount);
    if (row.budget !== undefined) section.budget = (section.budget ?? new Decimal(0)).plus(row.budget);
  }
  return sections;
}

/** The profit and loss statement of revenue and expense accounts' totals over a period. */
export function buildProfitAndLoss(rows: readonly AccountTotals[]): ProfitAndLoss {
  const s = place(
    PROFIT_LOSS_SECTIONS,
    rows.filter((r) => isProfitLossType(r.type)),
    (r) => (r.type === 'revenue' ? 'other_income' : 'other_expenses'),
  );
  return { sections: [...s.values()], totals: profitLossTotals((k) => s.get(k)!.total) };
}

/** The totals of a profit and loss statement from its sections' totals (the actuals', or the budget's). */
export function profitLossTotals(t: (k: ProfitLossSectionKey) => Decimal): ProfitAndLoss['totals'] {
  const gross_profit = t('revenue').plus(t('other_operating_income')).minus(t('cost_of_sales')).minus(t('other_external_expenses'));
  const operating_profit = gross_profit
    .minus(t('staff'))
    .minus(t('depreciation'))
    .minus(t('other_operating_expenses'))
    .plus(t('other_income'))
    .minus(t('other_expenses'));
  const profit_before_tax = operating_profit.plus(t('financial_income')).minus(t('financial_expenses'));
  const result = profit_before_tax.minus(t('tax'));
  return { gross_profit, operating_profit, profit_before_tax, result };
}

// ---- balance sheet ------------------------------------------------------------------------------

export type BalanceGroupKey =
  | 'intangible_fixed_assets'
  | 'tangible_fixed_assets'
  | 'financial_fixed_assets'
  | 'other_fixed_assets'
  | 'inventories'
  | 'receivables'
  | 'securities'
  | 'cash'
  | 'other_current_assets'
  | 'posted_equity'
  | 'result_for_the_year'
  | 'prior_years_result'
  | 'provisions'
  | 'long_term_liabilities'
  | 'short_term_liabilities';

const ASSET_GROUPS: readonly SectionRule<BalanceGroupKey>[] = [
  { key: 'intangible_fixed_assets', name: 'Immaterielle anlægsaktiver', side: 'debit', groups: ['5010-5139'] },
  { key: 'tangible_fixed_assets', name: 'Materielle anlægsaktiver', side: 'debit', groups: ['5160-5769'] },
  { key: 'financial_fixed_assets', name: 'Finansielle anlægsaktiver', side: 'debit', groups: ['5800-6069'] },
  { key: 'other_fixed_assets', name: 'Øvrige anlægsaktiver', side: 'debit', groups: ['501-606'] },
  { key: 'inventories', name: 'Varebeholdninger', side: 'debit', groups: ['6080-6179'] },
  { key: 'receivables', name: 'Tilgodehavender', side: 'debit', groups: ['6190-6409'] },
  { key: 'securities', name: 'Værdipapirer og kapitalandele', side: 'debit', groups: ['6420-6459'] },
  { key: 'cash', name: 'Likvide beholdninger', side: 'debit', groups: ['6470-6489'] },
  { key: 'other_current_assets', name: 'Øvrige omsætningsaktiver', side: 'debit', groups: ['608-648'] },
];

const LIABILITY_GROUPS: readonly SectionRule<BalanceGroupKey>[] = [
  { key: 'posted_equity', name: 'Bogført egenkapital', side: 'credit', groups: ['6510-6969'] },
  // Two computed groups without accounts: the revenue and expense not (yet) closed into equity.
  { key: 'result_for_the_year', name: 'Årets resultat', side: 'credit', groups: [] },
  { key: 'prior_years_result', name: 'Overført resultat fra tidligere år', side: 'credit', groups: [] },
  { key: 'provisions', name: 'Hensatte forpligtelser', side: 'credit', groups: ['6985-7049'] },
  { key: 'long_term_liabilities', name: 'Langfristede gældsforpligtelser', side: 'credit', groups: ['7055-7269'] },
  { key: 'short_term_liabilities', name: 'Kortfristede gældsforpligtelser', side: 'credit', groups: ['7285-8079'] },
];

/** Sections of the balance sheet and the groups each holds, in order. */
const BALANCE_SECTIONS = {
  assets: [
    {
      key: 'fixed_assets',
      name: 'Anlægsaktiver',
      groups: ['intangible_fixed_assets', 'tangible_fixed_assets', 'financial_fixed_assets', 'other_fixed_assets'],
    },
    { key: 'current_assets', name: 'Omsætningsaktiver', groups: ['inventories', 'receivables', 'securities', 'cash', 'other_current_assets'] },
  ],
  liabilities_and_equity: [
    { key: 'equity', name: 'Egenkapital', groups: ['posted_equity', 'result_for_the_year', 'prior_years_result'] },
    { key: 'provisions', name: 'Hensatte forpligtelser', groups: ['provisions'] },
    { key: 'long_term_liabilities', name: 'Langfristede gældsforpligtelser', groups: ['long_term_liabilities'] },
    { key: 'short_term_liabilities', name: 'Kortfristede gældsforpligtelser', groups: ['short_term_liabilities'] },
  ],
} as const satisfies Record<string, readonly { key: string; name: string; groups: readonly BalanceGroupKey[] }[]>;

export type BalanceSectionKey = (typeof BALANCE_SECTIONS)[keyof typeof BALANCE_SECTIONS][number]['key'];
export const BALANCE_SECTION_KEYS = [...BALANCE_SECTIONS.assets, ...BALANCE_SECTIONS.liabilities_and_equity].map((s) => s.key) as [
  BalanceSectionKey,
  ...BalanceSectionKey[],
];
export const BALANCE_GROUP_KEYS = [...ASSET_GROUPS, ...LIABILITY_GROUPS].map((g) => g.key) as [BalanceGroupKey, ...BalanceGroupKey[]];

export interface BalanceSection {
  key: BalanceSectionKey;
  name: string;
  groups: ReportSection<BalanceGroupKey>[];
  total: Decimal;
}

export interface BalanceSheet {
  assets: BalanceSection[];
  total_assets: Decimal;
  liabilities_and_equity: BalanceSection[];
  total_liabilities_and_equity: Decimal;
  balanced: boolean;
}

const typeFallback = (r: AccountTotals): BalanceGroupKey =>
  r.type === 'asset' ? 'other_current_assets' : r.type === 'equity' ? 'posted_equity' : 'short_term_liabilities';

/**
 * The balance sheet from every account's totals up to as_of. Asset, liability and equity accounts are
 * placed by their group (an account whose group is not a balance-sheet group falls back by type);
 * revenue and expense accounts become two equity lines: the result of the fiscal year so far and the
 * result of earlier years. As every account lands exactly once on one side with opposite signs,
 * total assets − total liabilities and equity = Σ(debit − credit) over the ledger = 0 for a balanced ledger.
 */
export function buildBalanceSheet(rows: readonly BalanceAccountTotals[]): BalanceSheet {
  const balanceRows = rows.filter((r) => !isProfitLossType(r.type));
  const all = place([...ASSET_GROUPS, ...LIABILITY_GROUPS], balanceRows, typeFallback);

  let prior = new Decimal(0);
  let year = new Decimal(0);
  for (const r of rows.filter((r) => isProfitLossType(r.type))) {
    const before = r.credit_before_year.minus(r.debit_before_year);
    prior = prior.plus(before);
    year = year.plus(r.credit.minus(r.debit).minus(before));
  }
  all.get('result_for_the_year')!.total = year;
  all.get('prior_years_result')!.total = prior;

  const sections = (defs: readonly { key: BalanceSectionKey; name: string; groups: readonly BalanceGroupKey[] }[]): BalanceSection[] =>
    defs.map((d) => {
      const groups = d.groups.map((g) => all.get(g)!);
      return { key: d.key, name: d.name, groups, total: groups.reduce((sum, g) => sum.plus(g.total), new Decimal(0)) };
    });
  const assets = sections(BALANCE_SECTIONS.assets);
  const liabilities = sections(BALANCE_SECTIONS.liabilities_and_equity);
  const total = (ss: BalanceSection[]) => ss.reduce((sum, s) => sum.plus(s.total), new Decimal(0));
  const total_assets = total(assets);
  const total_liabilities_and_equity = total(liabilities);
  return {
    assets,
    total_assets,
    liabilities_and_equity: liabilities,
    total_liabilities_and_equity,
    balanced: total_assets.equals(total_liabilities_and_equity),
  };
}

/** Every group code a rule names, for the test that the layout covers the standard chart. */
export const LAYOUT_GROUP_CODES = {
  profitLoss: PROFIT_LOSS_SECTIONS.flatMap((s) => [...s.groups] as string[]),
  balance: [...ASSET_GROUPS, ...LIABILITY_GROUPS].flatMap((g) => [...g.groups]),
};
