// Reads a SAF-T Financial file as it streams (saxes): the header's currency and period, the chart,
// customers and suppliers, and each journal transaction with its lines. Memory holds one chunk's
// finished records, never the file. Namespace prefixes are ignored (the schema check ran first).
import { SaxesParser } from 'saxes';

export interface SaftHeaderIn {
  kind: 'header';
  currency: string;
  start: string;
  end: string;
}
export interface SaftAccountIn {
  kind: 'account';
  line: number;
  fields: Map<string, string>;
}
export interface SaftPartyIn {
  kind: 'customer' | 'supplier';
  line: number;
  fields: Map<string, string>;
}
export interface SaftLineIn {
  line: number;
  fields: Map<string, string>;
}
export interface SaftTransactionIn {
  kind: 'transaction';
  line: number;
  journalId: string;
  fields: Map<string, string>;
  lines: SaftLineIn[];
}
export type SaftRecord = SaftHeaderIn | SaftAccountIn | SaftPartyIn | SaftTransactionIn;

const local = (name: string) => {
  const i = name.indexOf(':');
  return i === -1 ? name : name.slice(i + 1);
};

/** The file's records in document order, a chunk's worth at a time. */
export async function* readSaft(text: AsyncIterable<string>): AsyncGenerator<SaftRecord[]> {
  const parser = new SaxesParser({ position: true });
  const path: string[] = [];
  let out: SaftRecord[] = [];
  let header: SaftHeaderIn | undefined;
  let journalId = '';
  // The record being read: its fields by path below the record element.
  let record: { fields: Map<string, string>; depth: number; line: number } | undefined;
  let txn: SaftTransactionIn | undefined;
  let line: SaftLineIn | undefined;
  let textBuf = '';

  parser.on('opentag', (tag) => {
    const name = local(tag.name);
    path.push(name);
    textBuf = '';
    const d = path.length;
    if (d === 2 && name === 'Header') header = { kind: 'header', currency: '', start: '', end: '' };
    else if (d === 4 && path[1] === 'MasterFiles' && (name === 'Account' || name === 'Customer' || name === 'Supplier'))
      record = { fields: new Map(), depth: d, line: parser.line };
    else if (d === 4 && path[2] === 'Journal' && name === 'Transaction')
      txn = { kind: 'transaction', line: parser.line, journalId, fields: new Map(), lines: [] };
    else if (d === 5 && txn && name === 'Line') line = { line: parser.line, fields: new Map() };
  });
  parser.on('text', (t) => {
    textBuf += t;
  });
  parser.on('closetag', () => {
    const d = path.length;
    const name = path[d - 1]!;
    const value = textBuf.trim();
    textBuf = '';
    if (header && path[1] === 'Header') {
      if (name === 'DefaultCurrencyCode' && d === 3) header.currency = value;
      else if (name === 'SelectionStartDate') header.start = value;
      else if (name === 'SelectionEndDate') header.end = value;
      else if (d === 2) {
        out.push(header);
        header = undefined;
      }
    } else if (record) {
      if (d === record.depth) {
        out.push({ kind: name === 'Account' ? 'account' : name === 'Customer' ? 'customer' : 'supplier', line: record.line, fields: record.fields } as
          SaftAccountIn | SaftPartyIn);
        record = undefined;
      } else if (!record.fields.has(path.slice(record.depth, d).join('/'))) record.fields.set(path.slice(record.depth, d).join('/'), value);
    } else if (line) {
      if (d === 5) {
        txn!.lines.push(line);
        line = undefined;
      } else line.fields.set(d === 6 ? name : `${path[5]}/${name}`, value);
    } else if (txn) {
      if (d === 4) {
        out.push(txn);
        txn = undefined;
      } else if (d === 5) txn.fields.set(name, value);
    } else if (d === 4 && path[2] === 'Journal' && name === 'JournalID') journalId = value;
    path.pop();
  });

  const it = text[Symbol.asyncIterator]();
  for (;;) {
    const next = await it.next();
    if (next.done) break;
    parser.write(next.value);
    if (out.length) {
      yield out;
      out = [];
    }
  }
  parser.close();
  if (out.length) yield out;
}

/** A staged file's text as it streams, decoded as UTF-8. */
export async function* utf8Text(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  for await (const b of bytes) yield decoder.decode(b, { stream: true });
  const rest = decoder.decode();
  if (rest) yield rest;
}
