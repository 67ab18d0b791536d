import { describe, expect, it } from 'vitest';
import { isUuid, newId } from './ids.ts';

describe('newId', () => {
  it('mints distinct version 7 UUIDs across many refills of the random pool', () => {
    const ids = Array.from({ length: 2000 }, () => newId(1_764_000_000_000));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(isUuid(id)).toBe(true);
      expect(id[14]).toBe('7');
      expect('89ab').toContain(id[19]);
      // The first 48 bits are the time in milliseconds.
      expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(1_764_000_000_000);
    }
    // Nor does the random tail alone repeat, as it would if a slice of the pool were handed out twice.
    const tails = new Set(ids.map((id) => id.slice(24)));
    expect(tails.size).toBe(ids.length);
  });

  it('sorts by creation time', () => {
    expect(newId(1_000) < newId(2_000)).toBe(true);
  });
});
