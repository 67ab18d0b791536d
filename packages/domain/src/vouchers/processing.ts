// Processing of uploaded vouchers: each pending voucher's document is read (text from PDFs with unpdf;
// plain text as it is), the vendor found (a supplier of the company whose CVR or name occurs in it,
// else the first line that looks like a company name) and a display name derived, for search. Then the
// voucher is completed. A document without text still completes; one that fails every attempt
// completes with nothing found, so no voucher stays pending for good.
import type { Readable } from 'node:stream';
import type { InTransaction } from '@tlr/db';
import { checkDate, ymd } from '../calendar.ts';
import type { VoucherStore } from './vouchers.ts';

/** Attempts before a voucher completes with nothing extracted. */
const MAX_PROCESSING_ATTEMPTS = 3;
const MAX_TEXT = 100_000;

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

/** The text of a document: PDF pages, or the bytes of a text file; "" for anything else. */
async function documentText(bytes: Uint8Array, mimeType: string, filename: string): Promise<string> {
  const isPdf = mimeType === 'application/pdf' || /\.pdf$/i.test(filename) || Buffer.from(bytes.subarray(0, 5)).toString('latin1') === '%PDF-';
  if (isPdf) {
    const { extractText, getDocumentProxy } = await import('unpdf');
    // verbosity 0: pdf.js would print its warnings about malformed files to the server's stderr.
    const doc = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
    const { text } = await extractText(doc, { mergePages: true });
    return text;
  }
  if (/^text\//i.test(mimeType) || /\.(txt|csv)$/i.test(filename)) return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  return '';
}

export interface SupplierCandidate {
  id: string;
  name: string;
  cvr: string;
}

/** The vendor of a document: a supplier named by CVR, else by name, else a company-like line of it. */
function findVendor(text: string, suppliers: readonly SupplierCandidate[]): { name: string; supplierId: string | null } {
  const digits = new Set([...text.matchAll(/(?<!\d)(\d{2}\s?\d{2}\s?\d{2}\s?\d{2})(?!\d)/g)].map((m) => m[1]!.replace(/\s/g, '')));
  const byCvr = suppliers.find((s) => s.cvr && digits.has(s.cvr));
  if (byCvr) return { name: byCvr.name, supplierId: byCvr.id };
  const lower = text.toLocaleLowerCase('da');
  const byName = suppliers
    .filter((s) => s.name.trim().length >= 3 && lower.includes(s.name.trim().toLocaleLowerCase('da')))
    .sort((a, b) => b.name.length - a.name.length)[0];
  if (byName) return { name: byName.name, supplierId: byName.id };
  const line = text
    .split(/\r?\n|\s{3,}/)
    .map((l) => l.trim())
    .find((l) => /\b(ApS|A\/S|I\/S|IVS|K\/S|P\/S|AMBA|Aps|a\/s)\b/.test(l) && l.length <= 100);
  return { name: line ?? '', supplierId: null };
}

/** What the voucher is called in lists: the vendor and the document's first date, else the file's name. */
function displayName(vendor: string, text: string, filename: string): string {
  const date = /\b(\d{1,2})[.-](\d{1,2})[.-](\d{4})\b/.exec(text);
  const day = date ? ymd(Number(date[3]), Number(date[2]), Number(date[1])) : '';
  // A day the calendar refuses (31.02.2026) is no date of the document's.
  const when = day && !checkDate(day) ? day : '';
  const base = filename.replace(/\.[A-Za-z0-9]{1,10}$/, '');
  return [vendor || base, when].filter(Boolean).join(' ').slice(0, 200);
}

/**
 * Completes pending vouchers, a batch at a time, each claimed with SKIP LOCKED (two workers share the
 * work). Returns how many were completed. `run` opens a transaction.
 */
export async function processPendingVouchers(run: InTransaction, store: VoucherStore, batch = 20): Promise<number> {
  let completed = 0;
  // Each voucher at most once per run: one that failed waits for the next run (storage may be back).
  const tried: string[] = [];
  for (;;) {
    const claimed = await run(async (tx) => {
      const rows = await tx.$queryRaw<{ id: string }[]>`
        SELECT id FROM vouchers WHERE status = 'pending' AND NOT (id = ANY(${tried}::uuid[])) ORDER BY uploaded_at LIMIT ${batch} FOR UPDATE SKIP LOCKED`;
      for (const { id } of rows) {
        tried.push(id);
        const v = await tx.voucher.update({ where: { id }, data: { processing_attempts: { increment: 1 } } });
        let text = '';
        try {
          text = (await documentText(await readAll(await store.get(v.storage_key)), v.mime_type, v.filename)).replaceAll('\u0000', '').slice(0, MAX_TEXT);
        } catch {
          // Retried by the next run, until the last attempt completes it with nothing found.
          if (v.processing_attempts < MAX_PROCESSING_ATTEMPTS) continue;
        }
        const suppliers = await tx.supplier.findMany({ where: { company_id: v.company_id, deleted_at: null }, select: { id: true, name: true, cvr: true } });
        const vendor = findVendor(text, suppliers);
        await tx.voucher.update({
          where: { id },
          data: {
            status: 'completed',
            processed_at: new Date(),
            extracted_text: text,
            vendor: vendor.name,
            vendor_supplier_id: vendor.supplierId,
            display_name: displayName(vendor.name, text, v.filename),
          },
        });
        completed += 1;
      }
      return rows.length;
    });
    if (claimed < batch) return completed;
  }
}
