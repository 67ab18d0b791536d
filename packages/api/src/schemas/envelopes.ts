// The contract's envelopes: { data }, { data, meta } and the delete envelope.
import { z } from 'zod';

export const single = <T extends z.ZodType>(resource: T) => z.object({ data: resource });

export const listMeta = z.object({
  page: z.int(),
  per_page: z.int(),
  total: z.int(),
  total_pages: z.int(),
});

export const list = <T extends z.ZodType>(resource: T) => z.object({ data: z.array(resource), meta: listMeta });

export const deleted = z.object({ data: z.object({ id: z.string(), deleted: z.literal(true) }) });
