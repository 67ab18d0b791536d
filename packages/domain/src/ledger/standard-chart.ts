// The Danish standard chart of accounts (standardkontoplanen, Erhvervsstyrelsen), as published in
// Odoo's l10n_dk data (LGPL-3, prisma/seed/dk-chart), turned into the rows every new company gets
// (the VAT codes are vat/codes.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ACCOUNT_TYPES = ['asset', 'liability', 'equity', 'revenue', 'expense'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

export interface ChartAccount {
  account_number: string;
  name: string;
  type: AccountType;
  group_code: string;
  standard_account_id: string;
  default_vat_code: string;
}

export interface ChartGroup {
  /** "1010-1389": the prefix range, as the standard chart writes it. */
  code: string;
  start: string;
  end: string;
  name: string;
}

const SEED_DIR = join(import.meta.dirname, '..', '..', '..', '..', 'prisma', 'seed', 'dk-chart');

/** RFC 4180 CSV (quoted fields, doubled quotes, CRLF or LF). */
export function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  const [header, ...body] = rows;
  return body.filter((r) => r.length > 1).map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i] ?? ''])));
}

function typeOf(odooType: string): AccountType {
  if (odooType.startsWith('income')) return 'revenue';
  if (odooType.startsWith('expense')) return 'expense';
  if (odooType.startsWith('asset')) return 'asset';
  if (odooType.startsWith('liability')) return 'liability';
  if (odooType === 'equity') return 'equity';
  throw new Error(`unknown account type ${odooType}`);
}

/** Odoo's prefix rule: the account's leading characters fall between the group's start and end. */
function inGroup(accountNumber: string, g: ChartGroup): boolean {
  const prefix = accountNumber.slice(0, g.start.length);
  return prefix >= g.start && prefix <= g.end;
}

/** The most specific group (longest prefix) an account number reports under, or undefined. */
export function groupFor(accountNumber: string, groups: readonly ChartGroup[]): ChartGroup | undefined {
  return groups.filter((g) => inGroup(accountNumber, g)).sort((a, b) => b.start.length - a.start.length || b.start.localeCompare(a.start))[0];
}

// Default VAT codes by account: sales of goods and services in Denmark carry output VAT, purchases of
// goods and the usual operating expenses carry deductible input VAT.
function defaultVatCode(n: string, type: AccountType): string {
  if (n === '1010') return 'S25';
  if (n === '1050') return 'SEUV';
  if (n === '1150') return 'SEUY';
  if (type === 'expense' && ((n >= '1610' && n <= '1809') || (n >= '1830' && n <= '2829'))) return 'K25';
  return '';
}

let cached: { accounts: ChartAccount[]; groups: ChartGroup[] } | undefined;

export function standardChart(): { accounts: ChartAccount[]; groups: ChartGroup[] } {
  if (cached) return cached;
  const groups = parseCsv(readFileSync(join(SEED_DIR, 'account.group-dk.csv'), 'utf8')).map((g) => ({
    code: `${g.code_prefix_start}-${g.code_prefix_end}`,
    start: g.code_prefix_start!,
    end: g.code_prefix_end!,
    name: g['name@da']!,
  }));
  const accounts = parseCsv(readFileSync(join(SEED_DIR, 'account.account-dk.csv'), 'utf8')).map((a) => {
    const type = typeOf(a.account_type!);
    const number = a.code!;
    return {
      account_number: number,
      name: a['name@da_DK']!,
      type,
      group_code: groupFor(number, groups)?.code ?? '',
      standard_account_id: a.tag_ids!.replace('l10n_dk.account_tag_', ''),
      default_vat_code: defaultVatCode(number, type),
    };
  });
  cached = { accounts, groups };
  return cached;
}

/**
 * Accounts every company needs that this edition of the standard chart lacks: its group "Likvide
 * beholdninger" (6470-6489) has no account, yet money has to live somewhere. No StandardAccountID.
 */
const SUPPLEMENTARY: readonly Omit<ChartAccount, 'group_code'>[] = [
  { account_number: '6470', name: 'Bankkonto', type: 'asset', standard_account_id: '', default_vat_code: '' },
  { account_number: '6480', name: 'Kassebeholdning', type: 'asset', standard_account_id: '', default_vat_code: '' },
];

/** What a new company is seeded with: the standard chart plus the supplementary accounts. */
export function seedAccounts(): ChartAccount[] {
  const { accounts, groups } = standardChart();
  const extra = SUPPLEMENTARY.map((a) => ({ ...a, group_code: groupFor(a.account_number, groups)?.code ?? '' }));
  return [...accounts, ...extra].sort((a, b) => a.account_number.localeCompare(b.account_number));
}

/**
 * The type an account number implies: the most common type among the standard chart's accounts of
 * the group the number falls in (undefined outside every group).
 */
export function typeForNumber(accountNumber: string): AccountType | undefined {
  const { accounts, groups } = standardChart();
  const group = groupFor(accountNumber, groups);
  if (!group) return undefined;
  const counts = new Map<AccountType, number>();
  for (const a of accounts) if (a.group_code === group.code) counts.set(a.type, (counts.get(a.type) ?? 0) + 1);
  return [...counts].sort((x, y) => y[1] - x[1])[0]?.[0];
}
