// The list parameters of the contract, validated strictly: a bad value is a 400 naming the parameter.
// The sort fields, the default sort and the statuses come from the resource's list spec in the domain
// (the one declaration the list engine also reads).
import { z } from 'zod';
import type { ListSpec } from '@tlr/domain';
import { currency, date } from '@tlr/domain/fields';
import { INT32_MAX } from '@tlr/domain/integers';

export function listQuery(spec: ListSpec, searchDescription: string) {
  const sortFields = Object.keys(spec.sort) as [string, ...string[]];
  return z.strictObject({
    // Numbers stay plain here: for query strings the adapter's coercion is what turns "2" into 2
    // (and "abc" into NaN, which is refused).
    page: z
      .int(`must be an integer from 1 to ${INT32_MAX}`)
      .min(1, `must be from 1 to ${INT32_MAX}`)
      .max(INT32_MAX, `must be from 1 to ${INT32_MAX}`)
      .default(1)
      .meta({ description: 'Page number, from 1; past total_pages the page is empty' }),
    per_page: z.int('must be an integer from 1 to 200').min(1, 'must be from 1 to 200').max(200, 'must be from 1 to 200').default(50),
    sort: z
      .enum(sortFields, { error: `must be one of ${sortFields.join(', ')}` })
      .optional()
      .meta({ description: `Sort field; default ${spec.defaultSort}` }),
    order: z.enum(['asc', 'desc'], { error: 'must be asc or desc' }).default('desc'),
    ...(spec.statuses ? { status: z.enum(spec.statuses as [string, ...string[]], { error: `must be one of ${spec.statuses.join(', ')}` }).optional() } : {}),
    since: date()
      .optional()
      .meta({ description: `Inclusive lower bound on the ${spec.dateDescription} (UTC day)` }),
    until: date()
      .optional()
      .meta({ description: `Inclusive upper bound on the ${spec.dateDescription} (UTC day)` }),
    search: z.string().max(200).optional().meta({ description: searchDescription }),
  });
}

/** The currency filter of the lists whose items have a currency (invoices, expenses, exchange rates). */
export const currencyFilter = z.strictObject({ currency: currency().optional().meta({ description: 'Only this currency (ISO 4217)' }) });
