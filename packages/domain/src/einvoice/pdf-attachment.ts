// Factur-X / ZUGFeRD: a PDF/A-3 with the invoice's CII (or UBL) XML embedded as a file attachment
// (`factur-x.xml`, `zugferd-invoice.xml`, `xrechnung.xml`). This takes the XML out of the PDF's bytes,
// pure and bounded: it renders nothing, resolves no reference outside the file, follows no link and
// loads nothing remote; it reads the embedded file streams (`/Type /EmbeddedFile`), inflates a
// FlateDecode one to at most the e-invoice limit, and keeps the first whose root is an e-invoice's. The
// XML it answers is then read like any other, under the safe-XML policy (parse.ts).
import { inflateSync } from 'node:zlib';
import { MAX_EINVOICE_BYTES } from './parse.ts';

/** The names Factur-X, ZUGFeRD (1 to 2.x) and XRechnung give the embedded invoice: preferred, in this order, to any other XML. */
const INVOICE_NAMES = ['factur-x.xml', 'zugferd-invoice.xml', 'zugferd_invoice.xml', 'xrechnung.xml'];

/** Whether the bytes start like a PDF (`%PDF-`, possibly after some bytes of junk as readers allow: within the first 1024). */
export const isPdf = (bytes: Uint8Array) => Buffer.from(bytes.subarray(0, 1024)).toString('latin1').includes('%PDF-');

/** The end of the dictionary opened at `start` (`<<`): the index after its matching `>>`, or -1. Strings are skipped. */
function dictionaryEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length - 1; i++) {
    const c = text[i];
    if (c === '(') {
      // A literal string: balanced parentheses, backslash escapes.
      let nest = 1;
      for (i++; i < text.length && nest > 0; i++) {
        if (text[i] === '\\') i++;
        else if (text[i] === '(') nest++;
        else if (text[i] === ')') nest--;
      }
      i--;
    } else if (c === '<' && text[i + 1] === '<') {
      depth++;
      i++;
    } else if (c === '>' && text[i + 1] === '>') {
      depth--;
      i++;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** A PDF literal string's text, its escapes undone (enough for a file name). */
const literal = (s: string) => s.replace(/\\([nrtbf()\\])/g, (_, c: string) => ({ n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' })[c] ?? c);

const looksLikeInvoice = (xml: string) => /<([\w.-]+:)?(CrossIndustryInvoice|Invoice|CreditNote)[\s>/]/.test(xml.slice(0, 4096));

export interface EmbeddedInvoice {
  xml: string;
  filename: string;
}

/**
 * The e-invoice XML a PDF carries, or null when it carries none (a plain PDF, or embedded files that are
 * no invoice). Throws nothing on a malformed PDF: what cannot be read is no invoice.
 */
export function embeddedInvoice(pdf: Uint8Array): EmbeddedInvoice | null {
  const text = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).toString('latin1');
  // The names the file specifications give their embedded streams: `/F (name)` or `/UF (name)` beside `/EF << /F n 0 R >>`.
  const names = new Map<string, string>();
  const found: { object: string; xml: string }[] = [];
  const objects = /(\d+)\s+(\d+)\s+obj\b/g;
  for (let m = objects.exec(text); m; m = objects.exec(text)) {
    const object = `${m[1]} ${m[2]}`;
    const open = text.indexOf('<<', m.index + m[0].length);
    // The object's dictionary comes first; anything else (a number, an array) is none of ours.
    if (open < 0 || text.slice(m.index + m[0].length, open).trim() !== '') continue;
    const close = dictionaryEnd(text, open);
    if (close < 0) break;
    const dict = text.slice(open, close);
    const reference = /\/EF\s*<<[^>]*?\/(?:UF|F)\s+(\d+\s+\d+)\s+R/.exec(dict);
    const name = /\/UF\s*\(((?:\\.|[^\\)])*)\)/.exec(dict) ?? /\/F\s*\(((?:\\.|[^\\)])*)\)/.exec(dict);
    if (reference && name) names.set(reference[1]!.replace(/\s+/, ' '), literal(name[1]!));
    if (!/\/Type\s*\/EmbeddedFile\b/.test(dict)) continue;
    const keyword = /^\s*stream\r?\n/.exec(text.slice(close, close + 64));
    if (!keyword) continue;
    const dataStart = close + keyword[0].length;
    const endstream = text.indexOf('endstream', dataStart);
    if (endstream < 0) continue;
    // The stated length when it is a number here (not a reference to another object), else up to `endstream`.
    const length = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dict);
    // (Up to `endstream`, the end-of-line before it is the keyword's, not the data's.)
    const dataEnd =
      length && dataStart + Number(length[1]) <= endstream
        ? dataStart + Number(length[1])
        : endstream - (/\r?\n$/.exec(text.slice(endstream - 2, endstream))?.[0].length ?? 0);
    let data: Buffer = Buffer.from(pdf.subarray(dataStart, dataEnd));
    const filter = /\/Filter\s*(\[\s*)?\/(\w+)/.exec(dict)?.[2];
    try {
      // An inflated stream larger than an e-invoice may be is refused by zlib before it is made.
      if (filter === 'FlateDecode') data = inflateSync(data, { maxOutputLength: MAX_EINVOICE_BYTES });
      else if (filter) continue;
    } catch {
      continue;
    }
    const xml = data.toString('utf8').replace(/^\uFEFF/, '');
    if (looksLikeInvoice(xml)) found.push({ object, xml });
    objects.lastIndex = endstream;
  }
  if (!found.length) return null;
  const named = found.map((f) => ({ ...f, filename: names.get(f.object) ?? '' }));
  const rank = (n: string) => {
    const i = INVOICE_NAMES.indexOf(n.toLowerCase());
    return i < 0 ? INVOICE_NAMES.length : i;
  };
  const best = named.sort((a, b) => rank(a.filename) - rank(b.filename))[0]!;
  return { xml: best.xml, filename: best.filename || 'factur-x.xml' };
}
