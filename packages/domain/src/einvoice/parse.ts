// Reading a received e-invoice, pure: Peppol BIS Billing 3.0 and OIOUBL 2.1 `Invoice` and `CreditNote`
// (both UBL) into what the books need: the supplier, the document's number, dates, currency, totals, VAT
// breakdown and embedded attachments. Hostile XML never reaches the parser: a document type declaration
// (the door of XXE and of entity expansion such as billion laughs) is refused, as are bodies over the
// voucher limit, another root element and another namespace. Nothing is fetched and no entity expanded.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { invalidRequest } from '../errors.ts';
import { Decimal } from '../money.ts';
import type { EinvoiceFormat } from './schema.ts';

/** As for vouchers: 10 MB. */
export const MAX_EINVOICE_BYTES = 10 * 1024 * 1024;

const ROOTS = {
  Invoice: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
  CreditNote: 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2',
} as const;
const PEPPOL_BIS3 = 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0';

export interface InboundParty {
  name: string;
  /** `<scheme>:<id>` of its EndpointID; '' when absent. */
  endpoint: string;
  /** A Danish CVR number found on the party (legal entity 0184, a DK VAT number, or a DK:CVR id); ''. */
  cvr: string;
  vatNumber: string;
  country: string;
}

export interface InboundDocument {
  format: EinvoiceFormat;
  kind: 'invoice' | 'credit_note';
  number: string;
  uuid: string;
  issueDate: string;
  dueDate: string;
  currency: string;
  supplier: InboundParty;
  buyer: InboundParty;
  /** Totals in the document's currency (LegalMonetaryTotal and the TaxTotal in it). */
  net: Decimal;
  vat: Decimal;
  /** Net + VAT (TaxInclusiveAmount). */
  gross: Decimal;
  /** What is left to pay: gross less anything prepaid (PayableAmount). */
  payable: Decimal;
  /** The VAT in DKK when the document states it (TaxCurrencyCode DKK). */
  vatDkk: Decimal | null;
  breakdown: { category: string; rate: Decimal; taxable: Decimal; tax: Decimal }[];
  attachments: { filename: string; mimeType: string; content: Buffer }[];
  lineCount: number;
}

type Node = Record<string, unknown>;

const REPEATED = new Set([
  'InvoiceLine',
  'CreditNoteLine',
  'TaxTotal',
  'TaxSubtotal',
  'AdditionalDocumentReference',
  'PartyIdentification',
  'PartyTaxScheme',
  'Note',
]);
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  // Entities are never expanded (there can be no declarations: a DOCTYPE is refused before parsing).
  processEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  trimValues: true,
  isArray: (name) => REPEATED.has(name),
});

const refuse = (why: string) => invalidRequest(`Not an e-invoice this service takes: ${why}.`);

/** The text of an element that may carry attributes (then its text is under #text). */
function text(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'object') return text((v as Node)['#text']);
  return String(v);
}
const child = (n: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((cur, key) => (cur && typeof cur === 'object' ? (cur as Node)[key] : undefined), n);
const first = (v: unknown): unknown => (Array.isArray(v) ? v[0] : v);
const list = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

function amount(v: unknown, what: string): Decimal {
  const t = text(v);
  if (!/^-?\d+(\.\d+)?$/.test(t)) throw refuse(`${what} "${t}" is not an amount`);
  return new Decimal(t);
}

/** OIOUBL names its identifier schemes; Peppol numbers them (ISO 6523 ICD): the same ids, in Peppol's words. */
const OIOUBL_SCHEMES: Record<string, string> = { GLN: '0088', EAN: '0088', 'DK:CVR': '0184', 'DK:SE': '0198' };

function party(p: unknown): InboundParty {
  const endpointNode = child(p, 'EndpointID');
  const endpointId = text(endpointNode);
  const named = endpointNode && typeof endpointNode === 'object' ? text((endpointNode as Node)['@schemeID']) : '';
  const scheme = OIOUBL_SCHEMES[named] ?? named;
  const taxIds = list(child(p, 'PartyTaxScheme')).map((t) => text(child(t, 'CompanyID')));
  const vatNumber = taxIds.find((id) => /^[A-Z]{2}/.test(id)) ?? '';
  const legal = child(p, 'PartyLegalEntity', 'CompanyID');
  const legalScheme = legal && typeof legal === 'object' ? text((legal as Node)['@schemeID']) : '';
  const ids = [
    ...(legalScheme === '0184' || legalScheme === 'DK:CVR' ? [text(legal)] : []),
    ...(vatNumber.startsWith('DK') ? [vatNumber.slice(2)] : []),
    ...(scheme === '0184' ? [endpointId] : []),
  ];
  return {
    name: text(child(p, 'PartyLegalEntity', 'RegistrationName')) || text(child(p, 'PartyName', 'Name')),
    endpoint: endpointId && scheme ? `${scheme}:${endpointId}` : '',
    cvr: ids.map((id) => id.replace(/\D/g, '')).find((id) => /^\d{8}$/.test(id)) ?? '',
    vatNumber,
    country: text(child(p, 'PostalAddress', 'Country', 'IdentificationCode')),
  };
}

/** The namespace of the root element, from its start tag (the parser drops namespace declarations). */
function rootNamespace(xml: string): string {
  const start = /<([A-Za-z_][\w.-]*:)?[A-Za-z_][\w.-]*(\s[^>]*)?>/.exec(xml.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->/g, ''));
  if (!start) return '';
  const prefix = start[1] ? `:${start[1].slice(0, -1)}` : '';
  const declared = new RegExp(`\\sxmlns${prefix}\\s*=\\s*(["'])(.*?)\\1`).exec(start[2] ?? '');
  return declared?.[2] ?? '';
}

/**
 * Parses a received document. Refuses (400 invalid_request, naming what is wrong) an oversize body, a
 * DOCTYPE, XML that is not well-formed, a root other than UBL Invoice or CreditNote in their namespace,
 * and a document that is neither Peppol BIS Billing 3.0 nor OIOUBL.
 */
export function parseEinvoice(xml: string): InboundDocument {
  if (Buffer.byteLength(xml, 'utf8') > MAX_EINVOICE_BYTES) throw refuse(`the document is larger than ${MAX_EINVOICE_BYTES / 1024 / 1024} MB`);
  const body = xml.replace(/^\uFEFF/, '');
  // XML 1.0 allows no NUL nor most control characters, which the parser here lets through and
  // PostgreSQL's text refuses: a document carrying one is not XML.
  // eslint-disable-next-line no-control-regex -- these are exactly the characters refused
  const forbidden = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/.exec(body);
  if (forbidden)
    throw refuse(`it contains the character U+${forbidden[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}, which XML does not allow`);
  if (/<!DOCTYPE|<!ENTITY/i.test(body))
    throw refuse('it declares a document type (DOCTYPE or ENTITY), which is refused: entities are never expanded nor fetched');
  const wellFormed = XMLValidator.validate(body);
  if (wellFormed !== true) throw refuse(`line ${wellFormed.err.line}, column ${wellFormed.err.col}: ${wellFormed.err.msg}`);
  const parsed = parser.parse(body) as Node;
  const roots = Object.keys(parsed).filter((k) => !k.startsWith('?'));
  const rootName = roots[0] as keyof typeof ROOTS | undefined;
  if (roots.length !== 1 || !rootName || !(rootName in ROOTS)) throw refuse(`the root element is <${roots.join('>, <')}>, not <Invoice> or <CreditNote>`);
  const root = parsed[rootName] as Node;
  const ns = rootNamespace(body);
  if (ns !== ROOTS[rootName]) throw refuse(`<${rootName}> is in the namespace "${ns}", not ${ROOTS[rootName]}`);
  const customization = text(root.CustomizationID);
  const format: EinvoiceFormat | undefined = customization === PEPPOL_BIS3 ? 'peppol-bis3' : /^OIOUBL-2\.0[12]$/.test(customization) ? 'oioubl-2.1' : undefined;
  if (!format) throw refuse(`CustomizationID "${customization}" is neither Peppol BIS Billing 3.0 (${PEPPOL_BIS3}) nor OIOUBL 2.1 (OIOUBL-2.01, OIOUBL-2.02)`);
  const credit = rootName === 'CreditNote';
  const currency = text(root.DocumentCurrencyCode);
  const taxTotals = list(root.TaxTotal);
  const inCurrency = (code: string) => taxTotals.find((t) => text(child(child(t, 'TaxAmount'), '@currencyID')) === code);
  const totals = root.LegalMonetaryTotal;
  const main = inCurrency(currency) ?? taxTotals[0];
  const dkk = currency !== 'DKK' ? inCurrency('DKK') : undefined;
  const number = text(root.ID);
  const issueDate = text(root.IssueDate);
  if (!number) throw refuse('it has no ID (the document number)');
  if (!/^\d{4}-\d{2}-\d{2}$/.test(issueDate)) throw refuse(`IssueDate "${issueDate}" is not a date`);
  return {
    format,
    kind: credit ? 'credit_note' : 'invoice',
    number,
    uuid: text(root.UUID),
    issueDate,
    dueDate: text(root.DueDate) || text(child(first(root.PaymentMeans), 'PaymentDueDate')) || issueDate,
    currency,
    supplier: party(child(root, 'AccountingSupplierParty', 'Party')),
    buyer: party(child(root, 'AccountingCustomerParty', 'Party')),
    net: amount(child(totals, 'TaxExclusiveAmount'), 'TaxExclusiveAmount'),
    vat: main ? amount(child(main, 'TaxAmount'), 'TaxAmount') : new Decimal(0),
    gross: amount(child(totals, 'TaxInclusiveAmount'), 'TaxInclusiveAmount'),
    payable: amount(child(totals, 'PayableAmount'), 'PayableAmount'),
    vatDkk: dkk ? amount(child(dkk, 'TaxAmount'), 'TaxAmount') : null,
    breakdown: list(child(main, 'TaxSubtotal')).map((s) => ({
      category: text(child(s, 'TaxCategory', 'ID')),
      rate: new Decimal(text(child(s, 'TaxCategory', 'Percent')) || '0'),
      taxable: amount(child(s, 'TaxableAmount'), 'TaxableAmount'),
      tax: amount(child(s, 'TaxAmount'), 'TaxAmount'),
    })),
    attachments: list(root.AdditionalDocumentReference).flatMap((ref) => {
      const object = child(ref, 'Attachment', 'EmbeddedDocumentBinaryObject');
      if (!object) return [];
      const node = (typeof object === 'object' ? object : {}) as Node;
      return [
        {
          filename: text(node['@filename']) || text(child(ref, 'ID')),
          mimeType: text(node['@mimeCode']) || 'application/octet-stream',
          content: Buffer.from(text(object), 'base64'),
        },
      ];
    }),
    lineCount: list(credit ? root.CreditNoteLine : root.InvoiceLine).length,
  };
}
