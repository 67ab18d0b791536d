// An approved invoice, or the credit note that cancelled it, as OIOUBL 2.1 (NemHandel's UBL: Invoice or
// CreditNote, CustomizationID OIOUBL-2.1): the same document as the Peppol writer reads (ubl.ts's
// UblDocument, its VAT per group from vat/arithmetic.ts), serialized a second time under OIOUBL's own
// names: parties by GLN or CVR (DK:CVR, DK:SE), OIOUBL's tax categories (StandardRated, ZeroRated,
// ReverseCharge) of its tax scheme 63 (Moms), payment means with OIOUBL's channel codes (FIK 93 with
// the +71 id, a Danish bank account 42 DK:BANK), and OIOUBL's totals: LegalMonetaryTotal's
// TaxExclusiveAmount is the VAT, not the amount without VAT. "Valid" is what the official OIOUBL
// schematron (package 1.17.2) says, not this file.
import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';
import { Decimal, sumAmounts } from '../money.ts';
import { groupVat, vatByGroup } from '../vat/arithmetic.ts';
import { toDkk } from '../currency/rules.ts';
import { VAT_CODES, type VatKind } from '../vat/codes.ts';
import { DomainError } from '../errors.ts';
import { checkPeppolId, parsePeppolId, peppolVatPrefix } from '../identifiers/peppol-id.ts';
import { lineAllowance, linePeriodXml, type UblDocument, type UblLine, type UblParty } from './ubl.ts';

const NS = {
  Invoice: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
  CreditNote: 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2',
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
} as const;
/** The NES profile 5 ("basic invoice"): an invoice or credit note with no order before it. */
const PROFILE = { schemeAgencyID: '320', schemeID: 'urn:oioubl:id:profileid-1.2' };
const PROFILE_ID = 'urn:www.nesubl.eu:profiles:profile5:ver2.0';
const TAX_SCHEME = { schemeAgencyID: '320', schemeID: 'urn:oioubl:id:taxschemeid-1.1' };
const TAX_CATEGORY = { schemeAgencyID: '320', schemeID: 'urn:oioubl:id:taxcategoryid-1.1' };
const CHANNEL = { listAgencyID: '320', listID: 'urn:oioubl:codelist:paymentchannelcode-1.1' };
const PAYMENT_ID = { schemeAgencyID: '320', schemeID: 'urn:oioubl:id:paymentid-1.1' };

/** What the OIOUBL Reminder writer (oioubl-reminder.ts) shares with the invoice's: the namespaces, the tax category's scheme, amounts. */
export const OIOUBL_NS = NS;
export const OIOUBL_TAX_CATEGORY = TAX_CATEGORY;
export const oioublAmount = (d: Decimal) => money(d);
/** The parties, tax scheme and payment means as the invoice writes them (functions below). */
export const oioublParts = { partyEndpoint, partyXml, taxScheme, paymentMeans };

/**
 * OIOUBL's tax category of each sales treatment (taxcategoryid-1.1, decision 666): Danish VAT is
 * StandardRated; a sale where the buyer accounts for the VAT (EU goods and services, § 46) ReverseCharge;
 * exempt sales and exports ZeroRated.
 */
const CATEGORY: Partial<Record<VatKind, 'StandardRated' | 'ZeroRated' | 'ReverseCharge'>> = {
  output: 'StandardRated',
  exempt_sale: 'ZeroRated',
  export: 'ZeroRated',
  eu_sale_goods: 'ReverseCharge',
  eu_sale_goods_unlisted: 'ReverseCharge',
  eu_sale_services: 'ReverseCharge',
  domestic_reverse_charge_sale: 'ReverseCharge',
};

export function oioublCategory(code: string): 'StandardRated' | 'ZeroRated' | 'ReverseCharge' {
  const kind = VAT_CODES.find((c) => c.code === code)?.kind;
  const category = kind && CATEGORY[kind];
  if (!category) throw new Error(`no OIOUBL tax category for code ${code}`);
  return category;
}

const money = (d: Decimal) => d.toFixed(2);
const percent = (d: Decimal) => d.toString();
/** A unit price: 2 decimals, up to 4 when a discount leaves more. */
const unitAmount = (d: Decimal) => {
  const four = d.toDecimalPlaces(4, Decimal.ROUND_HALF_UP);
  return four.decimalPlaces() > 2 ? four.toString() : four.toFixed(2);
};

/**
 * An OIOUBL EndpointID (schemeID and value) of a Peppol participant id: a GLN as GLN, a CVR number as
 * DK:CVR (with its DK prefix), an SE number as DK:SE, an EU VAT scheme as `<country>:VAT`, and the other
 * schemes OIOUBL names (decision 667); null for a scheme OIOUBL has no name for.
 */
export function oioublEndpoint(peppolId: string): { schemeID: string; schemeAgencyID?: string; id: string } | null {
  // An id that fails tlr's own check (a received document's sender, as several official examples name theirs) is taken as written.
  const { scheme, id } = checkPeppolId(peppolId)
    ? { scheme: peppolId.slice(0, peppolId.indexOf(':')), id: peppolId.slice(peppolId.indexOf(':') + 1) }
    : parsePeppolId(peppolId);
  const named: Record<string, { schemeID: string; schemeAgencyID?: string; id: string }> = {
    '0088': { schemeID: 'GLN', schemeAgencyID: '9', id },
    '0184': { schemeID: 'DK:CVR', id: `DK${id}` },
    '0198': { schemeID: 'DK:SE', id },
    '0096': { schemeID: 'DK:P', id },
    '0007': { schemeID: 'SE:ORGNR', id },
    '0192': { schemeID: 'NO:ORGNR', id },
    '0037': { schemeID: 'FI:OVT', id },
    '0009': { schemeID: 'FR:SIRET', id },
    '0060': { schemeID: 'DUNS', id },
    '9918': { schemeID: 'IBAN', id },
  };
  if (named[scheme]) return named[scheme];
  const prefix = peppolVatPrefix(scheme);
  return prefix ? { schemeID: `${prefix === 'EL' ? 'GR' : prefix}:VAT`, id } : null;
}

/** A party's OIOUBL endpoint: its Peppol id's, else its EU VAT number's, else its CVR's. */
function partyEndpoint(p: UblParty): { schemeID: string; schemeAgencyID?: string; id: string } | null {
  const own = p.endpoint ? oioublEndpoint(p.endpoint) : null;
  if (own) return own;
  if (p.vatNumber && !p.vatNumber.startsWith('DK'))
    return { schemeID: `${p.vatNumber.startsWith('EL') ? 'GR' : p.vatNumber.slice(0, 2)}:VAT`, id: p.vatNumber };
  return p.cvr ? { schemeID: 'DK:CVR', id: `DK${p.cvr}` } : null;
}

function partyXml(parent: XMLBuilder, p: UblParty, endpoint: NonNullable<ReturnType<typeof partyEndpoint>>, contactId?: string) {
  const party = parent.ele(NS.cac, 'cac:Party');
  const scheme = { ...(endpoint.schemeAgencyID ? { schemeAgencyID: endpoint.schemeAgencyID } : {}), schemeID: endpoint.schemeID };
  party.ele(NS.cbc, 'cbc:EndpointID', scheme).txt(endpoint.id);
  party.ele(NS.cac, 'cac:PartyIdentification').ele(NS.cbc, 'cbc:ID', scheme).txt(endpoint.id);
  party.ele(NS.cac, 'cac:PartyName').ele(NS.cbc, 'cbc:Name').txt(p.name);
  const address = party.ele(NS.cac, 'cac:PostalAddress');
  address.ele(NS.cbc, 'cbc:AddressFormatCode', { listAgencyID: '320', listID: 'urn:oioubl:codelist:addressformatcode-1.1' }).txt('StructuredLax');
  if (p.street) address.ele(NS.cbc, 'cbc:StreetName').txt(p.street);
  if (p.additionalStreet) address.ele(NS.cbc, 'cbc:AdditionalStreetName').txt(p.additionalStreet);
  if (p.city) address.ele(NS.cbc, 'cbc:CityName').txt(p.city);
  if (p.postalCode) address.ele(NS.cbc, 'cbc:PostalZone').txt(p.postalCode);
  address
    .ele(NS.cac, 'cac:Country')
    .ele(NS.cbc, 'cbc:IdentificationCode')
    .txt(p.country || 'DK');
  // OIOUBL names a Danish VAT registration (DK:SE); a foreign VAT number is ZZZ, "another scheme".
  if (p.vatNumber) {
    const tax = party.ele(NS.cac, 'cac:PartyTaxScheme');
    tax.ele(NS.cbc, 'cbc:CompanyID', { schemeID: p.vatNumber.startsWith('DK') ? 'DK:SE' : 'ZZZ' }).txt(p.vatNumber);
    taxScheme(tax);
  }
  const legal = party.ele(NS.cac, 'cac:PartyLegalEntity');
  legal.ele(NS.cbc, 'cbc:RegistrationName').txt(p.name);
  // Its legal registration: a CVR number, else (a foreign party) its VAT number or endpoint id as ZZZ, "another scheme".
  if (p.cvr) legal.ele(NS.cbc, 'cbc:CompanyID', { schemeID: 'DK:CVR' }).txt(`DK${p.cvr}`);
  else legal.ele(NS.cbc, 'cbc:CompanyID', { schemeID: 'ZZZ' }).txt(p.vatNumber || endpoint.id);
  if (p.email || contactId) {
    const contact = party.ele(NS.cac, 'cac:Contact');
    if (contactId) contact.ele(NS.cbc, 'cbc:ID').txt(contactId);
    if (p.email) contact.ele(NS.cbc, 'cbc:ElectronicMail').txt(p.email);
  }
}

function taxScheme(parent: XMLBuilder) {
  const scheme = parent.ele(NS.cac, 'cac:TaxScheme');
  scheme.ele(NS.cbc, 'cbc:ID', TAX_SCHEME).txt('63');
  scheme.ele(NS.cbc, 'cbc:Name').txt('Moms');
}

function taxCategory(parent: XMLBuilder, name: 'cac:TaxCategory' | 'cac:ClassifiedTaxCategory', category: string, rate: Decimal) {
  const c = parent.ele(NS.cac, name);
  c.ele(NS.cbc, 'cbc:ID', TAX_CATEGORY).txt(category);
  c.ele(NS.cbc, 'cbc:Percent').txt(percent(rate));
  taxScheme(c);
}

/** The VAT per OIOUBL category and rate: vat/arithmetic.ts's groups, the same figures as the invoice's and the Peppol document's. */
function breakdown(lines: readonly UblLine[]) {
  return vatByGroup(
    lines.map((l) => ({ net: l.amount, rate: l.vatRate, category: oioublCategory(l.vatCode) })),
    (l) => `${l.category}|${l.rate.toFixed(2)}`,
  ).map((g) => ({ category: g.first.category, rate: g.rate, taxable: g.net, tax: g.vat }));
}

/** The document as OIOUBL 2.1 (Invoice or CreditNote). */
export function oioublXml(d: UblDocument): string {
  const credit = d.kind === 'credit_note';
  const root = credit ? 'CreditNote' : 'Invoice';
  const cur = { currencyID: d.currency };
  const seller = partyEndpoint(d.seller);
  const buyer = partyEndpoint(d.buyer);
  if (!seller || !buyer) {
    throw new DomainError(
      'einvoice_party_unaddressable',
      !seller
        ? 'The company has neither a CVR number nor an id OIOUBL names: set one (PUT /settings/company) to address its e-invoices.'
        : `The buyer ${d.buyer.name} has no EAN, CVR, EU VAT number or Peppol id that OIOUBL can address an e-invoice to.`,
      seller ? 'customer_id' : undefined,
    );
  }
  const doc = create({ version: '1.0', encoding: 'UTF-8' }).ele(NS[root], root).att('xmlns:cac', NS.cac).att('xmlns:cbc', NS.cbc);
  doc.ele(NS.cbc, 'cbc:UBLVersionID').txt('2.1');
  doc.ele(NS.cbc, 'cbc:CustomizationID').txt('OIOUBL-2.1');
  doc.ele(NS.cbc, 'cbc:ProfileID', PROFILE).txt(PROFILE_ID);
  doc.ele(NS.cbc, 'cbc:ID').txt(d.number);
  doc.ele(NS.cbc, 'cbc:CopyIndicator').txt('false');
  doc.ele(NS.cbc, 'cbc:UUID').txt(d.uuid);
  doc.ele(NS.cbc, 'cbc:IssueDate').txt(d.issueDate);
  if (!credit) doc.ele(NS.cbc, 'cbc:InvoiceTypeCode', { listAgencyID: '320', listID: 'urn:oioubl:codelist:invoicetypecode-1.1' }).txt('380');
  if (d.note) doc.ele(NS.cbc, 'cbc:Note').txt(d.note);
  doc.ele(NS.cbc, 'cbc:DocumentCurrencyCode').txt(d.currency);
  const groups = breakdown(d.lines);
  // The Danish VAT of an invoice in another currency is also stated in DKK, as the ledger posted it (each
  // group converted once): OIOUBL's TransactionCurrencyTaxAmount, on StandardRated subtotals only
  // (F-INV018, F-LIB373); a document without Danish VAT states none.
  const vatInDkk = d.currency !== 'DKK' && groups.some((g) => g.category === 'StandardRated');
  if (vatInDkk) doc.ele(NS.cbc, 'cbc:TaxCurrencyCode').txt('DKK');
  // The buyer's reference (EAN-addressed public buyers book by it): the invoice number stands in, as in the Peppol document.
  doc.ele(NS.cbc, 'cbc:AccountingCost').txt(d.buyerReference);
  if (d.credits) {
    const discrepancy = doc.ele(NS.cac, 'cac:DiscrepancyResponse');
    discrepancy.ele(NS.cbc, 'cbc:ReferenceID').txt(d.credits.number);
    discrepancy.ele(NS.cbc, 'cbc:Description').txt(`Kreditnota for faktura ${d.credits.number}`);
    const ref = doc.ele(NS.cac, 'cac:BillingReference').ele(NS.cac, 'cac:InvoiceDocumentReference');
    ref.ele(NS.cbc, 'cbc:ID').txt(d.credits.number);
    ref.ele(NS.cbc, 'cbc:IssueDate').txt(d.credits.issueDate);
  }
  if (d.pdf) {
    const ref = doc.ele(NS.cac, 'cac:AdditionalDocumentReference');
    ref.ele(NS.cbc, 'cbc:ID').txt(d.pdf.filename);
    ref.ele(NS.cbc, 'cbc:DocumentType').txt(credit ? 'Kreditnota (PDF)' : 'Faktura (PDF)');
    ref
      .ele(NS.cac, 'cac:Attachment')
      .ele(NS.cbc, 'cbc:EmbeddedDocumentBinaryObject', { mimeCode: 'application/pdf', encodingCode: 'Base64', filename: d.pdf.filename })
      .txt(d.pdf.content.toString('base64'));
  }
  partyXml(doc.ele(NS.cac, 'cac:AccountingSupplierParty'), d.seller, seller);
  // The buyer's contact (OIOUBL asks for one, with an ID: the buyer's reference, F-INV046, F-INV051): the
  // invoice number stands in, as for the Peppol document's BuyerReference.
  partyXml(doc.ele(NS.cac, 'cac:AccountingCustomerParty'), d.buyer, buyer, d.buyerReference);
  const tax = sumAmounts(groups.map((g) => g.tax));
  const net = sumAmounts(d.lines.map((l) => l.amount));
  if (!credit) paymentMeans(doc, d);
  const total = doc.ele(NS.cac, 'cac:TaxTotal');
  total.ele(NS.cbc, 'cbc:TaxAmount', cur).txt(money(tax));
  for (const g of groups) {
    const sub = total.ele(NS.cac, 'cac:TaxSubtotal');
    sub.ele(NS.cbc, 'cbc:TaxableAmount', cur).txt(money(g.taxable));
    sub.ele(NS.cbc, 'cbc:TaxAmount', cur).txt(money(g.tax));
    if (vatInDkk && g.category === 'StandardRated') sub.ele(NS.cbc, 'cbc:TransactionCurrencyTaxAmount', { currencyID: 'DKK' }).txt(money(toDkk(g.tax, d.rate)));
    taxCategory(sub, 'cac:TaxCategory', g.category, g.rate);
  }
  const monetary = doc.ele(NS.cac, 'cac:LegalMonetaryTotal');
  monetary.ele(NS.cbc, 'cbc:LineExtensionAmount', cur).txt(money(net));
  // OIOUBL's own meaning: TaxExclusiveAmount is the tax (the VAT), not the amount without it.
  monetary.ele(NS.cbc, 'cbc:TaxExclusiveAmount', cur).txt(money(tax));
  monetary.ele(NS.cbc, 'cbc:TaxInclusiveAmount', cur).txt(money(net.plus(tax)));
  monetary.ele(NS.cbc, 'cbc:PayableAmount', cur).txt(money(net.plus(tax)));
  d.lines.forEach((l, i) => {
    const line = doc.ele(NS.cac, credit ? 'cac:CreditNoteLine' : 'cac:InvoiceLine');
    line.ele(NS.cbc, 'cbc:ID').txt(String(i + 1));
    // The price is never negative: a discount line is a negative quantity at a positive price.
    const negative = l.unitPrice.isNegative();
    line
      .ele(NS.cbc, credit ? 'cbc:CreditedQuantity' : 'cbc:InvoicedQuantity', { unitCode: l.unit })
      .txt((negative ? l.quantity.negated() : l.quantity).toString());
    line.ele(NS.cbc, 'cbc:LineExtensionAmount', cur).txt(money(l.amount));
    linePeriodXml(line, l.period);
    // Each line states its own tax (OIOUBL asks for it, F-LIB404): the line's VAT as vat/arithmetic.ts
    // rounds a group's. The document's VAT is the groups' (above), as the invoice booked it.
    const lineTax = line.ele(NS.cac, 'cac:TaxTotal');
    const vat = groupVat(l.amount, l.vatRate);
    lineTax.ele(NS.cbc, 'cbc:TaxAmount', cur).txt(money(vat));
    const sub = lineTax.ele(NS.cac, 'cac:TaxSubtotal');
    sub.ele(NS.cbc, 'cbc:TaxableAmount', cur).txt(money(l.amount));
    sub.ele(NS.cbc, 'cbc:TaxAmount', cur).txt(money(vat));
    taxCategory(sub, 'cac:TaxCategory', oioublCategory(l.vatCode), l.vatRate);
    const item = line.ele(NS.cac, 'cac:Item');
    item.ele(NS.cbc, 'cbc:Description').txt(l.description);
    item.ele(NS.cbc, 'cbc:Name').txt(l.description.slice(0, 40));
    // OIOUBL's price is the net price (LineExtensionAmount is quantity × price, F-INV340): a discount is the
    // price's allowance, its fraction of the price before it (decision 669). To 4 decimals, so that the
    // quantity × price the rules compare comes to the line's amount.
    const gross = l.unitPrice.abs();
    const allowance = lineAllowance(l);
    const fraction = allowance?.percent.dividedBy(100);
    const net = fraction ? gross.minus(gross.times(fraction)) : gross;
    const price = line.ele(NS.cac, 'cac:Price');
    price.ele(NS.cbc, 'cbc:PriceAmount', cur).txt(unitAmount(net));
    price.ele(NS.cbc, 'cbc:BaseQuantity', { unitCode: l.unit }).txt('1');
    if (fraction) {
      const a = price.ele(NS.cac, 'cac:AllowanceCharge');
      a.ele(NS.cbc, 'cbc:ChargeIndicator').txt('false');
      a.ele(NS.cbc, 'cbc:AllowanceChargeReason').txt('Rabat');
      a.ele(NS.cbc, 'cbc:MultiplierFactorNumeric').txt(fraction.toString());
      a.ele(NS.cbc, 'cbc:Amount', cur).txt(unitAmount(gross.minus(net)));
      a.ele(NS.cbc, 'cbc:BaseAmount', cur).txt(money(gross));
    }
  });
  return doc.end({ prettyPrint: false });
}

/**
 * How the seller is paid, in OIOUBL's terms: an invoice with an FI payment id by FIK (93, channel
 * DK:FIK, PaymentID 71, the 15-digit id as InstructionID, the creditor number as CreditAccount);
 * otherwise a Danish bank account by transfer (42, channel DK:BANK, the registration number as the
 * branch): the company's own, or the one a Danish IBAN holds (decision 668).
 */
function paymentMeans(doc: XMLBuilder, d: UblDocument) {
  const means = (code: string) => {
    const m = doc.ele(NS.cac, 'cac:PaymentMeans');
    m.ele(NS.cbc, 'cbc:ID').txt('1');
    m.ele(NS.cbc, 'cbc:PaymentMeansCode').txt(code);
    m.ele(NS.cbc, 'cbc:PaymentDueDate').txt(d.dueDate);
    return m;
  };
  if (d.fi) {
    const fik = means('93');
    fik.ele(NS.cbc, 'cbc:PaymentChannelCode', CHANNEL).txt('DK:FIK');
    fik.ele(NS.cbc, 'cbc:InstructionID').txt(d.fi.paymentId);
    fik.ele(NS.cbc, 'cbc:PaymentID', PAYMENT_ID).txt('71');
    fik.ele(NS.cac, 'cac:CreditAccount').ele(NS.cbc, 'cbc:AccountID').txt(d.fi.creditorNumber);
    return;
  }
  const { regNumber, accountNumber, iban } = d.bank;
  const danish = /^DK\d{16}$/.test(iban) ? { reg: iban.slice(4, 8), account: iban.slice(8) } : null;
  const reg = regNumber && accountNumber ? regNumber : danish?.reg;
  const account = regNumber && accountNumber ? accountNumber : danish?.account;
  if (!reg || !account) return;
  const bank = means('42');
  bank.ele(NS.cbc, 'cbc:PaymentChannelCode', CHANNEL).txt('DK:BANK');
  const payee = bank.ele(NS.cac, 'cac:PayeeFinancialAccount');
  payee.ele(NS.cbc, 'cbc:ID').txt(account);
  payee.ele(NS.cbc, 'cbc:PaymentNote').txt(d.number);
  payee.ele(NS.cac, 'cac:FinancialInstitutionBranch').ele(NS.cbc, 'cbc:ID').txt(reg);
}
