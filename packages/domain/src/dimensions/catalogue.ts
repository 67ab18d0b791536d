// The journal writer's dimension rule, in one place: every posting (manual, a document's, a payment's,
// an import's) names its lines' dimensions by name and value code; here they become the value ids the
// writer stores with the line, and the company's rules are checked (decisions 581, 583):
//   - an unknown dimension or value: 400 invalid_request naming the line and the dimension;
//   - a retired value on a new line: 400 dimension_value_retired (a reversal may carry it: it undoes a
//     line that had it; so may an asset's capitalisation, which moves a cost posted with it, decision 841);
//   - a line on an account on which a dimension is required, without it: 400 dimension_required
//     (reversals, closing entries and SAF-T imports are exempt: they mirror what was posted before).
import type { Db } from '@tlr/db';
import { DomainError, invalidRequest } from '../errors.ts';
import { lineField } from '../ledger/rules.ts';
import type { PostingSource } from '../ledger/journal-rows.ts';
import type { LineDimensions } from './schema.ts';

interface CatalogueDimension {
  id: string;
  name: string;
  required: ReadonlySet<string>;
  values: ReadonlyMap<string, { id: string; retired: boolean }>;
}

/** A company's dimensions as the writer checks lines against them. */
export type DimensionCatalogue = ReadonlyMap<string, CatalogueDimension>;

/** A journal line's value of one dimension, as journal_line_dimensions stores it. */
export interface LineDimensionRef {
  dimensionId: string;
  valueId: string;
}

/** The company's dimensions and values, in one query. */
export async function readCatalogue(db: Db, companyId: string): Promise<DimensionCatalogue> {
  const rows = await db.dimension.findMany({
    where: { company_id: companyId },
    select: { id: true, name: true, required_account_ids: true, values: { select: { id: true, code: true, retired_at: true } } },
  });
  return new Map(
    rows.map((d) => [
      d.name,
      {
        id: d.id,
        name: d.name,
        required: new Set(d.required_account_ids),
        values: new Map(d.values.map((v) => [v.code, { id: v.id, retired: v.retired_at !== null }])),
      },
    ]),
  );
}

/** A value of the catalogue by dimension name and code: unknown is 400 invalid_request, retired 400 dimension_value_retired unless allowed. */
function valueRef(catalogue: DimensionCatalogue, name: string, code: string, at: { where: string; field: string; retired: boolean }): LineDimensionRef {
  const dimension = catalogue.get(name);
  if (!dimension) throw invalidRequest(`${at.where}: the company has no dimension named ${name} (GET /dimensions).`, at.field);
  const value = dimension.values.get(code);
  if (!value) throw invalidRequest(`${at.where}: the dimension ${name} has no value ${code}.`, at.field);
  if (value.retired && !at.retired)
    throw new DomainError(
      'dimension_value_retired',
      `${at.where}: the value ${code} of the dimension ${name} is retired; new lines cannot carry it.`,
      at.field,
    );
  return { dimensionId: dimension.id, valueId: value.id };
}

/**
 * Checks the dimensions a document's draft names (invoice lines, an expense) as they are saved, so that a
 * mistake is answered then and not only at approval; the writer checks them again when they are posted.
 * `items`: each one's dimensions and the field that holds them (lines[0].dimensions).
 */
export async function checkDocumentDimensions(
  db: Db,
  companyId: string,
  items: readonly { dimensions?: LineDimensions | undefined; field: string }[],
): Promise<void> {
  if (!items.some((it) => it.dimensions && Object.keys(it.dimensions).length)) return;
  const catalogue = await readCatalogue(db, companyId);
  for (const it of items)
    for (const [name, code] of Object.entries(it.dimensions ?? {}))
      valueRef(catalogue, name, code, { where: it.field, field: `${it.field}.${name}`, retired: false });
}

/** Postings whose lines need not carry the required dimensions (they repeat or close what was posted). */
const EXEMPT: ReadonlySet<PostingSource> = new Set(['year_end', 'import']);
/**
 * Postings whose lines may carry a retired value besides reversals: an asset's (its capitalisation moves a
 * cost posted with the value off the expense account, decision 841; its other postings carry none).
 */
const MOVES_POSTED: ReadonlySet<PostingSource> = new Set(['asset']);

interface CheckedPosting {
  source: PostingSource;
  reversesId?: string | undefined;
  lines: readonly { accountId: string; dimensions?: LineDimensions | undefined }[];
}

/**
 * The dimension values of each line of `posting` (an empty list for a line without), checked against
 * the catalogue; `accountNumber` names a line's account in a refusal.
 */
export function lineDimensionRefs(catalogue: DimensionCatalogue, posting: CheckedPosting, accountNumber: (accountId: string) => string): LineDimensionRef[][] {
  const reversal = posting.reversesId !== undefined;
  const exempt = reversal || EXEMPT.has(posting.source);
  const retired = reversal || MOVES_POSTED.has(posting.source);
  return posting.lines.map((line, i) => {
    const refs: LineDimensionRef[] = [];
    for (const [name, code] of Object.entries(line.dimensions ?? {}))
      refs.push(valueRef(catalogue, name, code, { where: `Line ${i + 1}`, field: `${lineField(i)}.dimensions.${name}`, retired }));
    if (!exempt)
      for (const dimension of catalogue.values())
        if (dimension.required.has(line.accountId) && !line.dimensions?.[dimension.name])
          throw new DomainError(
            'dimension_required',
            `Line ${i + 1} on account ${accountNumber(line.accountId)} needs a value of the dimension ${dimension.name}: the company requires it on that account.`,
            `${lineField(i)}.dimensions.${dimension.name}`,
          );
    return refs;
  });
}

/** Whether a posting of these lines needs the catalogue: a line names a dimension, or the company requires some. */
export const needsCatalogue = (postings: readonly { lines: readonly { dimensions?: LineDimensions | undefined }[] }[], required: boolean) =>
  required || postings.some((p) => p.lines.some((l) => l.dimensions && Object.keys(l.dimensions).length > 0));
