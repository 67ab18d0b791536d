// The bounds of reading one voucher's document (decision 470): what its compressed streams may inflate
// to, how many pages are read, the memory and the time of the worker thread that reads it. A document
// past a bound is read for good without result (the voucher completes with nothing found, the reason
// kept); it never holds the queue nor another company's documents. Loaded by the worker thread too:
// erasable TypeScript only.
import { constants, inflateSync } from 'node:zlib';

export interface DocumentLimits {
  /** Bytes the text-bearing streams (content, fonts, object streams; not images) may inflate to: at most `inflateRatio` × the file, at least `inflateFloor`, never above `inflateCeiling`. */
  inflateRatio: number;
  inflateFloor: number;
  inflateCeiling: number;
  /** Pages whose text is read (the rest is not: the vendor and date of a voucher are on its first pages). */
  maxPages: number;
  /** The worker thread's JavaScript heap, MB. */
  maxHeapMb: number;
  /** Wall time of one document, ms. */
  timeoutMs: number;
}

const MiB = 1024 * 1024;
export const DOCUMENT_LIMITS: DocumentLimits = {
  inflateRatio: 100,
  inflateFloor: 16 * MiB,
  inflateCeiling: 128 * MiB,
  maxPages: 100,
  maxHeapMb: 256,
  timeoutMs: 30_000,
};

/** The inflation budget of a file of `size` bytes. */
export const inflateBudget = (size: number, l: DocumentLimits = DOCUMENT_LIMITS): number =>
  Math.min(l.inflateCeiling, Math.max(l.inflateFloor, size * l.inflateRatio));

/**
 * What the PDF's FlateDecode streams other than images inflate to, in bytes, each inflated with a cap of
 * what is left of `budget`; undefined as soon as they pass it (a decompression bomb). Images are left
 * out: reading text never decodes them. A stream that does not inflate is pdf.js's to judge.
 */
export function inflatedSize(pdf: Uint8Array, budget: number): number | undefined {
  const text = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).toString('latin1');
  const keyword = /stream(?:\r\n|\n|\r)/g;
  let total = 0;
  for (let m = keyword.exec(text); m; m = keyword.exec(text)) {
    const start = m.index + m[0].length;
    const head = text.slice(Math.max(0, m.index - 4096), m.index);
    const end = text.indexOf('endstream', start);
    if (end < 0) break;
    keyword.lastIndex = end + 'endstream'.length;
    // The keyword after a stream's dictionary ("<< … >> stream"), the dictionary from its object's start.
    if (!/>>\s*$/.test(head)) continue;
    const dictionary = head.slice(Math.max(0, head.lastIndexOf(' obj')));
    if (!/\/(?:FlateDecode|Fl)\b/.test(dictionary) || /\/Subtype\s*\/Image\b/.test(dictionary)) continue;
    try {
      total += inflateSync(pdf.subarray(start, end), { maxOutputLength: budget - total + 1, finishFlush: constants.Z_SYNC_FLUSH }).length;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return undefined;
    }
    if (total > budget) return undefined;
  }
  return total;
}

/** Collapses whitespace as unpdf's mergePages does: line ends and page breaks kept, at most one blank line. */
export const mergePages = (pages: string[]): string =>
  pages
    .join('\n')
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n');
