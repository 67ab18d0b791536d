// Reading a received e-invoice, pure: Peppol BIS Billing 3.0 and OIOUBL 2.1 `Invoice` and `CreditNote`
// (both UBL) into what the books need: the supplier, the document's number, dates, currency, totals, VAT
// breakdown and embedded attachments. The XML is read under the safe-XML policy (xml/reader.ts: no
// document type, so nothing fetched and no entity expanded; bounded while read); another root element
// or namespace is refused. Amounts are read by money.ts's rule, dates by calendar.ts's.
import { checkDate } from '../calendar.ts';
import { invalidRequest } from '../errors.ts';
import { Decimal, parseDecimalText } from '../money.ts';
import { xmlRefused } from '../xml/reader.ts';
import { attributeOf, child, children, readXmlDocument, textOf, type XmlElement } from '../xml/tree.ts';
import { VAT_RATE_DECIMALS } from '../vat/arithmetic.ts';
import type { EinvoiceFormat } from './schema.ts';
import type { RuleFailure } from './validate.ts';

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
  /** Every amount against the decimals and currency rules (amountFailures): fatal for a document the official rules do not check. */
  amountFailures: RuleFailure[];
  attachments: { filename: string; mimeType: string; content: Buffer }[];
  lineCount: number;
}

const refuse = (why: string, field?: string) => invalidRequest(`Not an e-invoice this service takes: ${why}.`, field);

/** A fatal rule failure found here rather than by the official rules. */
export const ruleFailure = (id: string, text: string, location = '/'): RuleFailure => ({ id, flag: 'fatal', text, location });

/** The policy's bounds for a received document: its size is the voucher limit, and an embedded attachment may fill it. */
const LIMITS = { maxBytes: MAX_EINVOICE_BYTES, maxToken: MAX_EINVOICE_BYTES };

/** An amount the document states, read by money.ts's rule (its decimals are checked with the others: amountFailures). */
function amount(e: XmlElement | undefined, what: string): Decimal {
  const t = textOf(e);
  // Any decimals here: more than 2 is a rule failure listed with the others, not a refusal of the reading.
  const d = parseDecimalText(t, Infinity);
  if (typeof d === 'string') throw refuse(`${what} "${t}" ${d}`, what);
  return d;
}

/** A date the document states, checked by calendar.ts: 2026-02-31 is refused by the element's name. */
function date(e: XmlElement | undefined, what: string): string {
  const t = textOf(e);
  const problem = checkDate(t);
  if (problem) throw refuse(`${what} "${t}" ${problem}`, what);
  return t;
}

/** OIOUBL names its identifier schemes; Peppol numbers them (ISO 6523 ICD): the same ids, in Peppol's words. */
const OIOUBL_SCHEMES: Record<string, string> = { GLN: '0088', EAN: '0088', 'DK:CVR': '0184', 'DK:SE': '0198' };

function party(p: XmlElement | undefined): InboundParty {
  const endpointNode = child(p, 'EndpointID');
  const endpointId = textOf(endpointNode);
  const named = attributeOf(endpointNode, 'schemeID');
  const scheme = OIOUBL_SCHEMES[named] ?? named;
  const taxIds = children(p, 'PartyTaxScheme').map((t) => textOf(child(t, 'CompanyID')));
  const vatNumber = taxIds.find((id) => /^[A-Z]{2}/.test(id)) ?? '';
  const legal = child(p, 'PartyLegalEntity', 'CompanyID');
  const legalScheme = attributeOf(legal, 'schemeID');
  const ids = [
    ...(legalScheme === '0184' || legalScheme === 'DK:CVR' ? [textOf(legal)] : []),
    ...(vatNumber.startsWith('DK') ? [vatNumber.slice(2)] : []),
    ...(scheme === '0184' ? [endpointId] : []),
  ];
  return {
    name: textOf(child(p, 'PartyLegalEntity', 'RegistrationName')) || textOf(child(p, 'PartyName', 'Name')),
    endpoint: endpointId && scheme ? `${scheme}:${endpointId}` : '',
    cvr: ids.map((id) => id.replace(/\D/g, '')).find((id) => /^\d{8}$/.test(id)) ?? '',
    vatNumber,
    country: textOf(child(p, 'PostalAddress', 'Country', 'IdentificationCode')),
  };
}

/**
 * The amounts a document states against the rules every amount of a received document keeps, named
 * after the rules of Peppol BIS 3 they mirror (which apply them to Peppol documents themselves): at
 * most 2 decimals (money.ts, UBL-DT-01), and in the document's currency (PEPPOL-EN16931-R051), except
 * the VAT total in the tax currency (TaxCurrencyCode, BT-111).
 */
function amountFailures(root: XmlElement, currency: string): RuleFailure[] {
  const taxCurrency = textOf(child(root, 'TaxCurrencyCode'));
  const failures: RuleFailure[] = [];
  const visit = (e: XmlElement, path: string, parent: string) => {
    const at = `${path}/${e.name}`;
    const amountCurrency = e.attributes.currencyID;
    if (amountCurrency !== undefined) {
      const d = parseDecimalText(textOf(e));
      if (typeof d === 'string' && d !== 'must be a decimal number')
        failures.push(ruleFailure('UBL-DT-01', `${e.name} ${textOf(e)} ${d}: amounts have at most two decimals.`, at));
      const vatInTaxCurrency = e.name === 'TaxAmount' && parent === 'TaxTotal' && taxCurrency !== '' && amountCurrency === taxCurrency;
      if (amountCurrency !== currency && !vatInTaxCurrency)
        failures.push(
          ruleFailure('PEPPOL-EN16931-R051', `${e.name} is in ${amountCurrency || 'no currency'}; every amount is in the document's currency ${currency}.`, at),
        );
    }
    e.children.forEach((c) => visit(c, at, e.name));
  };
  visit(root, '', '');
  return failures;
}

/** UBL's numeric types by the element's name: amounts, quantities, measures, percents and other numerics. */
const NUMERIC_NAME = /(Amount|Quantity|Measure|Numeric|Percent|Rate)$/;

/**
 * Every element of a numeric type must hold a decimal number (money.ts's rule, a sign allowed) before
 * the official rules run: their stylesheets cast it, and fail on anything else (decision 462).
 */
function numbersReadable(e: XmlElement, parent = ''): void {
  for (const c of e.children) numbersReadable(c, e.name);
  if (e.children.length || (!NUMERIC_NAME.test(e.name) && e.attributes.currencyID === undefined)) return;
  const t = textOf(e);
  // Empty is the rules' to name (a missing value), and so is a number beyond an amount's range; what is no number at all is refused here.
  if (t && parseDecimalText(t.replace(/^\+/, ''), Infinity) === 'must be a decimal number') {
    throw refuse(`${parent}/${e.name} "${t.slice(0, 40)}" must be a decimal number (line ${e.line})`, e.name);
  }
}

/**
 * Parses a received document. Refuses (400 invalid_request, naming what is wrong) an oversize body, a
 * DOCTYPE, XML that is not well-formed, a root other than UBL Invoice or CreditNote in their namespace,
 * and a document that is neither Peppol BIS Billing 3.0 nor OIOUBL.
 */
export function parseEinvoice(xml: string): InboundDocument {
  const root = readXmlDocument(xml, LIMITS, (e) => xmlRefused(e, 'invalid_request', 'Not an e-invoice this service takes: '));
  const rootName = root.name as keyof typeof ROOTS;
  if (!(rootName in ROOTS)) throw refuse(`the root element is <${root.name}>, not <Invoice> or <CreditNote>`);
  if (root.uri !== ROOTS[rootName]) throw refuse(`<${rootName}> is in the namespace "${root.uri}", not ${ROOTS[rootName]}`);
  const customization = textOf(child(root, 'CustomizationID'));
  const format: EinvoiceFormat | undefined = customization === PEPPOL_BIS3 ? 'peppol-bis3' : /^OIOUBL-2\.0[12]$/.test(customization) ? 'oioubl-2.1' : undefined;
  if (!format) throw refuse(`CustomizationID "${customization}" is neither Peppol BIS Billing 3.0 (${PEPPOL_BIS3}) nor OIOUBL 2.1 (OIOUBL-2.01, OIOUBL-2.02)`);
  numbersReadable(root);
  const credit = rootName === 'CreditNote';
  const currency = textOf(child(root, 'DocumentCurrencyCode'));
  const taxTotals = children(root, 'TaxTotal');
  const inCurrency = (code: string) => taxTotals.find((t) => attributeOf(child(t, 'TaxAmount'), 'currencyID') === code);
  const totals = child(root, 'LegalMonetaryTotal');
  const main = inCurrency(currency) ?? taxTotals[0];
  const dkk = currency !== 'DKK' ? inCurrency('DKK') : undefined;
  const number = textOf(child(root, 'ID'));
  if (!number) throw refuse('it has no ID (the document number)', 'ID');
  const issueDate = date(child(root, 'IssueDate'), 'IssueDate');
  const due = child(root, 'DueDate') ?? child(root, 'PaymentMeans', 'PaymentDueDate');
  return {
    format,
    kind: credit ? 'credit_note' : 'invoice',
    number,
    uuid: textOf(child(root, 'UUID')),
    issueDate,
    dueDate: due && textOf(due) ? date(due, due.name) : issueDate,
    currency,
    supplier: party(child(root, 'AccountingSupplierParty', 'Party')),
    buyer: party(child(root, 'AccountingCustomerParty', 'Party')),
    net: amount(child(totals, 'TaxExclusiveAmount'), 'TaxExclusiveAmount'),
    vat: main ? amount(child(main, 'TaxAmount'), 'TaxAmount') : new Decimal(0),
    gross: amount(child(totals, 'TaxInclusiveAmount'), 'TaxInclusiveAmount'),
    payable: amount(child(totals, 'PayableAmount'), 'PayableAmount'),
    vatDkk: dkk ? amount(child(dkk, 'TaxAmount'), 'TaxAmount') : null,
    breakdown: children(main, 'TaxSubtotal').map((s) => {
      const percent = textOf(child(s, 'TaxCategory', 'Percent')) || '0';
      const rate = parseDecimalText(percent, VAT_RATE_DECIMALS);
      if (typeof rate === 'string') throw refuse(`TaxCategory/Percent "${percent}" ${rate}`, 'Percent');
      return {
        category: textOf(child(s, 'TaxCategory', 'ID')),
        rate,
        taxable: amount(child(s, 'TaxableAmount'), 'TaxableAmount'),
        tax: amount(child(s, 'TaxAmount'), 'TaxAmount'),
      };
    }),
    amountFailures: amountFailures(root, currency),
    attachments: children(root, 'AdditionalDocumentReference').flatMap((ref) => {
      const object = child(ref, 'Attachment', 'EmbeddedDocumentBinaryObject');
      if (!object) return [];
      return [
        {
          filename: attributeOf(object, 'filename') || textOf(child(ref, 'ID')),
          mimeType: attributeOf(object, 'mimeCode') || 'application/octet-stream',
          content: Buffer.from(textOf(object), 'base64'),
        },
      ];
    }),
    lineCount: children(root, credit ? 'CreditNoteLine' : 'InvoiceLine').length,
  };
}
