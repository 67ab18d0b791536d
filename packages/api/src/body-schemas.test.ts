// Coercion switches a number, boolean, bigint or date schema reachable in an input's object shape
// (through optional, nullable, default and array wrappers, into nested objects) into coercing mode for
// good, so a JSON body of {"active":"false"} would become true and null would become 0. Our REST adapter
// switches it on for query inputs only (decision 146), but a field schema shared between a query and a
// body would carry it over; so body fields stay shielded by a pipe (fields.ts: exact, integer, boolean,
// money), which coercion leaves alone. This walks every body schema the way coercion does and finds none
// exposed.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { routes } from './routes.ts';
import type { AnyProcedure } from '@trpc/server';
import { appRouter } from './root.ts';
import { boolean, integer } from '@tlr/domain/fields';

type Schema = { _zod: { def: { type: string; element?: Schema; innerType?: Schema; getter?: () => Schema; shape?: Record<string, Schema> } } };
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault']);
const COERCIBLE = new Set(['number', 'boolean', 'bigint', 'date']);

/** The fields the adapter would coerce, as paths. */
function exposed(schema: Schema, path = ''): string[] {
  return Object.entries(schema._zod.def.shape ?? {}).flatMap(([key, s]) => {
    let t = s;
    for (;;) {
      const def = t._zod.def;
      if (def.type === 'array' && def.element) t = def.element;
      else if (WRAPPERS.has(def.type) && def.innerType) t = def.innerType;
      else if (def.type === 'lazy' && def.getter) t = def.getter();
      else break;
    }
    const type = t._zod.def.type;
    if (COERCIBLE.has(type)) return [`${path}${key}`];
    return type === 'object' ? exposed(t, `${path}${key}.`) : [];
  });
}

const procedures = appRouter._def.procedures as unknown as Record<string, AnyProcedure>;

describe('body schemas', () => {
  it('the check finds an unshielded number or boolean, and passes the shielded ones', () => {
    const s = z.object({
      a: z.number().optional(),
      b: z.array(z.object({ c: z.boolean() })),
      d: integer(0, 9),
      e: boolean(),
      f: z.string(),
    }) as unknown as Schema;
    expect(exposed(s)).toEqual(['a', 'b.c']);
  });

  it("expose no field to the adapter's coercion on any endpoint that takes a body", () => {
    const withBody = routes.filter((r) => r.method !== 'GET');
    expect(withBody.length).toBeGreaterThan(5);
    for (const route of withBody) {
      const input = procedures[route.procedure]!._def.inputs[0] as Schema | undefined;
      if (!input || input._zod.def.type !== 'object') continue;
      expect(exposed(input), `${route.method} ${route.path}`).toEqual([]);
    }
  });
});
