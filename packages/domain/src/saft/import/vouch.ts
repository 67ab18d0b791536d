// The fast path of the XSD check: a Transaction element of the plain shape most files write (no
// Analysis, no TaxInformation, no attributes, unprefixed) is matched against the schema's content model
// of Transaction and Line written out here, with narrower value spaces than the schema's (plain
// decimals, dates without a time zone). Only what it vouches for skips libxml2: anything else, valid or
// not, goes to libxml2, which gives the verdict and the words (schema-check.ts).
import { checkDate } from '../../calendar.ts';

const WS = '[ \\t\\r\\n]*';
// XML characters other than markup, or the predefined entities, at most `max` of them (the schema's maxLength).
const text = (max: number) => `(?:[^<&\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\uFFFE\\uFFFF]|&(?:amp|lt|gt|quot|apos);){0,${max}}`;
const DATE = '[1-9]\\d{3}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])';
const MONEY = '-?\\d{1,16}(?:\\.\\d{1,2})?';
const RATE = '\\d{1,10}(?:\\.\\d{1,8})?';
const el = (name: string, content: string) => `<${name}>${content}</${name}>${WS}`;
const opt = (name: string, content: string) => `(?:${el(name, content)})?`;
const amount = (side: string) =>
  `<${side}>${WS}${el('Amount', MONEY)}${el('CurrencyCode', '[A-Z]{3}')}${el('CurrencyAmount', MONEY)}${el('ExchangeRate', RATE)}</${side}>${WS}`;

const HEAD = new RegExp(
  `^<Transaction>${WS}${el('TransactionID', text(70))}${el('Period', '\\d{1,9}')}${el('PeriodYear', '(?:19[7-9]\\d|20\\d\\d|2100)')}${el('TransactionDate', DATE)}` +
    `${opt('SourceID', text(35))}${opt('TransactionType', text(18))}${el('Description', text(256))}${opt('BatchID', text(35))}` +
    `${el('SystemEntryDate', DATE)}${el('GLPostingDate', DATE)}${opt('CustomerID', text(35))}${opt('SupplierID', text(35))}(?:${el('SystemID', text(18))})+`,
  'y',
);
const LINE = new RegExp(
  `<Line>${WS}${el('RecordID', text(18))}${el('AccountID', text(70))}${opt('ValueDate', DATE)}${opt('SourceDocumentID', text(35))}` +
    `${opt('CustomerID', text(35))}${opt('SupplierID', text(35))}${el('Description', text(256))}(?:${amount('DebitAmount')}|${amount('CreditAmount')})</Line>${WS}`,
  'y',
);
const END = /<\/Transaction>$/y;
const DATES = /<(?:TransactionDate|SystemEntryDate|GLPostingDate|ValueDate)>([^<]*)</g;

/** True when `xml` (one whole Transaction element, unprefixed) is certainly valid against the schema. */
export function vouchedTransaction(xml: string): boolean {
  if (xml.includes(']]>')) return false;
  HEAD.lastIndex = 0;
  if (!HEAD.test(xml)) return false;
  let pos = HEAD.lastIndex;
  let lines = 0;
  for (;;) {
    LINE.lastIndex = pos;
    if (!LINE.test(xml)) break;
    pos = LINE.lastIndex;
    lines++;
  }
  END.lastIndex = pos;
  if (lines === 0 || !END.test(xml) || END.lastIndex !== xml.length) return false;
  // A day calendar.ts accepts (the pattern allows 2026-02-31); any other goes to libxml2 and the import's own check.
  for (const m of xml.matchAll(DATES)) if (checkDate(m[1]!)) return false;
  return true;
}
