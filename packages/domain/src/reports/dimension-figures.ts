// Reports by dimension (decision 582): the profit and loss and the trial balance filtered to lines that
// carry given dimension values (dimension[Projekt]=A) and grouped by the values of one dimension
// (group_by=dimension:Projekt). They read journal_line_dimensions alone, which repeats each tagged line's
// account, date and amounts, by its (company, value, date) or (company, dimension, date) index; the
// unfiltered figures keep reading the balance tables. Closing entries carry no dimensions, so nothing of
// them is to be taken back out here.
import { Prisma, type Db } from '@tlr/db';
import { invalidRequest } from '../errors.ts';

export interface DimensionQuery {
  /** dimension[Projekt]=A: a value code per dimension name; a line must carry all of them. */
  dimension?: Record<string, string> | undefined;
  /** group_by=dimension:Projekt */
  group_by?: string | undefined;
}

export interface ResolvedDimensions {
  /** The value ids every line must carry (empty: no filter). */
  valueIds: string[];
  /** The filter as given, for the report's answer. */
  filter: Record<string, string>;
  group?: { id: string; name: string; values: Map<string, { code: string; name: string }> } | undefined;
}

/** The dimensions of a report query as ids; an unknown name or code is 400 naming the parameter. */
export async function resolveReportDimensions(db: Db, companyId: string, q: DimensionQuery): Promise<ResolvedDimensions | undefined> {
  const filter = q.dimension ?? {};
  const names = Object.keys(filter);
  if (!names.length && !q.group_by) return undefined;
  const groupName = q.group_by?.startsWith('dimension:') ? q.group_by.slice('dimension:'.length) : undefined;
  if (q.group_by && !groupName) throw invalidRequest(`group_by takes dimension:<name>, not ${q.group_by}.`, 'group_by');
  const wanted = [...new Set([...names, ...(groupName ? [groupName] : [])])];
  const rows = await db.dimension.findMany({
    where: { company_id: companyId, name: { in: wanted } },
    select: { id: true, name: true, values: { select: { id: true, code: true, name: true } } },
  });
  const byName = new Map(rows.map((d) => [d.name, d]));
  const valueIds = names.map((name) => {
    const d = byName.get(name);
    if (!d) throw invalidRequest(`The company has no dimension named ${name}.`, `dimension[${name}]`);
    const v = d.values.find((x) => x.code === filter[name]);
    if (!v) throw invalidRequest(`The dimension ${name} has no value ${filter[name]}.`, `dimension[${name}]`);
    return v.id;
  });
  let group: ResolvedDimensions['group'];
  if (groupName) {
    const d = byName.get(groupName);
    if (!d) throw invalidRequest(`The company has no dimension named ${groupName}.`, 'group_by');
    group = { id: d.id, name: d.name, values: new Map(d.values.map((v) => [v.id, { code: v.code, name: v.name }])) };
  }
  return { valueIds, filter, group };
}

/**
 * Rows (account_id, date, debit, credit, grp) of the lines dated from..to that carry every value of
 * `valueIds`; with `groupDimensionId`, the lines that carry a value of that dimension, grp its value id
 * (else grp is null). At least one of the two is given.
 */
export function dimensionLines(companyId: string, from: string, to: string, valueIds: readonly string[], groupDimensionId?: string): Prisma.Sql {
  const [first, ...rest] = valueIds;
  const base = groupDimensionId ? Prisma.sql`j.dimension_id = ${groupDimensionId}::uuid` : Prisma.sql`j.value_id = ${first!}::uuid`;
  const others = (groupDimensionId ? valueIds : rest).map(
    (v) => Prisma.sql` AND EXISTS (SELECT 1 FROM journal_line_dimensions k WHERE k.line_id = j.line_id AND k.value_id = ${v}::uuid)`,
  );
  return Prisma.sql`
    SELECT j.account_id, j.date, j.debit, j.credit, ${groupDimensionId ? Prisma.sql`j.value_id` : Prisma.sql`NULL::uuid`} AS grp
    FROM journal_line_dimensions j
    WHERE j.company_id = ${companyId}::uuid AND ${base} AND j.date BETWEEN ${from}::date AND ${to}::date${others.length ? Prisma.join(others, '') : Prisma.empty}`;
}
