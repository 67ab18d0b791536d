// GET /vat-returns/{period}/lines?field=: the journal lines behind one field of a period's return, with the
// contract's list parameters.
import { Prisma, type Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { invalidRequest } from '../errors.ts';
import { fromDate } from '../calendar.ts';
import { Decimal, amountToJson } from '../money.ts';
import type { ListMeta, ListParams, ListSpec } from '../lists/list.ts';
import { ACCOUNT_FIELDS, BOX_OF_KIND, isSalesKind, VAT_ACCOUNT_NUMBERS, type VatKind, type VatReturnField } from './codes.ts';
import type { VatReturnLine } from './schema.ts';
import { companyPeriod } from './return-figures.ts';

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
