// The one list engine behind every list endpoint: page, per_page, sort, order, since, until, search
// and status, with a stable order (id as the tie-breaker) and the contract's meta block.
import { dayAfter, toDate } from '../calendar.ts';

export interface ListParams {
  page: number;
  per_page: number;
  sort?: string | undefined;
  order: 'asc' | 'desc';
  status?: string | undefined;
  /** Inclusive calendar dates (YYYY-MM-DD), read as UTC days. */
  since?: string | undefined;
  until?: string | undefined;
  search?: string | undefined;
}

export interface ListSpec {
  /** API sort field -> column. */
  sort: Record<string, string>;
  defaultSort: string;
  /** Columns searched case-insensitively by `search`. */
  search: readonly string[];
  /** The timestamp or date column since/until filter on, and how the API describes it. */
  dateColumn: string;
  dateDescription: string;
  /** Allowed status values, only for resources that have a status filter. */
  statuses?: readonly string[];
}

/** The filter of the lists of documents that have a currency (invoices, expenses). */
export interface CurrencyFilter {
  currency?: string | undefined;
}

export interface ListMeta {
  page: number;
  per_page: number;
  total: number;
  total_pages: number;
}

export interface Page<T> {
  data: T[];
  meta: ListMeta;
}

type Where = Record<string, unknown>;
/**
 * What the engine needs of a Prisma model (db.customer, db.account, ...). Its where and orderBy are
 * built from the spec's column names, which Prisma's types cannot check; typed `object`, every model
 * delegate fits as it is.
 */
export interface ListDelegate<Row> {
  findMany(args: { where: object; orderBy: object[]; skip: number; take: number }): Promise<Row[]>;
  count(args: { where: object }): Promise<number>;
}

/** The date range and search of a list call, as Prisma conditions (none when neither is given). */
function dateAndSearch(params: ListParams, spec: ListSpec): Where[] {
  const out: Where[] = [];
  if (params.since || params.until) {
    const range: Where = {};
    if (params.since) range.gte = toDate(params.since);
    if (params.until) range.lt = toDate(dayAfter(params.until));
    out.push({ [spec.dateColumn]: range });
  }
  const term = params.search?.trim();
  if (term) out.push({ OR: spec.search.map((c) => ({ [c]: { contains: term, mode: 'insensitive' } })) });
  return out;
}

/** No date range and no search: the list's total can come from kept counts (lists/kept-counts.ts); a status filter is the caller's to handle. */
export const unfiltered = (params: ListParams, spec: ListSpec): boolean => dateAndSearch(params, spec).length === 0;

/** The Prisma `where` for since/until/search/status, added to the caller's company-scoped base. */
function listWhere(base: Where, params: ListParams, spec: ListSpec): Where {
  const and: Where[] = [base, ...dateAndSearch(params, spec)];
  if (params.status) and.push({ status: params.status });
  return { AND: and };
}

function listMeta(params: ListParams, total: number): ListMeta {
  // total_pages = ceil(total / per_page): 0 for an empty list (iterate while page <= total_pages).
  return { page: params.page, per_page: params.per_page, total, total_pages: Math.ceil(total / params.per_page) };
}

export async function listPage<Row, Out>(
  delegate: ListDelegate<Row>,
  base: Where,
  params: ListParams,
  spec: ListSpec,
  view: (row: Row) => Out,
): Promise<Page<Out>> {
  const where = listWhere(base, params, spec);
  const column = spec.sort[params.sort ?? spec.defaultSort] ?? spec.sort[spec.defaultSort]!;
  const orderBy = [{ [column]: params.order }, { id: params.order }];
  const [rows, total] = await Promise.all([
    delegate.findMany({ where, orderBy, skip: (params.page - 1) * params.per_page, take: params.per_page }),
    delegate.count({ where }),
  ]);
  return { data: rows.map(view), meta: listMeta(params, total) };
}
