// Processing of uploaded vouchers: each pending voucher's document is read (text from PDFs with unpdf,
// in a worker thread of its own under the bounds of document-bounds.ts; plain text as it is), the vendor
// found (a supplier of the company whose CVR or name occurs in it, else the first line that looks like a
// company name) and a display name derived, for search. Then the voucher is completed. A document
// without text still completes; one past a bound, or that fails every attempt, completes with nothing
// found and the reason kept (voucher_processing.failure), so no voucher stays pending for good and none
// holds the queue. Each round takes the oldest pending voucher of each company (decision 471): one
// company's many documents, or its slow one, never keep another's waiting.
import type { Readable } from 'node:stream';
import type { InTransaction } from '@tlr/db';
import { checkDate, ymd } from '../calendar.ts';
import { DOCUMENT_LIMITS, type DocumentLimits } from './document-bounds.ts';
import { DocumentRefused, documentText } from './document-text.ts';
import type { VoucherStore } from './vouchers.ts';

/** Attempts before a voucher completes with nothing extracted (storage away, the reader crashing). */
export const MAX_PROCESSING_ATTEMPTS = 3;
const MAX_TEXT = 100_000;
/** How long a worker holds a voucher it reads; past it (the worker died) another worker may take it. */
const LEASE_MS = 4 * DOCUMENT_LIMITS.timeoutMs;
/** Documents one worker reads at once, each in its own thread. */
const PARALLEL = 2;

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
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

interface Claimed {
  id: string;
  company_id: string;
  storage_key: string;
  mime_type: string;
  filename: string;
  processing_attempts: number;
}

/** Runs `each` over `items`, at most `limit` at once. */
async function eachLimited<T>(items: readonly T[], limit: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await each(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/**
 * Completes pending vouchers, a round at a time: the oldest pending voucher of each company, up to
 * `batch`, each claimed with a lease (two workers share the work, and never read one document twice at
 * once) and its attempt counted in a transaction of its own before it is read. Each is then read outside
 * any transaction and completed in one of its own: a failing document fails alone. Returns how many were
 * completed. `run` opens a transaction.
 */
export async function processPendingVouchers(run: InTransaction, store: VoucherStore, batch = 20, limits: DocumentLimits = DOCUMENT_LIMITS): Promise<number> {
  let completed = 0;
  // Each voucher at most once per run: one that failed waits for the next run (storage may be back).
  const tried: string[] = [];
  for (;;) {
    const claimed = await run(
      (tx) => tx.$queryRaw<Claimed[]>`
        WITH heads AS (
          SELECT DISTINCT ON (v.company_id) v.id, v.uploaded_at
          FROM vouchers v LEFT JOIN voucher_processing p ON p.voucher_id = v.id
          WHERE v.status = 'pending' AND NOT (v.id = ANY(${tried}::uuid[])) AND (p.voucher_id IS NULL OR p.lease_until < now())
          ORDER BY v.company_id, v.uploaded_at, v.id
        ), locked AS (
          SELECT v.id, v.company_id FROM vouchers v
          WHERE v.id IN (SELECT id FROM heads ORDER BY uploaded_at, id LIMIT ${batch}) AND v.status = 'pending'
          FOR UPDATE OF v SKIP LOCKED
        ), leased AS (
          INSERT INTO voucher_processing (voucher_id, company_id, lease_until)
          SELECT id, company_id, now() + ${LEASE_MS} * interval '1 millisecond' FROM locked
          ON CONFLICT (voucher_id) DO UPDATE SET lease_until = EXCLUDED.lease_until, updated_at = now()
            WHERE voucher_processing.lease_until < now()
          RETURNING voucher_id
        )
        UPDATE vouchers v SET processing_attempts = v.processing_attempts + 1 FROM leased WHERE v.id = leased.voucher_id
        RETURNING v.id, v.company_id, v.storage_key, v.mime_type, v.filename, v.processing_attempts`,
    );
    if (!claimed.length) return completed;
    for (const v of claimed) tried.push(v.id);
    await eachLimited(claimed, PARALLEL, async (v) => {
      if (await processOne(run, store, v, limits)) completed += 1;
    });
  }
}

/** Reads one claimed voucher and completes it; false when it is left pending for a later attempt. */
async function processOne(run: InTransaction, store: VoucherStore, v: Claimed, limits: DocumentLimits): Promise<boolean> {
  let text = '';
  let failure = '';
  if (v.processing_attempts > MAX_PROCESSING_ATTEMPTS) {
    // Claimed before, and never finished: the process reading it stopped (out of memory, killed) each time.
    failure = `the document was not read: reading it stopped ${MAX_PROCESSING_ATTEMPTS} times without an answer`;
  } else {
    try {
      text = (await documentText(await readAll(await store.get(v.storage_key)), v.mime_type, v.filename, limits)).replaceAll('\u0000', '').slice(0, MAX_TEXT);
    } catch (e) {
      if (e instanceof DocumentRefused) failure = `the document was not read: ${e.message}`;
      else if (v.processing_attempts < MAX_PROCESSING_ATTEMPTS) {
        // Retried by a later run (storage may be back): the lease ends now.
        await run((tx) => tx.$executeRaw`UPDATE voucher_processing SET lease_until = now() WHERE voucher_id = ${v.id}::uuid`);
        return false;
      } else failure = `the document was not read in ${MAX_PROCESSING_ATTEMPTS} attempts; the last: ${(e as Error).message}`.slice(0, 1000);
    }
  }
  return run(async (tx) => {
    const suppliers = await tx.supplier.findMany({ where: { company_id: v.company_id, deleted_at: null }, select: { id: true, name: true, cvr: true } });
    const vendor = findVendor(text, suppliers);
    const done = await tx.voucher.updateMany({
      where: { id: v.id, status: 'pending' },
      data: {
        status: 'completed',
        processed_at: new Date(),
        extracted_text: text,
        vendor: vendor.name,
        vendor_supplier_id: vendor.supplierId,
        display_name: displayName(vendor.name, text, v.filename),
      },
    });
    await tx.$executeRaw`UPDATE voucher_processing SET lease_until = now(), failure = ${failure}, updated_at = now() WHERE voucher_id = ${v.id}::uuid`;
    return done.count === 1;
  });
}
