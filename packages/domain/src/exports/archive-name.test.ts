import { describe, expect, it } from 'vitest';
import { archiveEntryName, MAX_ENTRY_NAME_BYTES } from './leaving-archive.ts';

describe('archiveEntryName', () => {
  it('fits 255 UTF-8 bytes, cut at a character, its extension kept (255 CJK characters are 765 bytes)', () => {
    const cjk = `${'文'.repeat(255)}.pdf`;
    const name = archiveEntryName(cjk);
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(MAX_ENTRY_NAME_BYTES);
    expect(name).toBe(`${'文'.repeat(83)}.pdf`);
    // an astral character is never split, and a name that fits is kept as it is
    const astral = archiveEntryName('🍞'.repeat(100));
    expect(astral).toBe('🍞'.repeat(63));
    expect(archiveEntryName(`${'a'.repeat(251)}.pdf`)).toBe(`${'a'.repeat(251)}.pdf`);
    expect(archiveEntryName(`${'a'.repeat(252)}.pdf`)).toBe(`${'a'.repeat(251)}.pdf`);
  });
});
