// Reading a received e-invoice, pure: Peppol BIS Billing 3.0 and OIOUBL 2.1 (2.01, 2.02) `Invoice` and
// `CreditNote` (both UBL) into what the books need: the supplier, the document's number, dates, currency,
// totals (each in its format's meaning), VAT breakdown, other taxes (excise duties), lines, the allowances
// and charges of the document as a whole, payment means and embedded attachments. The XML is read under the safe-XML policy (xml/reader.ts: no
// document type, so nothing fetched and no entity expanded; bounded while read); another root element
// or namespace is refused. Amounts are read by money.ts's rule, dates by calendar.ts's.
import { checkDate } from '../calendar.ts';
import { invalidRequest } from '../errors.ts';
import { Decimal, parseDecimalText } from '../money.ts';
import { xmlRefused, type XmlRefusal } from '../xml/reader.ts';
import { attributeOf, child, children, readXmlDocument, readXmlDocumentYielding, textOf, type XmlElement } from '../xml/tree.ts';
import { VAT_RATE_DECIMALS } from '../vat/arithmetic.ts';
import type { EinvoiceFormat } from './schema.ts';
import type { RuleFailure } from './validate.ts';

/** As for vouchers: 10 MB. A longer document is imported by a job (inbound-import.ts, decision 491). */
export const MAX_EINVOICE_BYTES = 10 * 1024 * 1024;
/**
 * The bound on a long document's body (decision 491): 10,000 lines of a Peppol invoice like the official
 * example's (1.3 kB a line) come to 13 MB, with room for its attachments.
 */
export const MAX_LARGE_EINVOICE_BYTES = 32 * 1024 * 1024;

const ROOTS = {
  Invoice: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
  CreditNote: 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2',
} as const;
const PEPPOL_BIS3 = 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0';
/** EN 16931 and its CIUS and extensions (XRechnung, Factur-X EN16931/EXTENDED, ...): the CEN rules apply. */
const EN16931 = 'urn:cen.eu:en16931:2017';
const CII_ROOT = 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100';
/** The OIOUBL versions the schematron package 1.17.2 takes (F-LIB002): all read as OIOUBL 2.1. */
const OIOUBL_VERSIONS = ['OIOUBL-2.1', 'OIOUBL-2.02', 'OIOUBL-2.01'];

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
  /** The VAT breakdown (VAT only); OIOUBL's categories in Peppol's codes (StandardRated S, ZeroRated Z, ReverseCharge AE). */
  breakdown: { category: string; rate: Decimal; taxable: Decimal; tax: Decimal }[];
  /** Taxes other than VAT (OIOUBL's excise duties, each TaxTotal of another tax scheme): part of the cost, not input VAT. */
  taxes: { scheme: string; name: string; amount: Decimal }[];
  /** What was paid before (PrepaidAmount), and the rounding of the payable amount (PayableRoundingAmount): 0 when not stated. */
  prepaid: Decimal;
  rounding: Decimal;
  lines: InboundLine[];
  /** Allowances and charges on the document as a whole (not on a line): each its own line of the expense. */
  allowanceCharges: InboundAllowanceCharge[];
  paymentMeans: InboundPaymentMeans[];
  /** Every amount against the decimals and currency rules (amountFailures): fatal for a document the official rules do not check. */
  amountFailures: RuleFailure[];
  attachments: { filename: string; mimeType: string; content: Buffer }[];
  lineCount: number;
}

export interface InboundLine {
  id: string;
  description: string;
  /** The seller's item id (SellersItemIdentification), '' when none: what "the same item" is. */
  itemId: string;
  quantity: Decimal;
  /** UN/ECE Recommendation 20 unit code ('' when none). */
  unit: string;
  /** Price per unit (PriceAmount / BaseQuantity, as stated); null when the line states none. */
  price: Decimal | null;
  /** The line's amount without VAT (LineExtensionAmount), its allowances and charges applied. */
  net: Decimal;
  allowances: { charge: boolean; amount: Decimal; reason: string }[];
  vatCategory: string;
  vatRate: Decimal | null;
  /** The line's VAT when the document states it (OIOUBL's line TaxTotal); null otherwise. */
  vat: Decimal | null;
}

export interface InboundAllowanceCharge {
  /** true: a charge (added); false: an allowance (a discount, deducted). */
  charge: boolean;
  /** As stated: positive for either (the sign is `charge`'s). */
  amount: Decimal;
  reason: string;
  vatCategory: string;
  vatRate: Decimal | null;
}

export interface InboundPaymentMeans {
  /** UNCL 4461: 31/42/58 bank transfer, 93 FI (FIK), 49 direct debit, 48 card, ... */
  code: string;
  dueDate: string;
  /** An FI payment's card type (71, 73, 75; '' for other means), its payment id, its creditor number and payment line (`+71<id +creditor<`). */
  cardType: string;
  paymentId: string;
  creditor: string;
  fiLine: string;
  /** The account to pay to: a Danish account (registration number as `branch`) or an IBAN (BIC as `branch`); '' when none. */
  account: string;
  branch: string;
}

const refuse = (why: string, field?: string) => invalidRequest(`Not an e-invoice this service takes: ${why}.`, field);

/** A fatal rule failure found here rather than by the official rules. */
export const ruleFailure = (id: string, text: string, location = '/'): RuleFailure => ({ id, flag: 'fatal', text, location });

/** The policy's bounds for a received document: its size is the voucher limit, and an embedded attachment may fill it. */
// A document up to the long documents' bound (the HTTP shell holds a request's to 10 MB); a text (an embedded attachment) up to 10 MB.
const LIMITS = { maxBytes: MAX_LARGE_EINVOICE_BYTES, maxToken: MAX_EINVOICE_BYTES };

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
  return dateText(textOf(e), what);
}

function dateText(t: string, what: string): string {
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
  // OIOUBL writes a CVR endpoint as DK12345678; Peppol's 0184 is the 8 digits.
  const endpointValue = scheme === '0184' ? endpointId.replace(/^DK/i, '') : endpointId;
  const taxIds = children(p, 'PartyTaxScheme').map((t) => textOf(child(t, 'CompanyID')));
  const vatNumber = taxIds.find((id) => /^[A-Z]{2}/.test(id)) ?? '';
  const legal = child(p, 'PartyLegalEntity', 'CompanyID');
  const legalScheme = attributeOf(legal, 'schemeID');
  const ids = [
    ...(legalScheme === '0184' || legalScheme === 'DK:CVR' ? [textOf(legal)] : []),
    ...(vatNumber.startsWith('DK') ? [vatNumber.slice(2)] : []),
    ...(scheme === '0184' ? [endpointValue] : []),
  ];
  return {
    name: textOf(child(p, 'PartyLegalEntity', 'RegistrationName')) || textOf(child(p, 'PartyName', 'Name')),
    endpoint: endpointValue && scheme ? `${scheme}:${endpointValue}` : '',
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
function* amountFailures(root: XmlElement, currency: string): Turns<RuleFailure[]> {
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
  // visit(root, '', ''), a turn every TURN_ELEMENTS of the root's children (its lines).
  visit({ ...root, children: [] }, '', '');
  for (let i = 0; i < root.children.length; i++) {
    visit(root.children[i]!, `/${root.name}`, root.name);
    if (i % TURN_ELEMENTS === TURN_ELEMENTS - 1) yield;
  }
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
  const steps = einvoiceOf(readXmlDocument(xml, LIMITS, refusedXml));
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * parseEinvoice for the main thread (the request and the import-einvoice job): the same reading and
 * refusals, the XML read a slice at a time with the event loop's turns between (readXmlDocumentYielding,
 * decision 687), so that a long document does not hold every other request meanwhile.
 */
export async function parseEinvoiceYielding(xml: string): Promise<InboundDocument> {
  const steps = einvoiceOf(await readXmlDocumentYielding(xml, LIMITS, refusedXml));
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * A reading in steps: each `yield` is a point where parseEinvoiceYielding gives the event loop a turn
 * (parseEinvoice goes straight on), every TURN_ELEMENTS of the root's children (a document's lines).
 */
type Turns<T> = Generator<void, T, void>;
/** Some 5 ms of the reading's work on an idle core: 10,000 lines took 70 ms to map, and up to 0.7 s in a loaded server (decision 687). */
const TURN_ELEMENTS = 500;

const refusedXml = (e: XmlRefusal) => xmlRefused(e, 'invalid_request', 'Not an e-invoice this service takes: ');

/** The document its root element says: UBL (Peppol BIS 3, EN 16931, OIOUBL) or CII (read in one step). */
function* einvoiceOf(root: XmlElement): Turns<InboundDocument> {
  if (root.name === 'CrossIndustryInvoice') {
    if (root.uri !== CII_ROOT) throw refuse(`<CrossIndustryInvoice> is in the namespace "${root.uri}", not ${CII_ROOT}`);
    return parseCii(root);
  }
  const rootName = root.name as keyof typeof ROOTS;
  if (!(rootName in ROOTS)) throw refuse(`the root element is <${root.name}>, not <Invoice> or <CreditNote> (UBL) or <CrossIndustryInvoice> (CII)`);
  if (root.uri !== ROOTS[rootName]) throw refuse(`<${rootName}> is in the namespace "${root.uri}", not ${ROOTS[rootName]}`);
  const customization = textOf(child(root, 'CustomizationID'));
  // The Peppol rules only for a document that claims Peppol BIS 3; any other EN 16931 document (plain,
  // XRechnung, another CIUS) under the CEN rules.
  const format: EinvoiceFormat | undefined =
    customization === PEPPOL_BIS3
      ? 'peppol-bis3'
      : OIOUBL_VERSIONS.includes(customization)
        ? 'oioubl-2.1'
        : customization.startsWith(EN16931)
          ? 'en16931-ubl'
          : undefined;
  if (!format) {
    throw refuse(
      `CustomizationID "${customization}" is neither Peppol BIS Billing 3.0 (${PEPPOL_BIS3}), EN 16931 (${EN16931}, XRechnung and other CIUS included) nor OIOUBL 2.1 (${OIOUBL_VERSIONS.join(', ')})`,
    );
  }
  // numbersReadable(root), a turn every TURN_ELEMENTS of the root's children.
  for (let i = 0; i < root.children.length; i++) {
    numbersReadable(root.children[i]!, root.name);
    if (i % TURN_ELEMENTS === TURN_ELEMENTS - 1) yield;
  }
  const oioubl = format === 'oioubl-2.1';
  const credit = rootName === 'CreditNote';
  const currency = textOf(child(root, 'DocumentCurrencyCode'));
  const totals = child(root, 'LegalMonetaryTotal');
  const number = textOf(child(root, 'ID'));
  if (!number) throw refuse('it has no ID (the document number)', 'ID');
  const issueDate = date(child(root, 'IssueDate'), 'IssueDate');
  const due = child(root, 'DueDate') ?? child(root, 'PaymentMeans', 'PaymentDueDate');
  const taxes = readTaxes(root, currency);
  const gross = amount(child(totals, 'TaxInclusiveAmount'), 'TaxInclusiveAmount');
  const optional = (name: string) => (child(totals, name) ? amount(child(totals, name), name) : new Decimal(0));
  // In the order of the reading before decision 687 (so that the same fault is named first); its lines in turns.
  const head: Omit<InboundDocument, 'lines' | 'allowanceCharges' | 'paymentMeans' | 'amountFailures' | 'attachments' | 'lineCount'> = {
    format,
    kind: credit ? 'credit_note' : 'invoice',
    number,
    uuid: textOf(child(root, 'UUID')),
    issueDate,
    dueDate: due && textOf(due) ? date(due, due.name) : issueDate,
    currency,
    supplier: party(child(root, 'AccountingSupplierParty', 'Party')),
    buyer: party(child(root, 'AccountingCustomerParty', 'Party')),
    // OIOUBL's TaxExclusiveAmount is the total of the taxes (VAT and duties), not the amount without
    // them: there the amount without VAT is the total with it less the VAT (duties are part of the cost).
    net: oioubl ? gross.minus(taxes.vat) : amount(child(totals, 'TaxExclusiveAmount'), 'TaxExclusiveAmount'),
    vat: taxes.vat,
    gross,
    payable: amount(child(totals, 'PayableAmount'), 'PayableAmount'),
    prepaid: optional('PrepaidAmount'),
    rounding: optional('PayableRoundingAmount'),
    vatDkk: taxes.vatDkk,
    breakdown: taxes.breakdown,
    taxes: taxes.other,
  };
  const lineElements = children(root, credit ? 'CreditNoteLine' : 'InvoiceLine');
  const lines: InboundLine[] = [];
  for (const l of lineElements) {
    lines.push(line(l, credit));
    if (lines.length % TURN_ELEMENTS === 0) yield;
  }
  const allowanceCharges = children(root, 'AllowanceCharge').map((a) => {
    const category = child(a, 'TaxCategory');
    return {
      charge: textOf(child(a, 'ChargeIndicator')) === 'true',
      amount: amount(child(a, 'Amount'), 'Amount'),
      reason: textOf(child(a, 'AllowanceChargeReason')) || textOf(child(a, 'AllowanceChargeReasonCode')),
      vatCategory: vatCategory(textOf(child(category, 'ID'))),
      vatRate: rateOf(category),
    };
  });
  const means = children(root, 'PaymentMeans').map(paymentMeans);
  const failures = yield* amountFailures(root, currency);
  return {
    ...head,
    lines,
    allowanceCharges,
    paymentMeans: means,
    amountFailures: failures,
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
    lineCount: lineElements.length,
  };
}

/** OIOUBL's VAT categories in Peppol's (UNCL 5305) codes; Peppol's own and OIOUBL's other codes (B, K, O, G, ...) stay. */
const OIOUBL_CATEGORIES: Record<string, string> = { StandardRated: 'S', ZeroRated: 'Z', ReverseCharge: 'AE' };
const vatCategory = (id: string) => OIOUBL_CATEGORIES[id] ?? id;

/** VAT's tax scheme: Peppol's `VAT`, OIOUBL's `63` (Moms). Any other scheme is a duty (afgift). */
const isVat = (scheme: XmlElement | undefined) => {
  const id = textOf(child(scheme, 'ID')).toUpperCase();
  return id === 'VAT' || id === '63' || (!id && /^(moms|vat)$/i.test(textOf(child(scheme, 'Name'))));
};

function rateOf(category: XmlElement | undefined): Decimal | null {
  const percent = textOf(child(category, 'Percent'));
  if (!percent) return null;
  const rate = parseDecimalText(percent, VAT_RATE_DECIMALS);
  if (typeof rate === 'string') throw refuse(`TaxCategory/Percent "${percent}" ${rate}`, 'Percent');
  return rate;
}

/**
 * The document's taxes, each TaxSubtotal by its tax scheme: VAT's subtotals make the VAT breakdown and
 * the VAT (the TaxTotal in the document's currency; in DKK too when another TaxTotal states it); any
 * other scheme's (excise duties) are taxes of their own. A TaxTotal without subtotals counts as VAT.
 */
function readTaxes(root: XmlElement, currency: string) {
  const taxTotals = children(root, 'TaxTotal');
  const inCurrency = (code: string) => taxTotals.filter((t) => (attributeOf(child(t, 'TaxAmount'), 'currencyID') || currency) === code);
  const main = inCurrency(currency);
  const breakdown: InboundDocument['breakdown'] = [];
  const other: InboundDocument['taxes'] = [];
  let vat = new Decimal(0);
  for (const total of main.length ? main : taxTotals.slice(0, 1)) {
    const subtotals = children(total, 'TaxSubtotal');
    if (!subtotals.length) vat = vat.plus(amount(child(total, 'TaxAmount'), 'TaxAmount'));
    for (const s of subtotals) {
      const category = child(s, 'TaxCategory');
      const tax = amount(child(s, 'TaxAmount'), 'TaxAmount');
      if (!isVat(child(category, 'TaxScheme'))) {
        const scheme = child(category, 'TaxScheme');
        other.push({ scheme: textOf(child(scheme, 'ID')), name: textOf(child(scheme, 'Name')) || textOf(child(category, 'Name')), amount: tax });
        continue;
      }
      vat = vat.plus(tax);
      breakdown.push({
        category: vatCategory(textOf(child(category, 'ID'))),
        rate: rateOf(category) ?? new Decimal(0),
        taxable: amount(child(s, 'TaxableAmount'), 'TaxableAmount'),
        tax,
      });
    }
  }
  const dkk = currency !== 'DKK' ? inCurrency('DKK')[0] : undefined;
  return { vat, breakdown, other, vatDkk: dkk ? amount(child(dkk, 'TaxAmount'), 'TaxAmount') : null };
}

/** A quantity the document states: any decimals (UBL's quantities are not amounts). */
function quantity(e: XmlElement | undefined, what: string): Decimal {
  const t = textOf(e);
  if (!t) return new Decimal(1);
  const d = parseDecimalText(t, Infinity);
  if (typeof d === 'string') throw refuse(`${what} "${t}" ${d}`, what);
  return d;
}

function line(l: XmlElement, credit: boolean): InboundLine {
  const q = child(l, credit ? 'CreditedQuantity' : 'InvoicedQuantity');
  const item = child(l, 'Item');
  // The line's VAT category: Peppol's on the item (ClassifiedTaxCategory), OIOUBL's in the line's own TaxTotal.
  const vatSubtotal = children(child(l, 'TaxTotal'), 'TaxSubtotal').find((s) => isVat(child(s, 'TaxCategory', 'TaxScheme')));
  const category = child(item, 'ClassifiedTaxCategory') ?? child(vatSubtotal, 'TaxCategory');
  const priceNode = child(l, 'Price', 'PriceAmount');
  return {
    id: textOf(child(l, 'ID')),
    description: (textOf(child(item, 'Name')) || textOf(child(item, 'Description')) || textOf(child(l, 'Note'))).slice(0, 500),
    itemId: textOf(child(item, 'SellersItemIdentification', 'ID')) || textOf(child(item, 'StandardItemIdentification', 'ID')),
    quantity: quantity(q, q?.name ?? 'InvoicedQuantity'),
    unit: attributeOf(q, 'unitCode'),
    price: priceNode ? amount(priceNode, 'PriceAmount') : null,
    net: amount(child(l, 'LineExtensionAmount'), 'LineExtensionAmount'),
    allowances: children(l, 'AllowanceCharge').map((a) => ({
      charge: textOf(child(a, 'ChargeIndicator')) === 'true',
      amount: amount(child(a, 'Amount'), 'Amount'),
      reason: textOf(child(a, 'AllowanceChargeReason')) || textOf(child(a, 'AllowanceChargeReasonCode')),
    })),
    vatCategory: vatCategory(textOf(child(category, 'ID'))),
    vatRate: rateOf(category),
    vat: vatSubtotal ? amount(child(vatSubtotal, 'TaxAmount'), 'TaxAmount') : null,
  };
}

/**
 * A payment means. An FI payment (93, FIK) is read from OIOUBL's PaymentID (71, 73, 75), InstructionID
 * (the payment id) and CreditAccount (the creditor), or from Peppol's PaymentID `71#<payment id>` and
 * payee account (the creditor, DK-R-010); a bank account from PayeeFinancialAccount and its branch (a
 * Danish registration number, or a BIC).
 */
function paymentMeans(m: XmlElement): InboundPaymentMeans {
  const code = textOf(child(m, 'PaymentMeansCode'));
  const stated = textOf(child(m, 'PaymentID'));
  const account = child(m, 'PayeeFinancialAccount');
  const accountId = textOf(child(account, 'ID'));
  const oioublFi = /^(71|73|75)$/.test(stated);
  const peppolFi = /^(71|73|75)#/.exec(stated);
  const cardType = oioublFi ? stated : peppolFi ? peppolFi[1]! : '';
  const paymentId = oioublFi ? textOf(child(m, 'InstructionID')) : peppolFi ? stated.slice(3) : stated;
  const creditor = oioublFi ? textOf(child(m, 'CreditAccount', 'AccountID')) : peppolFi ? accountId : '';
  return {
    code,
    dueDate: textOf(child(m, 'PaymentDueDate')),
    cardType,
    paymentId,
    creditor,
    fiLine: cardType ? `+${cardType}<${cardType === '73' ? '' : paymentId} +${creditor}<` : '',
    account: cardType ? '' : accountId,
    branch: cardType
      ? ''
      : textOf(child(account, 'FinancialInstitutionBranch', 'ID')) || textOf(child(account, 'FinancialInstitutionBranch', 'FinancialInstitution', 'ID')),
  };
}

// ---------------------------------------------------------------------------------------------------
// UN/CEFACT CII (EN 16931's other syntax: XRechnung CII, Factur-X / ZUGFeRD)

/** A CII date: `DateTimeString` in format 102 (YYYYMMDD), checked by the calendar like any other. */
function ciiDate(e: XmlElement | undefined, what: string): string {
  const t = textOf(child(e, 'DateTimeString'));
  return dateText(/^\d{8}$/.test(t) ? `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}` : t, what);
}

/** A CII party: its electronic address (URIUniversalCommunication, else GlobalID) as the endpoint, legal id, VAT number, country. */
function ciiParty(p: XmlElement | undefined): InboundParty {
  const uri = child(p, 'URIUniversalCommunication', 'URIID');
  const global = child(p, 'GlobalID');
  const [endpointId, scheme] = textOf(uri) ? [textOf(uri), attributeOf(uri, 'schemeID')] : [textOf(global), attributeOf(global, 'schemeID')];
  const endpointValue = scheme === '0184' ? endpointId.replace(/^DK/i, '') : endpointId;
  const registrations = children(p, 'SpecifiedTaxRegistration').map((r) => child(r, 'ID'));
  const vatNumber = textOf(registrations.find((r) => attributeOf(r, 'schemeID') === 'VA'));
  const legal = child(p, 'SpecifiedLegalOrganization', 'ID');
  const ids = [
    ...(attributeOf(legal, 'schemeID') === '0184' || /^DK\d{8}$/.test(textOf(legal)) ? [textOf(legal)] : []),
    ...(vatNumber.startsWith('DK') ? [vatNumber.slice(2)] : []),
    ...(scheme === '0184' ? [endpointValue] : []),
  ];
  return {
    name: textOf(child(p, 'Name')),
    endpoint: endpointValue && /^\d{4}$/.test(scheme) ? `${scheme}:${endpointValue}` : '',
    cvr: ids.map((id) => id.replace(/\D/g, '')).find((id) => /^\d{8}$/.test(id)) ?? '',
    vatNumber,
    country: textOf(child(p, 'PostalTradeAddress', 'CountryID')),
  };
}

/** A CII indicator (`<ram:ChargeIndicator><udt:Indicator>true</udt:Indicator></ram:ChargeIndicator>`). */
const indicator = (e: XmlElement | undefined) => textOf(child(e, 'Indicator')) === 'true';

/**
 * A CII invoice (rsm:CrossIndustryInvoice) into the same reading as a UBL one: EN 16931's meaning of
 * each total (TaxBasisTotalAmount without VAT, TaxTotalAmount in the document's currency the VAT,
 * GrandTotalAmount with it, DuePayableAmount to pay). TypeCode 381 is a credit note. The CEN CII rules
 * check its arithmetic and decimals.
 */
function parseCii(root: XmlElement): InboundDocument {
  const guideline = textOf(child(root, 'ExchangedDocumentContext', 'GuidelineSpecifiedDocumentContextParameter', 'ID'));
  if (!guideline.startsWith(EN16931) && !/^urn:(factur-x\.eu|zugferd)/.test(guideline)) {
    throw refuse(`its guideline "${guideline}" is not EN 16931 (${EN16931}, XRechnung, Factur-X and ZUGFeRD included)`);
  }
  const doc = child(root, 'ExchangedDocument');
  const trade = child(root, 'SupplyChainTradeTransaction');
  const agreement = child(trade, 'ApplicableHeaderTradeAgreement');
  const settlement = child(trade, 'ApplicableHeaderTradeSettlement');
  const sums = child(settlement, 'SpecifiedTradeSettlementHeaderMonetarySummation');
  const number = textOf(child(doc, 'ID'));
  if (!number) throw refuse('it has no ExchangedDocument/ID (the document number)', 'ID');
  const issueDate = ciiDate(child(doc, 'IssueDateTime'), 'IssueDateTime');
  const currency = textOf(child(settlement, 'InvoiceCurrencyCode'));
  const taxTotals = children(sums, 'TaxTotalAmount');
  const inCurrency = (code: string) => taxTotals.find((t) => attributeOf(t, 'currencyID') === code);
  const vatNode = inCurrency(currency) ?? taxTotals.find((t) => !attributeOf(t, 'currencyID'));
  const dkk = currency !== 'DKK' ? inCurrency('DKK') : undefined;
  const optional = (name: string) => (child(sums, name) ? amount(child(sums, name), name) : new Decimal(0));
  const dueNode = child(settlement, 'SpecifiedTradePaymentTerms', 'DueDateDateTime');
  const dueDate = dueNode ? ciiDate(dueNode, 'DueDateDateTime') : issueDate;
  const taxes = children(settlement, 'ApplicableTradeTax');
  return {
    format: 'en16931-cii',
    kind: textOf(child(doc, 'TypeCode')) === '381' ? 'credit_note' : 'invoice',
    number,
    uuid: '',
    issueDate,
    dueDate,
    currency,
    supplier: ciiParty(child(agreement, 'SellerTradeParty')),
    buyer: ciiParty(child(agreement, 'BuyerTradeParty')),
    net: amount(child(sums, 'TaxBasisTotalAmount'), 'TaxBasisTotalAmount'),
    vat: vatNode ? amount(vatNode, 'TaxTotalAmount') : new Decimal(0),
    gross: amount(child(sums, 'GrandTotalAmount'), 'GrandTotalAmount'),
    payable: amount(child(sums, 'DuePayableAmount'), 'DuePayableAmount'),
    prepaid: optional('TotalPrepaidAmount'),
    rounding: optional('RoundingAmount'),
    vatDkk: dkk ? amount(dkk, 'TaxTotalAmount') : null,
    breakdown: taxes
      .filter((t) => (textOf(child(t, 'TypeCode')) || 'VAT') === 'VAT')
      .map((t) => ({
        category: textOf(child(t, 'CategoryCode')),
        rate: ciiRate(t) ?? new Decimal(0),
        taxable: amount(child(t, 'BasisAmount'), 'BasisAmount'),
        tax: amount(child(t, 'CalculatedAmount'), 'CalculatedAmount'),
      })),
    taxes: [],
    lines: children(trade, 'IncludedSupplyChainTradeLineItem').map(ciiLine),
    allowanceCharges: children(settlement, 'SpecifiedTradeAllowanceCharge').map((a) => {
      const tax = child(a, 'CategoryTradeTax');
      return {
        charge: indicator(child(a, 'ChargeIndicator')),
        amount: amount(child(a, 'ActualAmount'), 'ActualAmount'),
        reason: textOf(child(a, 'Reason')) || textOf(child(a, 'ReasonCode')),
        vatCategory: textOf(child(tax, 'CategoryCode')),
        vatRate: ciiRate(tax),
      };
    }),
    paymentMeans: children(settlement, 'SpecifiedTradeSettlementPaymentMeans').map((m) => {
      const account = child(m, 'PayeePartyCreditorFinancialAccount');
      return {
        code: textOf(child(m, 'TypeCode')),
        dueDate: dueNode ? dueDate : '',
        cardType: '',
        paymentId: textOf(child(settlement, 'PaymentReference')),
        creditor: '',
        fiLine: '',
        account: textOf(child(account, 'IBANID')) || textOf(child(account, 'ProprietaryID')),
        branch: textOf(child(m, 'PayeeSpecifiedCreditorFinancialInstitution', 'BICID')),
      };
    }),
    // The CEN CII rules check the amounts themselves (BR-DEC-*; CII states no currency on most amounts).
    amountFailures: [],
    attachments: children(agreement, 'AdditionalReferencedDocument').flatMap((ref) => {
      const object = child(ref, 'AttachmentBinaryObject');
      if (!object) return [];
      return [
        {
          filename: attributeOf(object, 'filename') || textOf(child(ref, 'IssuerAssignedID')),
          mimeType: attributeOf(object, 'mimeCode') || 'application/octet-stream',
          content: Buffer.from(textOf(object), 'base64'),
        },
      ];
    }),
    lineCount: children(trade, 'IncludedSupplyChainTradeLineItem').length,
  };
}

function ciiRate(tax: XmlElement | undefined): Decimal | null {
  const percent = textOf(child(tax, 'RateApplicablePercent'));
  if (!percent) return null;
  const rate = parseDecimalText(percent, VAT_RATE_DECIMALS);
  if (typeof rate === 'string') throw refuse(`RateApplicablePercent "${percent}" ${rate}`, 'RateApplicablePercent');
  return rate;
}

function ciiLine(l: XmlElement): InboundLine {
  const product = child(l, 'SpecifiedTradeProduct');
  const q = child(l, 'SpecifiedLineTradeDelivery', 'BilledQuantity');
  const lineSettlement = child(l, 'SpecifiedLineTradeSettlement');
  const tax = child(lineSettlement, 'ApplicableTradeTax');
  const priceNode = child(l, 'SpecifiedLineTradeAgreement', 'NetPriceProductTradePrice', 'ChargeAmount');
  return {
    id: textOf(child(l, 'AssociatedDocumentLineDocument', 'LineID')),
    description: (textOf(child(product, 'Name')) || textOf(child(product, 'Description'))).slice(0, 500),
    itemId: textOf(child(product, 'SellerAssignedID')) || textOf(child(product, 'GlobalID')),
    quantity: quantity(q, 'BilledQuantity'),
    unit: attributeOf(q, 'unitCode'),
    // A unit price may have more decimals than an amount (EN 16931 allows them).
    price: priceNode ? quantity(priceNode, 'ChargeAmount') : null,
    net: amount(child(lineSettlement, 'SpecifiedTradeSettlementLineMonetarySummation', 'LineTotalAmount'), 'LineTotalAmount'),
    allowances: children(lineSettlement, 'SpecifiedTradeAllowanceCharge').map((a) => ({
      charge: indicator(child(a, 'ChargeIndicator')),
      amount: amount(child(a, 'ActualAmount'), 'ActualAmount'),
      reason: textOf(child(a, 'Reason')) || textOf(child(a, 'ReasonCode')),
    })),
    vatCategory: textOf(child(tax, 'CategoryCode')),
    vatRate: ciiRate(tax),
    vat: null,
  };
}
