// The XSD check of an imported SAF-T file, in bounded memory, after the safe-XML policy (xml/reader.ts)
// has read each chunk. libxml2 (xmllint-wasm) validates a whole document held in memory, so the file is
// cut as it streams: the journal's Transaction elements go in batches of a few MB, each validated inside
// a minimal valid AuditFile, and the rest (header, master files, source documents: the skeleton) is
// validated once at the end. The schema's keyrefs select nothing (unprefixed XPaths), so no check spans
// two pieces. Line numbers are mapped back to the file's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memoryPages, validateXML } from 'xmllint-wasm';
import { DomainError } from '../../errors.ts';
import { XmlReader, XmlRefusal } from '../../xml/reader.ts';
import { SAFT_XML_LIMITS, saftXmlRefused } from './reader.ts';
import { vouchedTransaction } from './vouch.ts';

export const SAFT_NAMESPACE = 'urn:StandardAuditFile-Taxation-Financial:DK';
const XSD = readFileSync(join(import.meta.dirname, '..', '..', '..', '..', '..', 'prisma', 'seed', 'saft', 'Danish_SAF-T_Financial_Schema.xsd'), 'utf8');

/** Characters of Transaction elements validated per libxml2 call. */
export const BATCH_CHARS = 8 * 1024 * 1024;

/**
 * Characters of the rest of the file (header, master files, source documents: the skeleton), which
 * libxml2 validates whole at the end, at about 25 times its size in memory: 32 MiB holds some 50,000
 * customers, suppliers and accounts (decision 466).
 */
export const MAX_SKELETON_CHARS = 32 * 1024 * 1024;

/** A file refused by name: the element and the line, as `field` and the problem's `line`. */
export function saftInvalid(line: number | null, element: string, message: string): DomainError {
  return new DomainError(
    'saft_file_invalid',
    `${line ? `Line ${line}` : 'The file'}${element ? `, ${element}` : ''}: ${message}`.slice(0, 2000),
    element || 'body',
    line ? { line } : {},
  );
}

// A document that is valid with any Transaction elements put in its Journal.
const HEADER =
  '<Header><AuditFileVersion>1.0</AuditFileVersion><AuditFileCountry>DK</AuditFileCountry><AuditFileDateCreated>2000-01-01</AuditFileDateCreated>' +
  '<SoftwareCompanyName>x</SoftwareCompanyName><SoftwareID>x</SoftwareID><SoftwareVersion>x</SoftwareVersion><Company><RegistrationNumber>x</RegistrationNumber><Name>x</Name>' +
  '<Address><StreetName></StreetName><City></City><PostalCode></PostalCode><Country>DK</Country></Address><BankAccount><IBANNumber></IBANNumber></BankAccount></Company>' +
  '<DefaultCurrencyCode>DKK</DefaultCurrencyCode><SelectionCriteria><SelectionStartDate>2000-01-01</SelectionStartDate><SelectionEndDate>2000-12-31</SelectionEndDate></SelectionCriteria>' +
  '<TaxEntity>x</TaxEntity></Header>';
const MASTER_FILES =
  '<MasterFiles><GeneralLedgerAccounts><NameOfStandardAccount>Standardkontoplanen</NameOfStandardAccount><VersionOfStandardAccount>20230131</VersionOfStandardAccount><Account><AccountID>x</AccountID><AccountDescription>x</AccountDescription>' +
  '<AccountType>Asset</AccountType><AccountCreationDate>2000-01-01</AccountCreationDate><OpeningDebitBalance>0</OpeningDebitBalance><ClosingDebitBalance>0</ClosingDebitBalance></Account></GeneralLedgerAccounts>' +
  '<TaxTable><TaxTableEntry><TaxType>VAT</TaxType><Description>VAT</Description><TaxCodeDetails><TaxCode>x</TaxCode><EffectiveDate>2000-01-01</EffectiveDate><Description>x</Description><TaxPercentage>25</TaxPercentage><Country>DK</Country></TaxCodeDetails></TaxTableEntry></TaxTable></MasterFiles>';
const JOURNAL_OPEN =
  '<GeneralLedgerEntries><NumberOfEntries>0</NumberOfEntries><TotalDebit>0</TotalDebit><TotalCredit>0</TotalCredit><Journal><JournalID>x</JournalID><Description>x</Description><Type>GL</Type>';
const JOURNAL_CLOSE = '</Journal></GeneralLedgerEntries></AuditFile>';

interface Found {
  line: number;
  element: string;
  message: string;
}

/** libxml2's first error in `xml`, its line as libxml2 counts it (from 1), or undefined when valid. */
async function firstError(xml: string): Promise<Found | undefined> {
  const result = await validateXML({
    xml: [{ fileName: 'saft.xml', contents: xml }],
    schema: [{ fileName: 'saft.xsd', contents: XSD }],
    initialMemoryPages: 16 * memoryPages.MiB,
    maxMemoryPages: 2 * memoryPages.GiB,
  });
  if (result.valid) return undefined;
  const e = result.errors[0];
  const raw = e?.rawMessage ?? 'not valid against the SAF-T schema';
  const element = /Element '(?:\{[^}]*\})?([^']+)'/.exec(raw)?.[1] ?? '';
  const message = raw.replace(/^[^:]*:\d+:\s*/, '').trim();
  return { line: e?.loc?.lineNumber ?? Number(/:(\d+):/.exec(raw)?.[1] ?? 1), element, message };
}

/** A valid Transaction element on one line, with the file's prefix. */
const placeholder = (p: string) => {
  const e = (name: string, content: string) => `<${p}${name}>${content}</${p}${name}>`;
  const amount = e('Amount', '0') + e('CurrencyCode', 'DKK') + e('CurrencyAmount', '0') + e('ExchangeRate', '1');
  const line = e('Line', e('RecordID', '1') + e('AccountID', 'x') + e('Description', 'x') + e('DebitAmount', amount));
  return e(
    'Transaction',
    e('TransactionID', '0') +
      e('Period', '1') +
      e('PeriodYear', '2000') +
      e('TransactionDate', '2000-01-01') +
      e('Description', 'x') +
      e('SystemEntryDate', '2000-01-01') +
      e('GLPostingDate', '2000-01-01') +
      e('SystemID', '0') +
      line,
  );
};

const countLines = (s: string) => {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
};

const OPEN = /<([A-Za-z_][\w.-]*:)?Transaction(?=[\s>/])/g;

/** Where markup is not: a comment, a CDATA section, a processing instruction, each with its end. */
const NOT_MARKUP = /<!--|<!\[CDATA\[|<\?/g;
const NOT_MARKUP_END: Record<string, string> = { '<!--': '-->', '<![CDATA[': ']]>', '<?': '?>' };

/**
 * Where NOT_MARKUP next matches in the text being cut: found once from `from` on and reused for every
 * later position up to it, while the text is the same (`from` -1: nothing known). A file has a comment
 * or a CDATA section in its header at most, so a search from each Transaction would otherwise run to
 * the end of the text every time: quadratic in the chunk, most of the check's time.
 */
interface NextNotMarkup {
  from: number;
  at: RegExpExecArray | null;
}

/**
 * The first match of `re` at or after `pos` in markup, never inside a comment, a CDATA section or a
 * processing instruction (a tag's text there is text, as XML reads it); `held` where one begins that
 * this text does not end (the next chunk tells). The policy reader bounds each of them (a piece).
 */
function findInMarkup(buf: string, pos: number, re: RegExp, next: NextNotMarkup): { m: RegExpExecArray } | { held: number } | undefined {
  for (;;) {
    re.lastIndex = pos;
    const m = re.exec(buf);
    if (next.from < 0 || pos < next.from || (next.at && pos > next.at.index)) {
      NOT_MARKUP.lastIndex = pos;
      next.from = pos;
      next.at = NOT_MARKUP.exec(buf);
    }
    const other = next.at;
    if (!other || (m && m.index < other.index)) return m ? { m } : undefined;
    const closer = NOT_MARKUP_END[other[0]]!;
    const end = buf.indexOf(closer, other.index + other[0].length);
    if (end < 0) return { held: other.index };
    pos = end + closer.length;
  }
}

/**
 * Checks the file (its text, as it streams) against the Danish SAF-T Financial XSD; throws
 * saft_file_invalid naming the element and line of the first error found. `progress` gets the
 * characters read so far.
 */
export async function checkSaftSchema(text: AsyncIterable<string>, progress?: (chars: number) => Promise<void> | void): Promise<void> {
  const skeleton: string[] = [];
  let skeletonChars = 0;
  // Where the skeleton resumes after removed transactions: [skeleton line, file line], ascending.
  const lineMap: [number, number][] = [[1, 1]];
  let skeletonLine = 1;
  let fileLine = 1;
  let rootAttributes: string | undefined;
  let batch: string[] = [];
  let batchChars = 0;
  let batchLine = 0;
  let batchEnd = 0;
  // Whitespace right after a transaction is dropped with it (its lines still count): the skeleton's
  // line map then needs one entry per run of transactions, not one per transaction.
  let afterTransaction = false;
  // Namespace declarations of the default namespace seen so far: the fast path (vouch.ts) reads
  // unprefixed elements as SAF-T's, which holds while the root's is the only one.
  let defaultNamespaces = 0;
  let unprefixedRoot = false;
  let close: { re: RegExp; line: number } | undefined;
  let buf = '';
  let read = 0;
  const next: NextNotMarkup = { from: -1, at: null };

  const resume = () => {
    const last = lineMap.at(-1)!;
    if (last[0] === skeletonLine) last[1] = fileLine;
    else lineMap.push([skeletonLine, fileLine]);
  };
  const addSkeleton = (s: string) => {
    if (afterTransaction && /^\s*$/.test(s)) {
      fileLine += countLines(s);
      return;
    }
    if (afterTransaction) resume();
    afterTransaction = false;
    defaultNamespaces += s.match(/\sxmlns\s*=/g)?.length ?? 0;
    skeletonChars += s.length;
    if (skeletonChars > MAX_SKELETON_CHARS) {
      throw saftInvalid(
        fileLine,
        'MasterFiles',
        `the file apart from its journal's transactions (header, master files, source documents) is larger than ${MAX_SKELETON_CHARS / 2 ** 20} MB, the most this service checks against the schema`,
      );
    }
    skeleton.push(s);
    const n = countLines(s);
    skeletonLine += n;
    fileLine += n;
  };
  const flushBatch = async () => {
    if (!batch.length) return;
    const attributes = rootAttributes ?? '';
    const start = `<AuditFile${/\sxmlns\s*=/.test(attributes) ? '' : ` xmlns="${SAFT_NAMESPACE}"`}${attributes}>`;
    const found = await firstError(`<?xml version="1.0" encoding="UTF-8"?>${start}${HEADER}${MASTER_FILES}${JOURNAL_OPEN}${batch.join('')}${JOURNAL_CLOSE}`);
    if (found) throw saftInvalid(batchLine + found.line - 1, found.element, found.message);
    batch = [];
    batchChars = 0;
  };

  // The safe-XML policy reads every chunk before any piece of it reaches libxml2: a DOCTYPE, an entity,
  // a control character, nesting or a text beyond the bounds is refused by name, and libxml2 never
  // sees a document type (it would read an external DTD, and expand entities).
  const policy = new XmlReader({}, SAFT_XML_LIMITS, { namespaces: false });
  const checked = (chunk?: string) => {
    try {
      if (chunk === undefined) policy.close();
      else policy.write(chunk);
    } catch (e) {
      throw e instanceof XmlRefusal ? saftXmlRefused(e) : e;
    }
  };

  for await (const chunk of text) {
    checked(chunk);
    buf += chunk;
    next.from = -1;
    read += chunk.length;
    let pos = 0;
    for (;;) {
      if (close) {
        const found = findInMarkup(buf, pos, close.re, next);
        if (!found || 'held' in found) break;
        const m = found.m;
        const end = m.index + m[0].length;
        const element = buf.slice(pos, end);
        if (unprefixedRoot && defaultNamespaces === 1 && vouchedTransaction(element)) {
          fileLine += countLines(element);
          pos = end;
          close = undefined;
          afterTransaction = true;
          continue;
        }
        if (!batch.length) batchLine = fileLine;
        // Line breaks between a batch's elements are kept, so that libxml2's line numbers stay the file's.
        else if (fileLine > batchEnd) batch.push('\n'.repeat(fileLine - batchEnd));
        batch.push(element);
        batchChars += element.length;
        fileLine += countLines(element);
        batchEnd = fileLine;
        pos = end;
        close = undefined;
        afterTransaction = true;
        if (batchChars >= BATCH_CHARS) await flushBatch();
        continue;
      }
      const found = findInMarkup(buf, pos, OPEN, next);
      if (found && 'held' in found) {
        addSkeleton(buf.slice(pos, found.held));
        pos = found.held;
        break;
      }
      const m = found?.m;
      if (!m) {
        // Up to a tag start the chunk's end may have cut, the text is skeleton.
        const lt = buf.lastIndexOf('<');
        const until = lt < pos ? buf.length : lt;
        addSkeleton(buf.slice(pos, until));
        pos = until;
        break;
      }
      addSkeleton(buf.slice(pos, m.index));
      if (rootAttributes === undefined) {
        const root = /<([\w.-]+:)?AuditFile\b([^>]*)>/.exec(skeleton.join(''));
        rootAttributes = root?.[2]?.replace(/\s+/g, ' ') ?? '';
        unprefixedRoot = Boolean(root) && !root![1];
      }
      // A run of transactions leaves one valid Transaction in its place: the skeleton's check then
      // says whether transactions may stand there at all.
      if (!afterTransaction) skeleton.push(placeholder(m[1] ?? ''));
      close = { re: new RegExp(`</${(m[1] ?? '').replace(/\./g, '\\.')}Transaction\\s*>`, 'g'), line: fileLine };
      pos = m.index;
    }
    buf = buf.slice(pos);
    await progress?.(read);
  }
  checked();
  if (close) throw saftInvalid(close.line, 'Transaction', 'the element is not closed before the end of the file');
  await flushBatch();
  addSkeleton(buf);
  const found = await firstError(skeleton.join(''));
  if (found) {
    // The last resumption at or before the error's skeleton line gives the offset to the file's line.
    let at = lineMap[0]!;
    for (const pair of lineMap) if (pair[0] <= found.line) at = pair;
    throw saftInvalid(at[1] + (found.line - at[0]), found.element, found.message);
  }
}
