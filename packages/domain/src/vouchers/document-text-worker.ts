// A worker thread that reads one PDF's text under the bounds of document-bounds.ts, then ends: its
// memory goes with it. The caller (document-text.ts) bounds its heap and its time; this thread refuses
// a decompression bomb before pdf.js inflates anything, and reads at most maxPages pages.
import { parentPort, workerData } from 'node:worker_threads';
import { inflateBudget, inflatedSize, mergePages, type DocumentLimits } from './document-bounds.ts';

export type DocumentTextReply = { text: string } | { refused: string };

const { bytes, limits } = workerData as { bytes: Uint8Array; limits: DocumentLimits };
const port = parentPort!;

async function read(): Promise<DocumentTextReply> {
  const budget = inflateBudget(bytes.length, limits);
  if (inflatedSize(bytes, budget) === undefined) {
    return {
      refused: `its compressed streams inflate to more than ${Math.round(budget / 2 ** 20)} MB (${limits.inflateRatio} times its size, at most ${Math.round(limits.inflateCeiling / 2 ** 20)} MB)`,
    };
  }
  const { getDocumentProxy } = await import('unpdf');
  let doc;
  try {
    // verbosity 0: pdf.js would print its warnings about malformed files to the server's stderr.
    doc = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  } catch (e) {
    return { refused: `it is not a PDF that can be read: ${(e as Error).message}` };
  }
  const pages: string[] = [];
  // One page at a time: what a page holds is freed before the next is read.
  for (let n = 1; n <= Math.min(doc.numPages, limits.maxPages); n++) {
    const content = await (await doc.getPage(n)).getTextContent();
    pages.push(
      content.items
        .filter((i) => 'str' in i)
        .map((i) => ('str' in i ? i.str + (i.hasEOL ? '\n' : '') : ''))
        .join(''),
    );
  }
  return { text: mergePages(pages) };
}

port.postMessage(await read().catch((e: unknown) => ({ refused: `it is not a PDF that can be read: ${(e as Error).message}` }) satisfies DocumentTextReply));
