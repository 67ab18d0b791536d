import { describe, expect, it } from 'vitest';
import {
  attachmentDisposition,
  Base64StreamDecoder,
  checkFilename,
  checkMimeType,
  MAX_VOUCHER_BYTES,
  retentionUntil,
  storageKey,
  UploadRefusal,
} from './rules.ts';

/** Decodes `text` fed in pieces of `piece` characters; the bytes, or the refusal's message. */
function decode(text: string, piece = 7): Buffer | string {
  const parts: Uint8Array[] = [];
  const d = new Base64StreamDecoder((b) => parts.push(b), 'content_base64', 16);
  try {
    for (let i = 0; i < text.length; i += piece) d.push(text.slice(i, i + piece));
    const size = d.end();
    const out = Buffer.concat(parts);
    expect(out.length).toBe(size);
    return out;
  } catch (e) {
    if (e instanceof UploadRefusal) return e.message;
    throw e;
  }
}

describe('Base64StreamDecoder', () => {
  it('decodes what Buffer encodes, for every length and piece size, with the bytes in order', () => {
    for (let n = 1; n < 70; n++) {
      const bytes = Buffer.from(Array.from({ length: n }, (_, i) => (i * 37 + n) % 256));
      for (const piece of [1, 3, 4, 5, 64]) expect(decode(bytes.toString('base64'), piece)).toEqual(bytes);
    }
  });

  it('decodes long runs natively and still checks the rule at every boundary (pieces of any size)', () => {
    for (const n of [190, 191, 192, 193, 700, 4099]) {
      const bytes = Buffer.from(Array.from({ length: n }, (_, i) => (i * 131 + n) % 256));
      const text = bytes.toString('base64');
      for (const piece of [1, 5, 255, 256, 257, 1000, 100_000]) {
        expect(decode(text, piece)).toEqual(bytes);
        expect(decode(`  ${text}\n`, piece)).toEqual(bytes);
        if (text.length < 700) continue;
        expect(decode(`${text.slice(0, 400)}\n${text.slice(400)}`, piece)).toMatch(/embedded line breaks/);
        expect(decode(`${text.slice(0, 600)}-${text.slice(601)}`, piece)).toMatch(/not base64url/);
        expect(decode(`${text.slice(0, 600)}=${text.slice(601)}`, piece)).toMatch(/data after the "=" padding|padding in the wrong place/);
      }
    }
  });

  it('trims surrounding whitespace, line breaks included', () => {
    expect(decode('  \r\n\taGVq\n  ')).toEqual(Buffer.from('hej'));
  });

  it('refuses embedded line breaks and spaces', () => {
    expect(decode('aGVq\naGVq')).toMatch(/embedded line breaks are invalid/);
    expect(decode('aGVq\r\naGVq')).toMatch(/embedded line breaks are invalid/);
    expect(decode('aGVq aGVq')).toMatch(/embedded whitespace is invalid/);
  });

  it('refuses base64url, foreign characters, missing and misplaced padding, and nothing at all', () => {
    expect(decode('a-_q')).toMatch(/not base64url/);
    expect(decode('aGV*')).toMatch(/"\*" is not in the base64 alphabet/);
    expect(decode('aGVqaA')).toMatch(/multiple of 4/); // "hejh" unpadded
    expect(decode('aGVqaA==')).toEqual(Buffer.from('hejh'));
    expect(decode('aG=q')).toMatch(/data after the "=" padding/);
    expect(decode('a===')).toMatch(/padding in the wrong place/);
    expect(decode('aA==aA==')).toMatch(/data after the "=" padding/);
    expect(decode('')).toMatch(/is empty/);
    expect(decode('   ')).toMatch(/is empty/);
    expect(decode('ø')).toMatch(/not in the base64 alphabet/);
  });

  it('accepts exactly 10 MiB and refuses one byte more, as soon as it is decoded', () => {
    const limit = Buffer.alloc(MAX_VOUCHER_BYTES, 7);
    expect((decode(limit.toString('base64'), 65536) as Buffer).length).toBe(MAX_VOUCHER_BYTES);
    expect(decode(Buffer.alloc(10_000_000, 1).toString('base64'), 65536)).toHaveLength(10_000_000);
    expect(decode(Buffer.alloc(MAX_VOUCHER_BYTES + 1, 7).toString('base64'), 65536)).toMatch(/more than 10485760 bytes/);
  });
});

describe('voucher rules', () => {
  it('retains until five years after the end of the financial year of the posting', () => {
    expect(retentionUntil('2026-03-15', 1)).toBe('2031-12-31');
    expect(retentionUntil('2026-03-15', 7)).toBe('2031-06-30'); // year 2025-07-01..2026-06-30
    expect(retentionUntil('2027-02-10', 3)).toBe('2032-02-29'); // year ends 2027-02-28; 2032 is a leap year
  });

  it('names the stored object by company, voucher and the lower-cased extension', () => {
    expect(storageKey('c', 'v', 'Kvittering æøå.PDF')).toBe('c/v.pdf');
    expect(storageKey('c', 'v', 'README')).toBe('c/v');
    expect(storageKey('c', 'v', 'archive.tar.gz')).toBe('c/v.gz');
  });

  it('checks file names and MIME types', () => {
    expect(checkFilename('  ')).toMatch(/blank/);
    expect(checkFilename('a/b.pdf')).toMatch(/without a path/);
    expect(checkFilename('x'.repeat(256))).toMatch(/255/);
    expect(checkFilename('Kvittering æøå.pdf')).toBeUndefined();
    expect(checkMimeType('application/pdf')).toBeUndefined();
    expect(checkMimeType('text/plain; charset=utf-8')).toBeUndefined();
    expect(checkMimeType('pdf')).toMatch(/MIME type/);
    expect(checkMimeType('text/plain\r\nX-Evil: 1')).toMatch(/MIME type/);
  });

  it('refuses every invisible character in a file name, naming it as U+XXXX with its position (decision 178)', () => {
    expect(checkFilename('faktura\u202Efdp.exe')).toBe(
      'must not contain the invisible character U+202E (character 8): format characters such as bidirectional controls and zero-width spaces, and line or paragraph separators, can make a name read as another',
    );
    // Bidirectional controls (embeddings, overrides, isolates, marks), zero-width characters, the word joiner,
    // the byte order mark, the soft hyphen, an invisible operator, a tag character, the line and paragraph separators.
    const invisible = [
      ...[0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c],
      ...[0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x00ad, 0x2062, 0xe0041, 0x2028, 0x2029],
    ];
    for (const cp of invisible) {
      const name = `ab${String.fromCodePoint(cp)}c.pdf`;
      expect(checkFilename(name), name).toContain(`U+${cp.toString(16).toUpperCase().padStart(4, '0')} (character 3)`);
    }
    // The position counts characters, not UTF-16 units: the emoji before it is one.
    expect(checkFilename('📄 bilag\u200B.pdf')).toContain('U+200B (character 8)');
    // The first one is named.
    expect(checkFilename('a\u2066b\u202Ec.pdf')).toContain('U+2066 (character 2)');
    // C1 control characters are control characters too.
    expect(checkFilename('a\u0085b.pdf')).toMatch(/control characters/);
    // Letters of right-to-left scripts are letters, and accents are marks: accepted.
    for (const name of ['فاتورة.pdf', 'קבלה.pdf', 'Kvittering æøå.pdf', 'Cafe\u0301.pdf', 'faktura (kopi) 2026-01.PDF'])
      expect(checkFilename(name), name).toBeUndefined();
  });

  it('writes an RFC 6266 attachment header with an ASCII fallback and the exact UTF-8 name', () => {
    // æ and ø have no ASCII decomposition; å is a with a ring, which is dropped.
    expect(attachmentDisposition('Kvittering æøå.pdf')).toBe(`attachment; filename="Kvittering __a.pdf"; filename*=UTF-8''Kvittering%20%C3%A6%C3%B8%C3%A5.pdf`);
    expect(attachmentDisposition('a"b\\c.pdf')).toBe(`attachment; filename="a_b_c.pdf"; filename*=UTF-8''a%22b%5Cc.pdf`);
  });

  it('never shows an invisible or control character in the disposition of a name stored before decision 178', () => {
    expect(attachmentDisposition('faktura\u202Efdp.exe')).toBe(`attachment; filename="faktura_fdp.exe"; filename*=UTF-8''faktura_fdp.exe`);
    expect(attachmentDisposition('bilag\u200B\u2066æ\u2069\u2028.pdf')).toBe(`attachment; filename="bilag_____.pdf"; filename*=UTF-8''bilag__%C3%A6__.pdf`);
    expect(attachmentDisposition('a\u0085b\u{E0041}.pdf')).toBe(`attachment; filename="a_b_.pdf"; filename*=UTF-8''a_b_.pdf`);
  });
});
