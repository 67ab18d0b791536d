// The list parameters of the contract, validated strictly: a bad value is a 400 naming the parameter.
import { z } from 'zod';
import { date } from './fields.ts';

export interface ListQuerySpec {
  sort: readonly [string, ...string[]];
  defaultSort: string;
  statuses?: readonly [string, ...string[]];
  searchDescription: string;
}

export function listQuery(spec: ListQuerySpec) {
  return z.strictObject({
    // Numbers stay plain here: for query strings the adapter's coercion is what turns "2" into 2
    // (and "abc" into NaN, which is refused).
    page: z.int('must be an integer of at least 1').min(1, 'must be at least 1').default(1).meta({ description: 'Page number, from 1' }),
    per_page: z.int('must be an integer from 1 to 200').min(1, 'must be from 1 to 200').max(200, 'must be from 1 to 200').default(50),
    sort: z
      .enum(spec.sort, { error: `must be one of ${spec.sort.join(', ')}` })
      .optional()
      .meta({ description: `Sort field; default ${spec.defaultSort}` }),
    order: z.enum(['asc', 'desc'], { error: 'must be asc or desc' }).default('desc'),
    ...(spec.statuses ? { status: z.enum(spec.statuses, { error: `must be one of ${spec.statuses.join(', ')}` }).optional() } : {}),
    since: date().optional().meta({ description: 'Inclusive lower bound on the creation date (UTC day)' }),
    until: date().optional().meta({ description: 'Inclusive upper bound on the creation date (UTC day)' }),
    search: z.string().max(200).optional().meta({ description: spec.searchDescription }),
  });
}
