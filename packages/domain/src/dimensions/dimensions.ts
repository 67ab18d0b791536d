// Dimensions (afdelinger, projekter): created, read, listed and updated within the caller's company. A
// value is added and retired, never deleted: the journal lines that carry it keep it (docs/dimensions.md).
import { isUniqueViolation, type Db, type Prisma } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { listPage, type ListParams, type ListSpec, type Page } from '../lists/list.ts';
import type { DimensionInput, DimensionUpdate, DimensionView } from './schema.ts';

export const DIMENSION_LIST = {
  sort: { name: 'name', created_at: 'created_at' },
  defaultSort: 'name',
  search: ['name', 'description'],
  dateColumn: 'created_at',
  dateDescription: 'creation date',
} satisfies ListSpec;

const include = { values: { orderBy: { code: 'asc' as const } } };
type DimensionRow = Prisma.DimensionGetPayload<{ include: typeof include }>;

/** The view; `numbers` names the required accounts' ids. */
function view(row: DimensionRow, numbers: ReadonlyMap<string, string>): DimensionView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    values: row.values.map((v) => ({ code: v.code, name: v.name, retired: v.retired_at !== null, retired_at: v.retired_at?.toISOString() ?? null })),
    required_account_numbers: row.required_account_ids
      .map((id) => numbers.get(id) ?? '')
      .filter(Boolean)
      .sort(),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

async function accountNumbers(db: Db, scope: CompanyScope, rows: readonly DimensionRow[]): Promise<Map<string, string>> {
  const ids = [...new Set(rows.flatMap((r) => r.required_account_ids))];
  if (!ids.length) return new Map();
  const accounts = await db.account.findMany({ where: { company_id: scope.companyId, id: { in: ids } }, select: { id: true, account_number: true } });
  return new Map(accounts.map((a) => [a.id, a.account_number]));
}

/** The ids of the accounts numbered `numbers` in the company's chart; an unknown number is refused naming it. */
async function accountIds(db: Db, scope: CompanyScope, numbers: readonly string[]): Promise<string[]> {
  const unique = [...new Set(numbers)];
  const accounts = await db.account.findMany({
    where: { company_id: scope.companyId, account_number: { in: unique } },
    select: { id: true, account_number: true },
  });
  const byNumber = new Map(accounts.map((a) => [a.account_number, a.id]));
  return unique.map((n) => {
    const id = byNumber.get(n);
    if (!id) throw invalidRequest(`No account ${n} in the company's chart of accounts.`, `required_account_numbers[${numbers.indexOf(n)}]`);
    return id;
  });
}

const taken = (name: string) => new DomainError('conflict', `The company has a dimension named ${name} already.`, 'name');

function assertUniqueCodes(values: readonly { code: string }[]): void {
  const seen = new Set<string>();
  values.forEach((v, i) => {
    if (seen.has(v.code)) throw invalidRequest(`The code ${v.code} is given twice.`, `values[${i}].code`);
    seen.add(v.code);
  });
}

export async function createDimension(db: Db, scope: CompanyScope, input: DimensionInput): Promise<DimensionView> {
  const values = input.values ?? [];
  assertUniqueCodes(values);
  const required = await accountIds(db, scope, input.required_account_numbers ?? []);
  const id = newId();
  const row = await db.dimension
    .create({
      data: {
        id,
        company_id: scope.companyId,
        name: input.name,
        description: input.description ?? '',
        required_account_ids: required,
        values: { create: values.map((v) => ({ id: newId(), company_id: scope.companyId, code: v.code, name: v.name })) },
      },
      include,
    })
    .catch((e: unknown) => Promise.reject(isUniqueViolation(e) ? taken(input.name) : e));
  return view(row, await accountNumbers(db, scope, [row]));
}

async function current(db: Db, scope: CompanyScope, id: string): Promise<DimensionRow> {
  const row = await db.dimension.findFirst({ where: { id, company_id: scope.companyId }, include });
  if (!row) throw notFound('dimension', id);
  return row;
}

export async function getDimension(db: Db, scope: CompanyScope, id: string): Promise<DimensionView> {
  const row = await current(db, scope, id);
  return view(row, await accountNumbers(db, scope, [row]));
}

export async function listDimensions(db: Db, scope: CompanyScope, params: ListParams): Promise<Page<DimensionView>> {
  const page = await listPage(
    { findMany: (args: object) => db.dimension.findMany({ ...args, include }), count: (args: { where: object }) => db.dimension.count(args) },
    { company_id: scope.companyId },
    params,
    DIMENSION_LIST,
    (r: DimensionRow) => r,
  );
  const numbers = await accountNumbers(db, scope, page.data);
  return { ...page, data: page.data.map((r) => view(r, numbers)) };
}

export async function updateDimension(db: Db, scope: CompanyScope, id: string, input: DimensionUpdate): Promise<DimensionView> {
  // The row lock orders two updates of one dimension: each sees the values the other added.
  const [locked] = await db.$queryRaw<{ id: string }[]>`SELECT id FROM dimensions WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`;
  if (!locked) throw notFound('dimension', id);
  const row = await current(db, scope, id);
  const values = input.values ?? [];
  assertUniqueCodes(values);
  const existing = new Map(row.values.map((v) => [v.code, v]));
  const added = values.flatMap((v, i) => {
    if (existing.has(v.code)) return [];
    if (!v.name) throw invalidRequest(`The new value ${v.code} needs a name.`, `values[${i}].name`);
    return [{ id: newId(), company_id: scope.companyId, dimension_id: id, code: v.code, name: v.name, retired_at: v.retired ? new Date() : null }];
  });
  if (row.values.length + added.length > 1000) throw invalidRequest('A dimension holds at most 1000 values.', 'values');
  if (added.length) await db.dimensionValue.createMany({ data: added });
  for (const v of values) {
    const was = existing.get(v.code);
    if (!was) continue;
    const retiredAt = v.retired === undefined ? undefined : v.retired ? (was.retired_at ?? new Date()) : null;
    if ((v.name === undefined || v.name === was.name) && (retiredAt === undefined || retiredAt === was.retired_at)) continue;
    await db.dimensionValue.update({
      where: { id: was.id },
      data: { ...(v.name === undefined ? {} : { name: v.name }), ...(retiredAt === undefined ? {} : { retired_at: retiredAt }) },
    });
  }
  const required = input.required_account_numbers === undefined ? undefined : await accountIds(db, scope, input.required_account_numbers);
  const updated = await db.dimension.update({
    where: { id },
    data: {
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(required ? { required_account_ids: required } : {}),
      updated_at: new Date(),
    },
    include,
  });
  return view(updated, await accountNumbers(db, scope, [updated]));
}
