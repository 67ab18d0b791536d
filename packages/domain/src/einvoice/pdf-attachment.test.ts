// Taking a Factur-X / ZUGFeRD invoice's XML out of its PDF: PDFs written by pdfkit (as tlr's own invoice
// PDFs are) with the official CII example embedded, without it, and hostile ones. No database.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import PDFDocument from 'pdfkit';
import { describe, expect, it } from 'vitest';
import { embeddedInvoice, isPdf } from './pdf-attachment.ts';
import { MAX_EINVOICE_BYTES, parseEinvoice } from './parse.ts';

const REPO = join(import.meta.dirname, '..', '..', '..', '..');
const REFERENCE = [join(REPO, '..', 'shared', 'reference'), '/work/shared/reference'].find(existsSync) ?? join(REPO, '..', 'shared', 'reference');
const cii = readFileSync(join(REFERENCE, 'einvoice', 'cii', 'examples', 'CII_example3.xml'), 'utf8');

async function pdf(files: { name: string; content: string | Buffer }[], compress = true): Promise<Buffer> {
  const doc = new PDFDocument({ compress });
  const parts: Buffer[] = [];
  doc.on('data', (b: Buffer) => parts.push(b));
  const done = new Promise<void>((resolve) => doc.on('end', () => resolve()));
  doc.text('Faktura');
  for (const f of files) doc.file(Buffer.isBuffer(f.content) ? f.content : Buffer.from(f.content, 'utf8'), { name: f.name, type: 'text/xml' });
  doc.end();
  await done;
  return Buffer.concat(parts);
}

describe('embeddedInvoice', () => {
  it('finds the CII XML a Factur-X PDF carries, compressed or not, by its name before any other XML', async () => {
    for (const compress of [true, false]) {
      const found = embeddedInvoice(
        await pdf(
          [
            { name: 'notes.xml', content: '<notes/>' },
            { name: 'factur-x.xml', content: cii },
          ],
          compress,
        ),
      );
      expect(found?.filename).toBe('factur-x.xml');
      expect(found?.xml).toBe(cii.replace(/^\uFEFF/, ''));
      expect(parseEinvoice(found!.xml)).toMatchObject({ format: 'en16931-cii', number: 'TOSL108', currency: 'DKK' });
    }
    expect(embeddedInvoice(await pdf([{ name: 'invoice.xml', content: cii }]))?.filename).toBe('invoice.xml');
  });

  it('answers null for a PDF without an invoice inside, and for what is no PDF', async () => {
    const plain = await pdf([]);
    expect(isPdf(plain)).toBe(true);
    expect(embeddedInvoice(plain)).toBeNull();
    expect(embeddedInvoice(await pdf([{ name: 'notes.xml', content: '<notes><n>1</n></notes>' }]))).toBeNull();
    expect(isPdf(Buffer.from('<Invoice/>'))).toBe(false);
    expect(embeddedInvoice(Buffer.from('%PDF-1.7\n1 0 obj << /Type /EmbeddedFile /Filter /FlateDecode >>\nstream\nnot deflate\nendstream'))).toBeNull();
  });

  it("stops an embedded stream that inflates beyond an e-invoice's size (a deflate bomb) without reading it", () => {
    const bomb = deflateSync(Buffer.alloc(MAX_EINVOICE_BYTES + 1024, 0x20));
    const file = Buffer.concat([
      Buffer.from(`%PDF-1.7\n4 0 obj\n<< /Type /EmbeddedFile /Filter /FlateDecode /Length ${bomb.length} >>\nstream\n`, 'latin1'),
      bomb,
      Buffer.from('\nendstream\nendobj\n%%EOF\n', 'latin1'),
    ]);
    expect(embeddedInvoice(file)).toBeNull();
  });
});
