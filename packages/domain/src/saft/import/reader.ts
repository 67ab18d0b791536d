// Reads a SAF-T Financial file as it streams, under the safe-XML policy (xml/reader.ts): the header's
// currency and period, the chart, customers and suppliers, the analysis types, the assets and their
// transactions, and each journal transaction with its lines.
// Memory holds one chunk's finished records, never the file. Namespace prefixes are ignored (the
// schema check ran first).
import { DomainError } from '../../errors.ts';
import { readXmlStream, XmlPaths, XmlReader, type XmlRefusal, xmlRefused } from '../../xml/reader.ts';

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
  /** The line's Analysis elements: AnalysisType and AnalysisID of each (a line may carry several). */
  analysis: { type: string; id: string }[];
}
/** MasterFiles/AnalysisTypeTable/AnalysisTypeTableEntry: a dimension value. */
export interface SaftAnalysisIn {
  kind: 'analysis';
  line: number;
  fields: Map<string, string>;
}
/** MasterFiles/Assets/Asset, or SourceDocuments/AssetTransactions/AssetTransaction: fields by path below it. */
export interface SaftAssetIn {
  kind: 'asset' | 'asset_transaction';
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
export type SaftRecord = SaftHeaderIn | SaftAccountIn | SaftPartyIn | SaftAnalysisIn | SaftAssetIn | SaftTransactionIn;

/** What a SAF-T file may weigh: 1,000,000 journal lines of our export are about 450 MB. */
export const MAX_SAFT_FILE_BYTES = 1024 * 1024 * 1024;
/** The safe-XML policy's bounds for a SAF-T file (the schema check and the import read it under the same). */
export const SAFT_XML_LIMITS = { maxBytes: MAX_SAFT_FILE_BYTES };

/** A refusal of the XML policy as the import's problem, with the file's line. */
export function saftXmlRefused(e: XmlRefusal): DomainError {
  const refused = xmlRefused(e, 'saft_file_invalid', 'The file is not XML this service reads: ');
  return new DomainError(refused.code, refused.message, refused.field, { ...refused.extensions, ...(e.problem.line ? { line: e.problem.line } : {}) });
}

/** The record each element read as a whole (its fields by path) is. */
const RECORD_KINDS: Record<string, SaftRecord['kind']> = {
  Account: 'account',
  Customer: 'customer',
  Supplier: 'supplier',
  AnalysisTypeTableEntry: 'analysis',
  Asset: 'asset',
  AssetTransaction: 'asset_transaction',
};

/** The file's records in document order, a chunk's worth at a time. */
export async function* readSaft(text: AsyncIterable<string>): AsyncGenerator<SaftRecord[]> {
  // The names of the open elements (prefixes ignored: the schema check ran first).
  const path: string[] = [];
  const out: SaftRecord[] = [];
  let header: SaftHeaderIn | undefined;
  let journalId = '';
  // The record being read: its fields by path below the record element (made once per element: XmlPaths).
  let record: { fields: Map<string, string>; depth: number; line: number } | undefined;
  const fieldPaths = new XmlPaths();
  let txn: SaftTransactionIn | undefined;
  let line: SaftLineIn | undefined;

  const reader = new XmlReader(
    {
      open: (tag) => {
        const name = tag.name;
        if (record) fieldPaths.enter(name);
        path.push(name);
        const d = tag.depth;
        if (d === 2 && name === 'Header') header = { kind: 'header', currency: '', start: '', end: '' };
        else if (
          d === 4 &&
          ((path[1] === 'MasterFiles' &&
            (name === 'Account' || name === 'Customer' || name === 'Supplier' || name === 'AnalysisTypeTableEntry' || name === 'Asset')) ||
            (path[1] === 'SourceDocuments' && name === 'AssetTransaction'))
        ) {
          record = { fields: new Map(), depth: d, line: tag.line };
          fieldPaths.reset();
        } else if (d === 4 && path[2] === 'Journal' && name === 'Transaction')
          txn = { kind: 'transaction', line: tag.line, journalId, fields: new Map(), lines: [] };
        else if (d === 5 && txn && name === 'Line') line = { line: tag.line, fields: new Map(), analysis: [] };
        else if (d === 6 && line && name === 'Analysis') line.analysis.push({ type: '', id: '' });
      },
      close: ({ name, depth: d, text }) => {
        const value = text.trim();
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
            out.push({ kind: RECORD_KINDS[name]!, line: record.line, fields: record.fields } as SaftAccountIn | SaftPartyIn | SaftAnalysisIn | SaftAssetIn);
            record = undefined;
          } else {
            const field = fieldPaths.leave()!;
            if (!record.fields.has(field)) record.fields.set(field, value);
          }
        } else if (line) {
          if (d === 5) {
            txn!.lines.push(line);
            line = undefined;
          } else if (d === 7 && path[5] === 'Analysis' && (name === 'AnalysisType' || name === 'AnalysisID')) {
            line.analysis.at(-1)![name === 'AnalysisType' ? 'type' : 'id'] = value;
          } else line.fields.set(d === 6 ? name : `${path[5]}/${name}`, value);
        } else if (txn) {
          if (d === 4) {
            out.push(txn);
            txn = undefined;
          } else if (d === 5) txn.fields.set(name, value);
        } else if (d === 4 && path[2] === 'Journal' && name === 'JournalID') journalId = value;
        path.pop();
      },
    },
    SAFT_XML_LIMITS,
    { namespaces: false },
  );

  yield* readXmlStream(reader, text, () => out.splice(0), saftXmlRefused);
}

/** A staged file's text as it streams, decoded as UTF-8. */
export async function* utf8Text(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  for await (const b of bytes) yield decoder.decode(b, { stream: true });
  const rest = decoder.decode();
  if (rest) yield rest;
}
