// The contract's envelopes: { data }, { data, meta } and the delete envelope.
import { z } from 'zod';
import { count, ordinal } from '@tlr/domain/integers';

export const single = <T extends z.ZodType>(resource: T) => z.object({ data: resource });

export const listMeta = z.object({
  page: ordinal().meta({ example: 1 }),
  per_page: z.int().min(1).max(200).meta({ example: 50 }),
  total: count().meta({ example: 123 }),
  total_pages: count().meta({ description: 'ceil(total / per_page); 0 for an empty list', example: 3 }),
});

export const list = <T extends z.ZodType>(resource: T) => z.object({ data: z.array(resource), meta: listMeta });

export const deleted = z.object({ data: z.object({ id: z.string(), deleted: z.literal(true) }) });
