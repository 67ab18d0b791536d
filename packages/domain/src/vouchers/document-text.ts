// The text of a voucher's document, read under the bounds of document-bounds.ts: a PDF in a worker thread
// of its own (its heap bounded, stopped at the time bound, its memory gone when it ends), plain text as
// it is. A document past a bound is a DocumentRefused: final, never retried.
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { DOCUMENT_LIMITS, type DocumentLimits } from './document-bounds.ts';
import type { DocumentTextReply } from './document-text-worker.ts';

/** A document that cannot be read within the bounds: the reason says which. */
export class DocumentRefused extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'DocumentRefused';
  }
}

const WORKER = join(import.meta.dirname, 'document-text-worker.ts');

export const isPdf = (bytes: Uint8Array, mimeType: string, filename: string) =>
  mimeType === 'application/pdf' || /\.pdf$/i.test(filename) || Buffer.from(bytes.subarray(0, 5)).toString('latin1') === '%PDF-';

/** A PDF's text, read in a worker thread of its own under `limits`. */
export function pdfText(bytes: Uint8Array, limits: DocumentLimits = DOCUMENT_LIMITS): Promise<string> {
  return new Promise((resolve, reject) => {
    // No execArgv: the worker inherits the process's loader, or Node strips the types itself (decision 238).
    const worker = new Worker(WORKER, {
      workerData: { bytes, limits },
      resourceLimits: { maxOldGenerationSizeMb: limits.maxHeapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
    });
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      f();
    };
    const timer = setTimeout(() => settle(() => reject(new DocumentRefused(`reading it takes more than ${limits.timeoutMs / 1000} s`))), limits.timeoutMs);
    worker.on('message', (reply: DocumentTextReply) => settle(() => ('text' in reply ? resolve(reply.text) : reject(new DocumentRefused(reply.refused)))));
    worker.on('error', (e: NodeJS.ErrnoException) =>
      settle(() =>
        reject(
          e.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new DocumentRefused(`reading it needs more than ${limits.maxHeapMb} MB of memory`)
            : new Error(`reading the document failed: ${e.message}`, { cause: e }),
        ),
      ),
    );
    worker.on('exit', (code) => settle(() => reject(new Error(`the document reader stopped (exit code ${code})`))));
  });
}

/** The text of a document: PDF pages, or the bytes of a text file; "" for anything else. */
export async function documentText(bytes: Uint8Array, mimeType: string, filename: string, limits?: DocumentLimits): Promise<string> {
  if (isPdf(bytes, mimeType, filename)) return pdfText(bytes, limits);
  if (/^text\//i.test(mimeType) || /\.(txt|csv)$/i.test(filename)) return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  return '';
}
