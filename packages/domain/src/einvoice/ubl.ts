// An approved invoice, or the credit note that cancelled it, as a Peppol BIS Billing 3.0 document (UBL
// 2.1 Invoice or CreditNote): the parties with their endpoint ids, CVR and VAT numbers, the lines, the VAT
// breakdown per category (from the lines' VAT codes), the totals, payment means and terms, the PDF
// embedded, and the VAT also in DKK when the invoice is in another currency. Elements are written in
// the order the UBL schema fixes. "Valid" is what the official rules say (validate.ts), not this file.
import type { Db } from '@tlr/db';
import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';
import { Decimal, lineNet, sumAmounts } from '../money.ts';
import { vatByGroup } from '../vat/arithmetic.ts';
import { toDkk } from '../currency/rules.ts';
import { VAT_CODES, type VatKind } from '../vat/codes.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError } from '../errors.ts';
import { invoiceDocument, linePeriod, renderInvoicePdf, type LinePeriod } from '../invoices/pdf.ts';
import { fullInvoiceInclude } from '../invoices/views.ts';
import { companyPeppolId, peppolIdOfVatNumber } from '../identifiers/peppol-id.ts';
import { fiUblPaymentId } from '../identifiers/fi-payment.ts';

const NS = {
  Invoice: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
  CreditNote: 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2',
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
} as const;
const CUSTOMIZATION_ID = 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0';
const PROFILE_ID = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';

export interface UblParty {
  name: string;
  street: string;
  additionalStreet: string;
  city: string;
  postalCode: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  cvr: string;
  /** EU VAT number with its country prefix (DK12345674); '' when none. */
  vatNumber: string;
  /** Peppol participant id `<scheme>:<id>`; '' when the party has none. */
  endpoint: string;
  email: string;
}

export interface UblLine {
  description: string;
  quantity: Decimal;
  unitPrice: Decimal;
  amount: Decimal;
  vatCode: string;
  vatRate: Decimal;
  /** The unit of the quantity (UN/ECE Recommendation 20), C62 by default. */
  unit: string;
  /** The discount in percent; 0 for none. */
  discountPercent: Decimal;
  /** An accrued line's period (BG-26, the line's InvoicePeriod; decision 879); none when not accrued. */
  period?: LinePeriod | null | undefined;
}

/** The line's period (BG-26) after its LineExtensionAmount, as UBL 2.1 orders a line: both writers' (decision 879). */
export function linePeriodXml(line: XMLBuilder, period: LinePeriod | null | undefined) {
  if (!period) return;
  const p = line.ele(NS.cac, 'cac:InvoicePeriod');
  p.ele(NS.cbc, 'cbc:StartDate').txt(period.start);
  p.ele(NS.cbc, 'cbc:EndDate').txt(period.end);
}

/**
 * A discounted line's allowance: the percent, the amount before it (quantity × price rounded to øre) and
 * the discount (that less the line's amount, as invoices/rules.ts's lineAmount made it); null without one.
 */
export function lineAllowance(l: UblLine): { percent: Decimal; base: Decimal; amount: Decimal } | null {
  if (l.discountPercent.isZero()) return null;
  const base = lineNet(l.quantity, l.unitPrice);
  return { percent: l.discountPercent, base, amount: base.minus(l.amount) };
}

export interface UblDocument {
  kind: 'invoice' | 'credit_note';
  /** A UUID of this document (each rendering of a document carries the same one). */
  uuid: string;
  number: string;
  issueDate: string;
  dueDate: string;
  /** A credit note: the invoice it credits. */
  credits: { number: string; issueDate: string } | null;
  currency: string;
  /** DKK per unit of `currency`; 1 for DKK. */
  rate: Decimal;
  note: string;
  buyerReference: string;
  seller: UblParty;
  buyer: UblParty;
  lines: UblLine[];
  bank: { regNumber: string; accountNumber: string; iban: string };
  /** The invoice's FI +71 payment id and the creditor number frozen with it; null without one. */
  fi: { paymentId: string; creditorNumber: string } | null;
  paymentTermsDays: number;
  /** The PDF of the document, embedded as an AdditionalDocumentReference. */
  pdf: { filename: string; content: Buffer } | null;
}

/** Peppol's VAT category of each treatment (UNCL5305), with the exemption reason the rules ask for. */
const CATEGORY: Record<VatKind, { id: string; reasonCode?: string; reason?: string } | undefined> = {
  output: { id: 'S' },
  exempt_sale: { id: 'E', reason: 'Momsfritaget (momslovens § 13)' },
  eu_sale_goods: { id: 'K', reasonCode: 'VATEX-EU-IC', reason: 'Intra-community supply' },
  eu_sale_goods_unlisted: { id: 'K', reasonCode: 'VATEX-EU-IC', reason: 'Intra-community supply' },
  eu_sale_services: { id: 'AE', reasonCode: 'VATEX-EU-AE', reason: 'Reverse charge' },
  export: { id: 'G', reasonCode: 'VATEX-EU-G', reason: 'Export outside the EU' },
  domestic_reverse_charge_sale: { id: 'AE', reasonCode: 'VATEX-EU-AE', reason: 'Omvendt betalingspligt (momslovens § 46)' },
  input: undefined,
  exempt_purchase: undefined,
  eu_purchase_goods: undefined,
  eu_purchase_services: undefined,
  import_goods: undefined,
  foreign_purchase_services: undefined,
  domestic_reverse_charge_purchase: undefined,
};

/** The Peppol VAT category of a sales code (the seeded codes are the company's). */
export function vatCategory(code: string): { id: string; reasonCode?: string; reason?: string } {
  const kind = VAT_CODES.find((c) => c.code === code)?.kind;
  const category = kind && CATEGORY[kind];
  if (!category) throw new Error(`no Peppol VAT category for code ${code}`);
  return category;
}

interface Subtotal {
  category: ReturnType<typeof vatCategory>;
  rate: Decimal;
  taxable: Decimal;
  tax: Decimal;
}

/**
 * The VAT breakdown per category and rate (BG-23): the lines' amounts summed per group, the VAT of each
 * group rounded half up once (BR-CO-17), as the invoice itself computed it per code: one code per group
 * for the taxed category (S25), and no VAT in the others, so the figures are the invoice's own.
 */
function breakdown(lines: readonly UblLine[]): Subtotal[] {
  const categorised = lines.map((l) => ({ net: l.amount, rate: l.vatRate, category: vatCategory(l.vatCode) }));
  return vatByGroup(categorised, (l) => `${l.category.id}|${l.rate.toFixed(2)}`).map((g) => ({
    category: g.first.category,
    rate: g.rate,
    taxable: g.net,
    tax: g.vat,
  }));
}

const money = (d: Decimal) => d.toFixed(2);
/** A rate as UBL writes it: 25, 12.5, 0. */
const percent = (d: Decimal) => d.toString();

/** `<scheme>:<id>` as an element with its schemeID attribute. */
function endpoint(party: XMLBuilder, id: string) {
  const i = id.indexOf(':');
  party.ele(NS.cbc, 'cbc:EndpointID', { schemeID: id.slice(0, i) }).txt(id.slice(i + 1));
}

function partyXml(parent: XMLBuilder, p: UblParty) {
  const party = parent.ele(NS.cac, 'cac:Party');
  if (p.endpoint) endpoint(party, p.endpoint);
  party.ele(NS.cac, 'cac:PartyName').ele(NS.cbc, 'cbc:Name').txt(p.name);
  const address = party.ele(NS.cac, 'cac:PostalAddress');
  if (p.street) address.ele(NS.cbc, 'cbc:StreetName').txt(p.street);
  if (p.additionalStreet) address.ele(NS.cbc, 'cbc:AdditionalStreetName').txt(p.additionalStreet);
  if (p.city) address.ele(NS.cbc, 'cbc:CityName').txt(p.city);
  if (p.postalCode) address.ele(NS.cbc, 'cbc:PostalZone').txt(p.postalCode);
  address
    .ele(NS.cac, 'cac:Country')
    .ele(NS.cbc, 'cbc:IdentificationCode')
    .txt(p.country || 'DK');
  if (p.vatNumber) {
    const tax = party.ele(NS.cac, 'cac:PartyTaxScheme');
    tax.ele(NS.cbc, 'cbc:CompanyID').txt(p.vatNumber);
    tax.ele(NS.cac, 'cac:TaxScheme').ele(NS.cbc, 'cbc:ID').txt('VAT');
  }
  const legal = party.ele(NS.cac, 'cac:PartyLegalEntity');
  legal.ele(NS.cbc, 'cbc:RegistrationName').txt(p.name);
  if (p.cvr) legal.ele(NS.cbc, 'cbc:CompanyID', { schemeID: '0184' }).txt(p.cvr);
  if (p.email) party.ele(NS.cac, 'cac:Contact').ele(NS.cbc, 'cbc:ElectronicMail').txt(p.email);
}

function taxCategory(
  parent: XMLBuilder,
  name: 'cac:TaxCategory' | 'cac:ClassifiedTaxCategory',
  category: Subtotal['category'],
  rate: Decimal,
  reasons: boolean,
) {
  const c = parent.ele(NS.cac, name);
  c.ele(NS.cbc, 'cbc:ID').txt(category.id);
  c.ele(NS.cbc, 'cbc:Percent').txt(percent(rate));
  if (reasons && category.reasonCode) c.ele(NS.cbc, 'cbc:TaxExemptionReasonCode').txt(category.reasonCode);
  if (reasons && category.reason) c.ele(NS.cbc, 'cbc:TaxExemptionReason').txt(category.reason);
  c.ele(NS.cac, 'cac:TaxScheme').ele(NS.cbc, 'cbc:ID').txt('VAT');
}

/** The document as Peppol BIS Billing 3.0 UBL. */
export function ublXml(d: UblDocument): string {
  const credit = d.kind === 'credit_note';
  const root = credit ? 'CreditNote' : 'Invoice';
  const cur = { currencyID: d.currency };
  const doc = create({ version: '1.0', encoding: 'UTF-8' }).ele(NS[root], root).att('xmlns:cac', NS.cac).att('xmlns:cbc', NS.cbc);
  doc.ele(NS.cbc, 'cbc:CustomizationID').txt(CUSTOMIZATION_ID);
  doc.ele(NS.cbc, 'cbc:ProfileID').txt(PROFILE_ID);
  doc.ele(NS.cbc, 'cbc:ID').txt(d.number);
  doc.ele(NS.cbc, 'cbc:UUID').txt(d.uuid);
  doc.ele(NS.cbc, 'cbc:IssueDate').txt(d.issueDate);
  if (!credit) doc.ele(NS.cbc, 'cbc:DueDate').txt(d.dueDate);
  doc.ele(NS.cbc, credit ? 'cbc:CreditNoteTypeCode' : 'cbc:InvoiceTypeCode').txt(credit ? '381' : '380');
  if (d.note) doc.ele(NS.cbc, 'cbc:Note').txt(d.note);
  doc.ele(NS.cbc, 'cbc:DocumentCurrencyCode').txt(d.currency);
  if (d.currency !== 'DKK') doc.ele(NS.cbc, 'cbc:TaxCurrencyCode').txt('DKK');
  doc.ele(NS.cbc, 'cbc:BuyerReference').txt(d.buyerReference);
  if (d.credits) {
    const ref = doc.ele(NS.cac, 'cac:BillingReference').ele(NS.cac, 'cac:InvoiceDocumentReference');
    ref.ele(NS.cbc, 'cbc:ID').txt(d.credits.number);
    ref.ele(NS.cbc, 'cbc:IssueDate').txt(d.credits.issueDate);
  }
  if (d.pdf) {
    const ref = doc.ele(NS.cac, 'cac:AdditionalDocumentReference');
    ref.ele(NS.cbc, 'cbc:ID').txt(d.pdf.filename);
    ref
      .ele(NS.cac, 'cac:Attachment')
      .ele(NS.cbc, 'cbc:EmbeddedDocumentBinaryObject', { mimeCode: 'application/pdf', filename: d.pdf.filename })
      .txt(d.pdf.content.toString('base64'));
  }
  partyXml(doc.ele(NS.cac, 'cac:AccountingSupplierParty'), d.seller);
  partyXml(doc.ele(NS.cac, 'cac:AccountingCustomerParty'), d.buyer);
  const groups = breakdown(d.lines);
  // An intra-community supply names where the goods went and when (BR-IC-11, BR-IC-12).
  if (groups.some((g) => g.category.id === 'K')) {
    const delivery = doc.ele(NS.cac, 'cac:Delivery');
    delivery.ele(NS.cbc, 'cbc:ActualDeliveryDate').txt(d.issueDate);
    delivery
      .ele(NS.cac, 'cac:DeliveryLocation')
      .ele(NS.cac, 'cac:Address')
      .ele(NS.cac, 'cac:Country')
      .ele(NS.cbc, 'cbc:IdentificationCode')
      .txt(d.buyer.country || 'DK');
  }
  if (!credit) paymentMeans(doc, d);
  doc
    .ele(NS.cac, 'cac:PaymentTerms')
    .ele(NS.cbc, 'cbc:Note')
    .txt(credit ? `Kreditnota for faktura ${d.credits?.number ?? ''}`.trim() : `Netto ${d.paymentTermsDays} dage`);
  const tax = sumAmounts(groups.map((g) => g.tax));
  const total = doc.ele(NS.cac, 'cac:TaxTotal');
  total.ele(NS.cbc, 'cbc:TaxAmount', cur).txt(money(tax));
  for (const g of groups) {
    const sub = total.ele(NS.cac, 'cac:TaxSubtotal');
    sub.ele(NS.cbc, 'cbc:TaxableAmount', cur).txt(money(g.taxable));
    sub.ele(NS.cbc, 'cbc:TaxAmount', cur).txt(money(g.tax));
    taxCategory(sub, 'cac:TaxCategory', g.category, g.rate, true);
  }
  // The VAT in DKK (BT-111), as the ledger posted it: each group converted once.
  if (d.currency !== 'DKK') {
    doc
      .ele(NS.cac, 'cac:TaxTotal')
      .ele(NS.cbc, 'cbc:TaxAmount', { currencyID: 'DKK' })
      .txt(money(sumAmounts(groups.map((g) => toDkk(g.tax, d.rate)))));
  }
  const net = sumAmounts(d.lines.map((l) => l.amount));
  const monetary = doc.ele(NS.cac, 'cac:LegalMonetaryTotal');
  monetary.ele(NS.cbc, 'cbc:LineExtensionAmount', cur).txt(money(net));
  monetary.ele(NS.cbc, 'cbc:TaxExclusiveAmount', cur).txt(money(net));
  monetary.ele(NS.cbc, 'cbc:TaxInclusiveAmount', cur).txt(money(net.plus(tax)));
  monetary.ele(NS.cbc, 'cbc:PayableAmount', cur).txt(money(net.plus(tax)));
  d.lines.forEach((l, i) => {
    const line = doc.ele(NS.cac, credit ? 'cac:CreditNoteLine' : 'cac:InvoiceLine');
    line.ele(NS.cbc, 'cbc:ID').txt(String(i + 1));
    // The price is never negative (BR-27): a discount line is a negative quantity at a positive price.
    const negative = l.unitPrice.isNegative();
    line
      .ele(NS.cbc, credit ? 'cbc:CreditedQuantity' : 'cbc:InvoicedQuantity', { unitCode: l.unit })
      .txt((negative ? l.quantity.negated() : l.quantity).toString());
    line.ele(NS.cbc, 'cbc:LineExtensionAmount', cur).txt(money(l.amount));
    linePeriodXml(line, l.period);
    // A discount is the line's allowance (BG-27): its percent of the amount before it (reason code 95, "Discount").
    const allowance = lineAllowance(l);
    if (allowance) {
      const a = line.ele(NS.cac, 'cac:AllowanceCharge');
      a.ele(NS.cbc, 'cbc:ChargeIndicator').txt('false');
      a.ele(NS.cbc, 'cbc:AllowanceChargeReasonCode').txt('95');
      a.ele(NS.cbc, 'cbc:AllowanceChargeReason').txt('Rabat');
      a.ele(NS.cbc, 'cbc:MultiplierFactorNumeric').txt(percent(allowance.percent));
      a.ele(NS.cbc, 'cbc:Amount', cur).txt(money(allowance.amount));
      a.ele(NS.cbc, 'cbc:BaseAmount', cur).txt(money(allowance.base));
    }
    const item = line.ele(NS.cac, 'cac:Item');
    item.ele(NS.cbc, 'cbc:Name').txt(l.description);
    taxCategory(item, 'cac:ClassifiedTaxCategory', vatCategory(l.vatCode), l.vatRate, false);
    line.ele(NS.cac, 'cac:Price').ele(NS.cbc, 'cbc:PriceAmount', cur).txt(money(l.unitPrice.abs()));
  });
  return doc.end({ prettyPrint: false });
}

/**
 * How the seller is paid (BG-16). An invoice with an FI payment id is paid by FIK (93): the +71 id as
 * `71#<id>` and the creditor number as the account (the Danish rules DK-R-010, DK-R-011), and nothing
 * else, as UBL allows one PaymentID and one payment means code per invoice (UBL-SR-44, UBL-SR-47;
 * decision 248). Otherwise by IBAN as a SEPA credit transfer (58), else by a Danish bank account (31,
 * the registration number as the branch), with the invoice number as the payment reference.
 */
function paymentMeans(doc: XMLBuilder, d: UblDocument) {
  if (d.fi) {
    const fik = doc.ele(NS.cac, 'cac:PaymentMeans');
    fik.ele(NS.cbc, 'cbc:PaymentMeansCode').txt('93');
    fik.ele(NS.cbc, 'cbc:PaymentID').txt(fiUblPaymentId(d.fi.paymentId));
    fik.ele(NS.cac, 'cac:PayeeFinancialAccount').ele(NS.cbc, 'cbc:ID').txt(d.fi.creditorNumber);
    return;
  }
  const { iban, regNumber, accountNumber } = d.bank;
  if (!iban && !(regNumber && accountNumber)) return;
  const means = doc.ele(NS.cac, 'cac:PaymentMeans');
  means.ele(NS.cbc, 'cbc:PaymentMeansCode').txt(iban ? '58' : '31');
  means.ele(NS.cbc, 'cbc:PaymentID').txt(d.number);
  const account = means.ele(NS.cac, 'cac:PayeeFinancialAccount');
  account.ele(NS.cbc, 'cbc:ID').txt(iban || accountNumber);
  if (!iban) account.ele(NS.cac, 'cac:FinancialInstitutionBranch').ele(NS.cbc, 'cbc:ID').txt(regNumber);
}

/**
 * A buyer's Peppol endpoint when it names none of its own (`peppol_id`): its GLN (EAN) location number,
 * else its CVR, else its EU VAT number in its country's scheme; '' when it has none of them.
 */
export function derivedEndpoint(p: { ean?: string; cvr: string; vatNumber?: string }): string {
  if (p.ean) return `0088:${p.ean}`;
  if (p.cvr) return `0184:${p.cvr}`;
  return p.vatNumber ? peppolIdOfVatNumber(p.vatNumber) : '';
}

/**
 * What the UBL of an approved invoice (or of its credit note) says, read in one snapshot: the buyer as
 * frozen at approval, the seller as the company profile is now (as the PDF prints it), and the PDF
 * (unless `pdf` is false: a reminder of the invoice carries none).
 */
export async function ublDocument(
  db: Db,
  scope: CompanyScope,
  id: string,
  kind: 'invoice' | 'credit_note',
  options: { pdf?: boolean } = {},
): Promise<{ document: UblDocument; filename: string }> {
  const pdf = await invoiceDocument(db, scope, id, kind);
  if (pdf.draft) throw new DomainError('invoice_not_approved', 'A draft has no number yet: approve the invoice to make its e-invoice.', 'id');
  const row = await db.invoice.findFirstOrThrow({ where: { id, company_id: scope.companyId }, include: fullInvoiceInclude });
  const company = await db.company.findUniqueOrThrow({ where: { id: scope.companyId } });
  const dec = (v: { toString(): string }) => new Decimal(v.toString());
  const cvr = company.cvr ?? '';
  const document: UblDocument = {
    kind,
    // Stable per document: the invoice's id, or its credit note's.
    uuid: kind === 'credit_note' ? row.credit_note!.id : row.id,
    number: pdf.number,
    issueDate: pdf.date,
    dueDate: pdf.due_date,
    credits: pdf.credits ? { number: pdf.credits.invoice_number, issueDate: pdf.credits.issue_date } : null,
    currency: row.currency,
    rate: row.exchange_rate ? dec(row.exchange_rate) : new Decimal(1),
    note: row.notes.slice(0, 1000),
    // Peppol asks for the buyer's reference or an order reference (PEPPOL-EN16931-R003): the invoice number stands in.
    buyerReference: row.invoice_number,
    seller: {
      name: company.name,
      street: company.address_line1,
      additionalStreet: company.address_line2,
      city: company.city,
      postalCode: company.postal_code,
      country: company.country,
      cvr,
      vatNumber: cvr ? `DK${cvr}` : '',
      endpoint: companyPeppolId(company),
      email: company.email,
    },
    buyer: {
      name: row.customer_name,
      street: row.customer_address_line1,
      additionalStreet: row.customer_address_line2,
      city: row.customer_city,
      postalCode: row.customer_postal_code,
      country: row.customer_country || 'DK',
      cvr: row.customer_country === 'DK' || !row.customer_country ? row.customer_cvr : '',
      vatNumber: row.customer_vat_number || (row.customer_cvr && (row.customer_country || 'DK') === 'DK' ? `DK${row.customer_cvr}` : ''),
      endpoint: row.customer_peppol_id || derivedEndpoint({ ean: row.customer_ean, cvr: row.customer_cvr, vatNumber: row.customer_vat_number }),
      email: '',
    },
    lines: row.lines.map((l) => ({
      description: l.description,
      quantity: dec(l.quantity),
      unitPrice: dec(l.unit_price),
      amount: dec(l.amount),
      vatCode: l.vat_code,
      vatRate: dec(l.vat_rate),
      unit: l.unit,
      discountPercent: dec(l.discount_percent),
      period: linePeriod(l),
    })),
    bank: { regNumber: company.bank_reg_number, accountNumber: company.bank_account_number, iban: company.iban },
    fi: kind === 'invoice' && row.payment_id ? { paymentId: row.payment_id, creditorNumber: row.fi_creditor_number } : null,
    paymentTermsDays: pdf.payment_terms_days,
    pdf: options.pdf === false ? null : { filename: pdf.filename, content: await renderInvoicePdf(pdf) },
  };
  // Peppol addresses both parties (PEPPOL-EN16931-R010, R020): without an id there is no e-invoice to make.
  for (const [who, party] of [
    ['seller', document.seller],
    ['buyer', document.buyer],
  ] as const) {
    if (!party.endpoint) {
      throw new DomainError(
        'einvoice_party_unaddressable',
        who === 'seller'
          ? 'The company has neither a peppol_id nor a CVR number: set one (PUT /settings/company) to address its e-invoices.'
          : `The buyer ${party.name} has no Peppol id, EAN, CVR or EU VAT number to address an e-invoice to.`,
        who === 'seller' ? undefined : 'customer_id',
      );
    }
  }
  return { document, filename: pdf.filename.replace(/\.pdf$/, '.xml') };
}
