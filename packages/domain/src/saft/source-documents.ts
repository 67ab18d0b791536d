// SourceDocuments/SalesInvoices of the SAF-T file: every invoice issued in the period (numbered, in any
// status since: an approved invoice is a document for good) and every credit note dated in it, in
// document number order, each cross-referenced to its general ledger posting (TransactionID = the
// document number, SystemID). Read in keyset batches inside the export's snapshot, like the journal.
import type { PoolClient } from '@tlr/db';
import { invoiceTotals } from '../invoices/rules.ts';
import { Decimal } from '../money.ts';
import { toDkk } from '../currency/rules.ts';
import { addressXml, xml, type XmlObject } from './master-files.ts';
import { accountingPeriod, compactId, fit, SAFT_TEXT, type SaftPeriod } from './rules.ts';

/** InvoiceType codes (the schema leaves them to us, at most 9 characters). */
const SAFT_INVOICE_TYPES = { invoice: 'Faktura', creditNote: 'Kredit' } as const;

const TOTALS_SQL = `
SELECT (SELECT count(*) FROM invoices WHERE company_id = $1 AND document_number IS NOT NULL AND issue_date BETWEEN $2::date AND $3::date)::int
     + (SELECT count(*) FROM credit_notes WHERE company_id = $1 AND date BETWEEN $2::date AND $3::date)::int AS entries,
       (SELECT COALESCE(sum(round(subtotal * COALESCE(exchange_rate, 1), 2)), 0) FROM invoices WHERE company_id = $1 AND document_number IS NOT NULL AND issue_date BETWEEN $2::date AND $3::date)::numeric(20,2)::text AS credit,
       (SELECT COALESCE(sum(round(i.subtotal * COALESCE(i.exchange_rate, 1), 2)), 0) FROM credit_notes n JOIN invoices i ON i.id = n.invoice_id
         WHERE n.company_id = $1 AND n.date BETWEEN $2::date AND $3::date)::numeric(20,2)::text AS debit`;

// Invoices and credit notes share the unified number sequence, so document_number orders and pages both.
const DOCUMENTS_SQL = `
SELECT d.*, t.system_id::text AS system_id, to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS posted_on
FROM (
  SELECT i.id AS invoice_id, false AS credit_note, i.document_number, to_char(i.issue_date, 'YYYY-MM-DD') AS date,
         i.posted_transaction_id AS transaction_id, i.invoice_number, (i.due_date - i.issue_date) AS terms_days,
         i.customer_id, i.customer_name, i.customer_address_line1 AS address_line1, i.customer_address_line2 AS address_line2,
         i.customer_postal_code AS postal_code, i.customer_city AS city, i.customer_country AS country,
         i.subtotal::text AS net, i.total::text AS gross, i.currency, COALESCE(i.exchange_rate, 1)::text AS rate
  FROM invoices i
  WHERE i.company_id = $1 AND i.document_number IS NOT NULL AND i.issue_date BETWEEN $2::date AND $3::date AND i.document_number > $4
  UNION ALL
  SELECT i.id, true, n.document_number, to_char(n.date, 'YYYY-MM-DD'), n.transaction_id, i.invoice_number, (i.due_date - i.issue_date),
         i.customer_id, i.customer_name, i.customer_address_line1, i.customer_address_line2,
         i.customer_postal_code, i.customer_city, i.customer_country, i.subtotal::text, i.total::text, i.currency, COALESCE(i.exchange_rate, 1)::text
  FROM credit_notes n JOIN invoices i ON i.id = n.invoice_id
  WHERE n.company_id = $1 AND n.date BETWEEN $2::date AND $3::date AND n.document_number > $4
) d
JOIN ledger_transactions t ON t.id = d.transaction_id
ORDER BY d.document_number
LIMIT $5`;

const LINES_SQL = `
SELECT l.invoice_id, l.line_number, a.account_number, l.description, l.quantity::text AS quantity, l.unit_price::text AS unit_price,
       l.vat_rate::text AS vat_rate, l.vat_code, l.discount_percent::text AS discount_percent, l.amount::text AS amount, p.product_number, p.unit,
       l.dimensions
FROM invoice_lines l
LEFT JOIN accounts a ON a.id = l.account_id
LEFT JOIN products p ON p.id = l.product_id
WHERE l.invoice_id = ANY($1::uuid[])
ORDER BY l.invoice_id, l.line_number`;

interface DocumentRow {
  invoice_id: string;
  credit_note: boolean;
  document_number: string;
  date: string;
  invoice_number: string;
  terms_days: number;
  customer_id: string | null;
  customer_name: string;
  address_line1: string;
  address_line2: string;
  postal_code: string;
  city: string;
  country: string;
  net: string;
  gross: string;
  /** The invoice's currency and its rate (DKK per unit; 1 for DKK): SAF-T's amounts are DKK, with the currency's beside them. */
  currency: string;
  rate: string;
  system_id: string;
  posted_on: string;
}

interface LineRow {
  invoice_id: string;
  line_number: number;
  account_number: string | null;
  description: string;
  quantity: string;
  unit_price: string;
  vat_rate: string;
  vat_code: string;
  discount_percent: string;
  amount: string;
  product_number: string | null;
  unit: string | null;
  /** The line's dimensions by name and value code ({"Projekt": "A"}), as the invoice line stores them. */
  dimensions: Record<string, string> | null;
}

/**
 * The AnalysisType of each dimension by its name (fixed once created, decision 580), in the order the
 * AnalysisTypeTable lists the dimensions: what an invoice line's Analysis names (decision 840).
 */
export type InvoiceAnalysisTypes = ReadonlyMap<string, string>;

const TIME_UNITS = /^(t|time|timer|h|hour|hours|dag|dage|day|days|md|mdr|måned|måneder|month|months)$/i;

/**
 * Goods or Services (GoodsServicesID). Lines carry no such flag yet: a product sold per time unit
 * (time, dag, måned) is a service, another product goods, a free-text line a service.
 */
const goodsOrServices = (productUnit: string | null) => (productUnit === null || TIME_UNITS.test(productUnit.trim()) ? 'Services' : 'Goods');

/** An amount of the document in DKK (Amount) and in its own currency, each line converted once (decision 191). */
const amount = (value: string, d: Pick<DocumentRow, 'currency' | 'rate'>): XmlObject => ({
  Amount: dkk(value, d),
  CurrencyCode: d.currency,
  CurrencyAmount: value,
  ExchangeRate: d.rate,
});
const dkk = (value: string, d: Pick<DocumentRow, 'rate'>) => toDkk(new Decimal(value), new Decimal(d.rate)).toFixed(2);

/** One Invoice element (a sales invoice, or a credit note crediting one). */
function salesInvoiceXml(d: DocumentRow, lines: readonly LineRow[], fiscalYearStartMonth: number, analysisTypes: InvoiceAnalysisTypes): XmlObject {
  const { period, year } = accountingPeriod(d.date, fiscalYearStartMonth);
  const groups = invoiceTotals(
    lines.map((l) => ({
      quantity: new Decimal(l.quantity),
      unitPrice: new Decimal(l.unit_price),
      vatRate: new Decimal(l.vat_rate),
      vatCode: l.vat_code,
      discountPercent: new Decimal(l.discount_percent),
    })),
  ).byRate;
  return {
    InvoiceNo: String(d.document_number),
    CustomerInfo: {
      ...(d.customer_id ? { CustomerID: compactId(d.customer_id) } : { Name: fit(d.customer_name, SAFT_TEXT.middle2) }),
      BillingAddress: addressXml(d),
    },
    Period: String(period),
    PeriodYear: String(year),
    InvoiceDate: d.date,
    InvoiceType: d.credit_note ? SAFT_INVOICE_TYPES.creditNote : SAFT_INVOICE_TYPES.invoice,
    ...(d.credit_note ? {} : { PaymentTerms: `Netto ${d.terms_days} dage` }),
    GLPostingDate: d.posted_on,
    SystemID: d.system_id,
    TransactionID: String(d.document_number),
    Line: lines.map((l) => ({
      LineNumber: String(l.line_number),
      AccountID: l.account_number ?? '',
      ...lineAnalysis(l, d, analysisTypes),
      GoodsServicesID: goodsOrServices(l.unit),
      ...(l.product_number ? { ProductCode: fit(l.product_number, SAFT_TEXT.middle2) } : {}),
      Quantity: l.quantity,
      ...(l.unit ? { InvoiceUOM: fit(l.unit, SAFT_TEXT.code) } : {}),
      UnitPrice: dkk(l.unit_price, d),
      ...(d.credit_note ? { References: { CreditNote: { Reference: fit(d.invoice_number, SAFT_TEXT.middle1) } } } : {}),
      // The schema needs a description; a line without one is described by its invoice.
      Description: fit(l.description || `Faktura ${d.invoice_number}`, SAFT_TEXT.long),
      InvoiceLineAmount: amount(l.amount, d),
      // A sale credits revenue; its credit note debits it back (the general ledger's sides).
      DebitCreditIndicator: d.credit_note ? 'D' : 'C',
    })),
    DocumentTotals: {
      TaxInformationTotals: groups.map((g) => ({
        TaxType: 'VAT',
        TaxCode: g.code,
        TaxPercentage: g.rate.toFixed(2),
        TaxBase: dkk(g.net.toFixed(2), d),
        TaxAmount: amount(g.vat.toFixed(2), d),
      })),
      NetTotal: dkk(d.net, d),
      GrossTotal: dkk(d.gross, d),
    },
  };
}

/**
 * An invoice line's dimensions as Analysis (decision 840), as its revenue line in the journal carries them
 * (decision 586): one per value, in the AnalysisTypeTable's order of the dimensions, AnalysisAmount the
 * line's whole amount with InvoiceLineAmount's currency triplet. Nothing for a line without dimensions.
 */
function lineAnalysis(l: LineRow, d: DocumentRow, analysisTypes: InvoiceAnalysisTypes): XmlObject {
  if (!l.dimensions) return {};
  const analysis = [...analysisTypes]
    .filter(([name]) => l.dimensions![name] !== undefined)
    .map(([name, type]) => ({ AnalysisType: type, AnalysisID: l.dimensions![name]!, AnalysisAmount: amount(l.amount, d) }));
  return analysis.length ? { Analysis: analysis } : {};
}

/**
 * Writes SourceDocuments/SalesInvoices when the period has invoices or credit notes (the element is
 * optional, and empty it would say nothing), `open` first (it opens SourceDocuments, which the export
 * closes after its other parts). `write` is the export's backpressured writer.
 */
export async function writeSalesInvoices(
  client: PoolClient,
  write: (chunk: string) => Promise<void>,
  companyId: string,
  { from, to }: SaftPeriod,
  fiscalYearStartMonth: number,
  batch: number,
  open: () => Promise<void>,
  analysisTypes: InvoiceAnalysisTypes = new Map(),
): Promise<number> {
  const { rows } = await client.query<{ entries: number; debit: string; credit: string }>(TOTALS_SQL, [companyId, from, to]);
  const totals = rows[0]!;
  if (totals.entries === 0) return 0;
  await open();
  await write(
    `<SalesInvoices><NumberOfEntries>${totals.entries}</NumberOfEntries>` +
      `<TotalDebit>${totals.debit}</TotalDebit><TotalCredit>${totals.credit}</TotalCredit>`,
  );
  let after = '0';
  let written = 0;
  for (;;) {
    const { rows: documents } = await client.query<DocumentRow>(DOCUMENTS_SQL, [companyId, from, to, after, batch]);
    if (documents.length === 0) break;
    const { rows: lines } = await client.query<LineRow>(LINES_SQL, [[...new Set(documents.map((d) => d.invoice_id))]]);
    const byInvoice = Map.groupBy(lines, (l) => l.invoice_id);
    await write(xml({ Invoice: documents.map((d) => salesInvoiceXml(d, byInvoice.get(d.invoice_id) ?? [], fiscalYearStartMonth, analysisTypes)) }));
    written += documents.length;
    after = documents[documents.length - 1]!.document_number;
    if (documents.length < batch) break;
  }
  if (written !== totals.entries) throw new Error(`SAF-T SalesInvoices disagrees with its header: ${written} documents, header ${totals.entries}`);
  await write('</SalesInvoices>');
  return written;
}
