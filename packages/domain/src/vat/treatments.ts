// Reading a company's VAT codes as treatments: the code with its VAT accounts resolved to the
// company's accounts, and the checks every document makes of a code it is given (it exists, it is
// active, it fits the document: a sales code on an invoice, a purchase code on an expense).
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest } from '../errors.ts';
import { Decimal, rateToJson } from '../money.ts';
import { listPage, type ListParams, type ListSpec, type Page } from '../lists/list.ts';
import { BOX_OF_KIND, isSalesKind, type VatKind, type VatTreatment } from './codes.ts';
import type { VatCodeView } from './schema.ts';

export interface CompanyVatCode extends VatTreatment {
  name: string;
  active: boolean;
  /** The accounts the code posts to, as the posting's view shows them. */
  accounts: Map<string, { account_number: string; name: string }>;
  /** Numbers of its VAT accounts that are missing from the chart or deactivated. */
  unusable: string[];
}

interface Row {
  code: string;
  name: string;
  kind: VatKind;
  rate: string;
  deductible_percent: string;
  active: boolean;
  account_number: string;
  offset_account_number: string;
  account_id: string | null;
  account_name: string | null;
  account_active: boolean | null;
  offset_id: string | null;
  offset_name: string | null;
  offset_active: boolean | null;
}

/** The company's codes among `codes`, with their accounts; one statement. */
export async function vatCodesOf(db: Db, scope: CompanyScope, codes: readonly string[]): Promise<Map<string, CompanyVatCode>> {
  if (codes.length === 0) return new Map();
  const rows = await db.$queryRaw<Row[]>`
    SELECT v.code, v.name, v.kind, v.rate::text AS rate, v.deductible_percent::text AS deductible_percent, v.active,
           v.account_number, v.offset_account_number,
           a.id AS account_id, a.name AS account_name, a.active AS account_active,
           o.id AS offset_id, o.name AS offset_name, o.active AS offset_active
    FROM vat_codes v
    LEFT JOIN accounts a ON a.company_id = v.company_id AND a.account_number = v.account_number
    LEFT JOIN accounts o ON o.company_id = v.company_id AND o.account_number = v.offset_account_number
    WHERE v.company_id = ${scope.companyId}::uuid AND v.code = ANY(${[...new Set(codes)]}::text[])`;
  return new Map(
    rows.map((r) => {
      const accounts = new Map<string, { account_number: string; name: string }>();
      if (r.account_id) accounts.set(r.account_id, { account_number: r.account_number, name: r.account_name! });
      if (r.offset_id) accounts.set(r.offset_id, { account_number: r.offset_account_number, name: r.offset_name! });
      const unusable = [
        [r.account_number, r.account_active],
        [r.offset_account_number, r.offset_active],
      ].flatMap(([n, active]) => (n && !active ? [n as string] : []));
      return [
        r.code,
        {
          code: r.code,
          name: r.name,
          kind: r.kind,
          rate: new Decimal(r.rate),
          deductiblePercent: new Decimal(r.deductible_percent),
          active: r.active,
          accountId: r.account_id,
          offsetAccountId: r.offset_id,
          accounts,
          unusable,
        },
      ];
    }),
  );
}

/**
 * The code `code` of the company for a document of the given side, or a refusal naming `field`: an
 * unknown or inactive code is 400, a code of the other side (a purchase code on an invoice line, a sales
 * code on an expense) is 422 vat_code_not_applicable.
 */
export function codeFor(codes: Map<string, CompanyVatCode>, code: string, side: 'sale' | 'purchase', field: string): CompanyVatCode {
  const found = codes.get(code);
  if (!found || !found.active) throw invalidRequest(`Unknown VAT code ${code}; GET /vat-codes lists the company's codes.`, field);
  if (isSalesKind(found.kind) !== (side === 'sale')) {
    throw new DomainError(
      'vat_code_not_applicable',
      `VAT code ${code} (${found.name}) is a ${side === 'sale' ? 'purchase' : 'sales'} code; ${side === 'sale' ? 'an invoice line needs a sales code such as S25' : 'an expense needs a purchase code such as K25'}.`,
      field,
    );
  }
  return found;
}

/** Throws unless the code's VAT accounts exist and are active (a posting with the code needs them). */
export function postableCode(code: CompanyVatCode, field?: string): CompanyVatCode {
  if (code.unusable.length) {
    throw new DomainError('account_inactive', `VAT code ${code.code} posts to account ${code.unusable.join(' and ')}, which is missing or deactivated.`, field);
  }
  return code;
}

export const VAT_CODE_LIST = {
  sort: { code: 'code', name: 'name', created_at: 'created_at' },
  defaultSort: 'code',
  search: ['code', 'name', 'standard_code'],
  dateColumn: 'created_at',
  dateDescription: 'creation date',
} satisfies ListSpec;

/** GET /vat-codes: the company's VAT codes (momskoder), what each does and where the return reports it. */
export function listVatCodes(db: Db, scope: CompanyScope, params: ListParams): Promise<Page<VatCodeView>> {
  return listPage(db.vatCode, { company_id: scope.companyId }, params, VAT_CODE_LIST, (v) => ({
    code: v.code,
    name: v.name,
    kind: v.kind as VatKind,
    side: isSalesKind(v.kind as VatKind) ? 'sale' : 'purchase',
    rate: rateToJson(v.rate),
    deductible_percent: rateToJson(v.deductible_percent),
    account_number: v.account_number,
    offset_account_number: v.offset_account_number,
    standard_code: v.standard_code,
    return_box: BOX_OF_KIND[v.kind as VatKind] ?? null,
    active: v.active,
  }));
}
