// The Danish VAT treatments (momskoder), pure: which codes a company is seeded with, what each one
// means (sale or purchase, rate, deductible share, VAT accounts, the field of the VAT return its base
// is reported in), and the ledger lines VAT of a code posts. Invoices, expenses, the VAT return and
// SAF-T all read these; nothing else decides what a code does.
import { Decimal, roundKroner, roundOere } from '../money.ts';
import type { PostingLine } from '../ledger/rules.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';

/**
 * What a code does. Sales: `output` (Danish VAT charged), `exempt_sale` (momsfritaget, § 13),
 * `eu_sale_goods` / `eu_sale_goods_unlisted` / `eu_sale_services` (0 %, rubrik B), `export` and
 * `domestic_reverse_charge_sale` (0 %, rubrik C). Purchases: `input` (købsmoms, fully or partly
 * deductible), `exempt_purchase`, and the reverse charges, where the buyer computes the VAT, owes it
 * (credit) and deducts it (debit): `eu_purchase_goods` / `eu_purchase_services` (rubrik A),
 * `import_goods`, `foreign_purchase_services` (outside the EU) and `domestic_reverse_charge_purchase`
 * (§ 46, e.g. construction services).
 */
const SALES = ['output', 'exempt_sale', 'eu_sale_goods', 'eu_sale_goods_unlisted', 'eu_sale_services', 'export', 'domestic_reverse_charge_sale'] as const;
/** Reverse charge: the buyer posts the VAT both as owed (account_number) and as deductible (offset_account_number). */
const REVERSE_CHARGE = ['eu_purchase_goods', 'eu_purchase_services', 'import_goods', 'foreign_purchase_services', 'domestic_reverse_charge_purchase'] as const;
export const VAT_KINDS = [...SALES, 'input', 'exempt_purchase', ...REVERSE_CHARGE] as const;
export type VatKind = (typeof VAT_KINDS)[number];

/** Sales whose buyer must be registered for VAT in another EU country (their number goes on the invoice and in EU-salg uden moms). */
const EU_SALES: readonly VatKind[] = ['eu_sale_goods', 'eu_sale_goods_unlisted', 'eu_sale_services'];

export const isSalesKind = (kind: VatKind) => (SALES as readonly VatKind[]).includes(kind);
export const isReverseCharge = (kind: VatKind) => (REVERSE_CHARGE as readonly VatKind[]).includes(kind);
export const needsEuBuyer = (kind: VatKind) => EU_SALES.includes(kind);

/** The VAT return's fields that sum bases (values) rather than VAT amounts, and the kinds reported in each. */
export const BOX_OF_KIND: Partial<Record<VatKind, BoxField>> = {
  eu_purchase_goods: 'box_a_goods',
  eu_purchase_services: 'box_a_services',
  eu_sale_goods: 'box_b_goods_reported',
  eu_sale_goods_unlisted: 'box_b_goods_not_reported',
  eu_sale_services: 'box_b_services',
  export: 'box_c',
  domestic_reverse_charge_sale: 'box_c',
};
export const BOX_FIELDS = ['box_a_goods', 'box_a_services', 'box_b_goods_reported', 'box_b_goods_not_reported', 'box_b_services', 'box_c'] as const;
export type BoxField = (typeof BOX_FIELDS)[number];

/**
 * The return's VAT and duty fields and the account of the standard chart each one reads; `sign` 1 reads
 * the credit balance (what is owed), -1 the debit balance (what is deducted or refunded).
 */
export const ACCOUNT_FIELDS = [
  { field: 'output_vat', account_number: DEFAULT_ACCOUNTS.outputVat, sign: 1 },
  { field: 'vat_on_goods_purchased_abroad', account_number: DEFAULT_ACCOUNTS.vatOnGoodsAbroad, sign: 1 },
  { field: 'vat_on_services_purchased_abroad', account_number: DEFAULT_ACCOUNTS.vatOnServicesAbroad, sign: 1 },
  { field: 'input_vat', account_number: DEFAULT_ACCOUNTS.inputVat, sign: -1 },
  { field: 'oil_and_bottled_gas_duty', account_number: DEFAULT_ACCOUNTS.oilAndBottledGasDuty, sign: -1 },
  { field: 'electricity_duty', account_number: DEFAULT_ACCOUNTS.electricityDuty, sign: -1 },
  { field: 'natural_gas_and_town_gas_duty', account_number: DEFAULT_ACCOUNTS.naturalGasAndTownGasDuty, sign: -1 },
  { field: 'coal_duty', account_number: DEFAULT_ACCOUNTS.coalDuty, sign: -1 },
  { field: 'co2_duty', account_number: DEFAULT_ACCOUNTS.co2Duty, sign: -1 },
  { field: 'water_duty', account_number: DEFAULT_ACCOUNTS.waterDuty, sign: -1 },
] as const;
export type AccountField = (typeof ACCOUNT_FIELDS)[number]['field'];
export type VatReturnField = AccountField | BoxField | 'net_vat';
/** Every field of the return in the order of Skattestyrelsen's form. */
export const VAT_RETURN_FIELDS: readonly VatReturnField[] = [...ACCOUNT_FIELDS.map((f) => f.field), ...BOX_FIELDS, 'net_vat'];
/** Accounts whose lines are VAT, never a base: a coded line on one of them adds to no box. */
export const VAT_ACCOUNT_NUMBERS: ReadonlySet<string> = new Set(ACCOUNT_FIELDS.map((f) => f.account_number));

export interface VatCodeSeed {
  code: string;
  name: string;
  kind: VatKind;
  rate: string;
  /** The VAT account: output VAT for sales, the owed VAT of a reverse charge, input VAT for purchases. */
  account_number: string;
  /** Reverse charge: the account of the deductible input VAT. */
  offset_account_number: string;
  /** Percent of the VAT that is deductible (purchases); 100 for sales. */
  deductible_percent: string;
  /** The tax of the standard Danish set (prisma/seed/dk-chart/account.tax-dk.csv) this code is, by its name (S-DK-25). */
  standard_code: string;
}

const code = (
  c: string,
  name: string,
  kind: VatKind,
  standard: string,
  rate = '0',
  accounts: [string, string] = ['', ''],
  deductible = '100',
): VatCodeSeed => ({
  code: c,
  name,
  kind,
  rate,
  account_number: accounts[0],
  offset_account_number: accounts[1],
  deductible_percent: deductible,
  standard_code: standard,
});

const { outputVat, inputVat, vatOnGoodsAbroad, vatOnServicesAbroad } = DEFAULT_ACCOUNTS;

/**
 * The VAT codes every company is seeded with; `code` is short (SAF-T TaxCode, at most 9 characters)
 * and stable, `standard_code` names the row of the standard set whose tags name the return's fields
 * (codes.test.ts checks each seed against that row).
 */
export const VAT_CODES: readonly VatCodeSeed[] = [
  code('S25', 'Salgsmoms 25%', 'output', 'S-DK-25', '25', [outputVat, '']),
  code('S0', 'Momsfrit salg (0 %)', 'exempt_sale', 'S-DK-MF'),
  code('SMF', 'Momsfritaget salg (momslovens § 13)', 'exempt_sale', 'S-DK-MF'),
  code('SEUV', 'Salg af varer til EU, 0% (rubrik B, indberettes)', 'eu_sale_goods', 'S-EU-V-0'),
  code('SEUVI', 'Salg af varer til EU, 0% (rubrik B, indberettes ikke)', 'eu_sale_goods_unlisted', 'S-EU-V-0%'),
  code('SEUY', 'Salg af ydelser til EU, 0% (rubrik B)', 'eu_sale_services', 'S-EU-Y-0'),
  // Triangular trade (trekantshandel, momslovens § 34): rubrik B varer as SEUV, its own column of EU-salg uden moms (decision 511).
  code('SEUT', 'Trekantshandel, salg af varer til EU, 0% (rubrik B, indberettes)', 'eu_sale_goods', 'S-EU-V-0'),
  code('SEXP', 'Eksport uden for EU, 0% (rubrik C)', 'export', 'S-DK-0'),
  code('SOMV', 'Salg med omvendt betalingspligt (momslovens § 46, rubrik C)', 'domestic_reverse_charge_sale', 'S-DK-0'),
  code('K25', 'Købsmoms 25%, fuldt fradrag', 'input', 'K-DK-Fradrag', '25', [inputVat, '']),
  code('KDELVIS', 'Købsmoms 25%, delvist fradrag (angivet procent)', 'input', 'K-DK-DelvisFradrag', '25', [inputVat, '']),
  code('KREP', 'Repræsentation, 25% af momsen fradrages', 'input', 'K-DK-RepræsentationFradragFuld', '25', [inputVat, ''], '25'),
  code('K0', 'Momsfrit køb', 'exempt_purchase', 'K-DK-IngenFradrag'),
  code('EUV', 'Køb af varer i EU, erhvervelsesmoms (rubrik A)', 'eu_purchase_goods', 'K-EU-V-Fradrag', '25', [vatOnGoodsAbroad, inputVat]),
  code('EUY', 'Køb af ydelser i EU, omvendt betalingspligt (rubrik A)', 'eu_purchase_services', 'K-EU-Y-Fradrag', '25', [vatOnServicesAbroad, inputVat]),
  code('IMPV', 'Import af varer uden for EU, importmoms', 'import_goods', 'K-%EU-V-Fradrag', '25', [vatOnGoodsAbroad, inputVat]),
  code('UY', 'Køb af ydelser uden for EU, omvendt betalingspligt', 'foreign_purchase_services', 'K-%EU-Y-Fradrag', '25', [vatOnServicesAbroad, inputVat]),
  code('KOMV', 'Køb med omvendt betalingspligt (momslovens § 46)', 'domestic_reverse_charge_purchase', 'K-DKO-Fradrag', '25', [outputVat, inputVat]),
];

/** The code an invoice line's bare vat_rate stands for, as before codes existed (25 → S25, 0 → S0). */
export const DEFAULT_SALES_CODE: Readonly<Record<string, string>> = { '25.00': 'S25', '0.00': 'S0' };

/** A company's code as the rules need it (a row of vat_codes). */
export interface VatTreatment {
  code: string;
  kind: VatKind;
  rate: Decimal;
  accountId: string | null;
  offsetAccountId: string | null;
  deductiblePercent: Decimal;
}

/**
 * The VAT lines of a base under a code, and the part of the VAT that is not deductible (it is a cost:
 * the caller adds it to the base's expense line). `vat` is the VAT of the base, already rounded to øre;
 * `deductible` overrides the code's percent (a stated pro-rata share). The deductible amount is rounded
 * half up to øre; the non-deductible rest is exact by subtraction, so nothing is lost to rounding.
 *   sale:            credit account_number with vat
 *   purchase:        debit account_number with the deductible part
 *   reverse charge:  credit account_number with vat, debit offset_account_number with the deductible part
 * Amounts may be negative (a credit line); each is placed on the side its sign calls for.
 */
export function vatLines(
  t: VatTreatment,
  vat: Decimal,
  text: string,
  deductible: Decimal = t.deductiblePercent,
): { lines: PostingLine[]; nonDeductible: Decimal } {
  const zero = new Decimal(0);
  if (vat.isZero()) return { lines: [], nonDeductible: zero };
  const line = (accountId: string | null, debit: Decimal): PostingLine => ({
    accountId: accountId!,
    debit: debit.isNegative() ? zero : debit,
    credit: debit.isNegative() ? debit.negated() : zero,
    description: text,
    vatCode: t.code,
  });
  if (isSalesKind(t.kind)) return { lines: [line(t.accountId, vat.negated())], nonDeductible: zero };
  const deducted = roundOere(vat.times(deductible).dividedBy(100));
  const lines: PostingLine[] = [];
  if (isReverseCharge(t.kind)) lines.push(line(t.accountId, vat.negated()));
  if (!deducted.isZero()) lines.push(line(isReverseCharge(t.kind) ? t.offsetAccountId : t.accountId, deducted));
  return { lines, nonDeductible: vat.minus(deducted) };
}

/** What an invoice prints for a sales code's group (faktureringsbekendtgørelsen: why a sale carries no VAT). */
const INVOICE_TEXT: Readonly<Record<string, string>> = {
  SMF: 'Momsfritaget (momslovens § 13)',
  SEUV: 'EU-salg af varer uden moms (omvendt betalingspligt)',
  SEUVI: 'EU-salg af varer uden moms (omvendt betalingspligt)',
  SEUY: 'EU-salg af ydelser uden moms (omvendt betalingspligt)',
  SEUT: 'EU-salg af varer uden moms, trekantshandel (omvendt betalingspligt)',
  SEXP: 'Eksport uden moms',
  SOMV: 'Omvendt betalingspligt (momslovens § 46)',
};

export function invoiceVatLabel(code: string, rate: Decimal): string {
  return INVOICE_TEXT[code] ?? (rate.isZero() ? 'Momsfrit (0 %)' : `Moms ${rate.toString().replace('.', ',')} %`);
}

export interface Sides {
  debit: Decimal;
  credit: Decimal;
}

export interface ReturnFigures {
  /** Every field in DKK with øre: what the ledger holds. */
  exact: Record<VatReturnField, Decimal>;
  /** Every field in whole kroner, as the return is filed: each rounded half up, net_vat from the rounded fields. */
  kroner: Record<VatReturnField, Decimal>;
}

/**
 * The VAT return from the period's movements: each VAT or duty field is its account's balance in the
 * period (owed fields the credit balance, deducted ones the debit balance); each box is the base of its
 * codes (sales: credit less debit; purchases: debit less credit, so a credit note reduces it);
 * afgiftstilsvar = salgsmoms + moms af varekøb og ydelseskøb i udlandet − købsmoms − the duties.
 */
export function returnFigures(accounts: ReadonlyMap<string, Sides>, bases: ReadonlyMap<VatKind, Sides>): ReturnFigures {
  const zero = new Decimal(0);
  const exact = {} as Record<VatReturnField, Decimal>;
  const kroner = {} as Record<VatReturnField, Decimal>;
  let net = zero;
  for (const f of ACCOUNT_FIELDS) {
    const s = accounts.get(f.account_number) ?? { debit: zero, credit: zero };
    exact[f.field] = f.sign === 1 ? s.credit.minus(s.debit) : s.debit.minus(s.credit);
    kroner[f.field] = roundKroner(exact[f.field]);
    net = net.plus(kroner[f.field].times(f.sign));
  }
  for (const box of BOX_FIELDS) exact[box] = zero;
  for (const [kind, s] of bases) {
    const box = BOX_OF_KIND[kind];
    if (box) exact[box] = exact[box].plus(isSalesKind(kind) ? s.credit.minus(s.debit) : s.debit.minus(s.credit));
  }
  for (const box of BOX_FIELDS) kroner[box] = roundKroner(exact[box]);
  exact.net_vat = ACCOUNT_FIELDS.reduce((sum, f) => sum.plus(exact[f.field].times(f.sign)), zero);
  kroner.net_vat = net;
  return { exact, kroner };
}
