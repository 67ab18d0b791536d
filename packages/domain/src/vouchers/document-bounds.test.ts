import { deflateSync } from 'node:zlib';
import PDFDocument from 'pdfkit';
import { describe, expect, it } from 'vitest';
import { DOCUMENT_LIMITS, inflateBudget, inflatedSize } from './document-bounds.ts';
import { DocumentRefused, pdfText } from './document-text.ts';

const MiB = 1024 * 1024;

/** A PDF whose one content stream inflates to `inflated` bytes of spaces (a decompression bomb when large); `image` marks it an image. */
export function bomb(inflated: number, image = false): Buffer {
  const data = deflateSync(Buffer.alloc(inflated, 0x20), { level: 9 });
  const dict = `<< /Length ${data.length} /Filter /FlateDecode${image ? ' /Type /XObject /Subtype /Image /Width 1 /Height 1' : ''} >>`;
  return Buffer.concat([
    Buffer.from(`%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n`),
    Buffer.from(`3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>\nendobj\n4 0 obj\n${dict}\nstream\n`),
    data,
    Buffer.from('\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n'),
  ]);
}

export function pdfWith(text: string, pages = 1): Promise<Buffer> {
  const doc = new PDFDocument();
  const parts: Buffer[] = [];
  doc.on('data', (b: Buffer) => parts.push(b));
  const done = new Promise<Buffer>((r) => doc.on('end', () => r(Buffer.concat(parts))));
  for (let i = 1; i <= pages; i++) {
    if (i > 1) doc.addPage();
    doc.text(`${text} ${i}`);
  }
  doc.end();
  return done;
}

describe('inflatedSize', () => {
  it('counts what the text-bearing streams inflate to, and stops at the budget: a bomb of 200 MB stops at its budget', () => {
    expect(inflateBudget(100_000)).toBe(16 * MiB);
    expect(inflateBudget(1 * MiB)).toBe(100 * MiB);
    expect(inflateBudget(14 * MiB)).toBe(128 * MiB);
    expect(inflatedSize(bomb(MiB), 16 * MiB)).toBe(MiB);
    const big = bomb(200 * MiB);
    expect(big.length).toBeLessThan(300_000);
    expect(inflatedSize(big, inflateBudget(big.length))).toBeUndefined();
    // An image is not decoded to read text: not counted.
    expect(inflatedSize(bomb(200 * MiB, true), 16 * MiB)).toBe(0);
  });
});

describe('pdfText', () => {
  it('reads a PDF in a thread of its own, at most maxPages pages', async () => {
    const pdf = await pdfWith('Faktura side', 3);
    expect(await pdfText(pdf)).toBe('Faktura side 1\nFaktura side 2\nFaktura side 3');
    expect(await pdfText(pdf, { ...DOCUMENT_LIMITS, maxPages: 2 })).toBe('Faktura side 1\nFaktura side 2');
  }, 30_000);

  it('refuses a decompression bomb, a document past the time bound, and one that is no PDF, each by its reason', async () => {
    const refusal = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: Error) => [e instanceof DocumentRefused, e.message],
      );
    expect(await refusal(pdfText(bomb(200 * MiB)))).toEqual([
      true,
      expect.stringMatching(/^its compressed streams inflate to more than 19 MB \(100 times its size, at most 128 MB\)$/),
    ]);
    expect(await refusal(pdfText(await pdfWith('x'), { ...DOCUMENT_LIMITS, timeoutMs: 1 }))).toEqual([true, 'reading it takes more than 0.001 s']);
    expect(await refusal(pdfText(Buffer.from('%PDF-1.4 not really')))).toEqual([true, expect.stringMatching(/^it is not a PDF that can be read/)]);
  }, 30_000);
});
