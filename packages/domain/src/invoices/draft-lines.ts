// A draft's content as creating and updating check and store it: the lines resolved against products and
// VAT codes with their amounts, the currency and rate, the dates, the customer.
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { invalidRequest } from '../errors.ts';
import { newId } from '../ids.ts';
import { Decimal, decimalOf } from '../money.ts';
import { INVOICE_VAT_RATES, invoiceTotals } from './rules.ts';
import { DEFAULT_SALES_CODE } from '../vat/codes.ts';
import { codeFor, vatCodesOf } from '../vat/treatments.ts';
import { givenRate } from '../currency/convert.ts';
import type { InvoiceInput } from './schema.ts';
import { liveCustomer } from './invoice-rows.ts';
import { DEFAULT_LINE_UNIT } from './units.ts';
import { checkDocumentDimensions } from '../dimensions/catalogue.ts';
import { accrualColumns } from '../accruals/rules.ts';

/** A draft's lines as stored: product defaults applied, VAT codes and rates checked, amounts computed. */
export async function resolveLines(db: Db, scope: CompanyScope, lines: InvoiceInput['lines']) {
  // Most invoices name no code (vat_rate 25 or 0 stand for S25 and S0): then nothing is read.
  const codes = await vatCodesOf(
    db,
    scope,
    lines.flatMap((l) => (l.vat_code ? [l.vat_code] : [])),
  );
  const productIds = [...new Set(lines.flatMap((l) => (l.product_id ? [l.product_id] : [])))];
  const products = new Map(
    (productIds.length ? await db.product.findMany({ where: { company_id: scope.companyId, deleted_at: null, id: { in: productIds } } }) : []).map((p) => [
      p.id,
      p,
    ]),
  );
  // Checked as the draft is saved; the journal writer checks them again when the approval posts them.
  await checkDocumentDimensions(
    db,
    scope.companyId,
    lines.map((l, i) => ({ dimensions: l.dimensions, field: `lines[${i}].dimensions` })),
  );
  const resolved = lines.map((l, i) => ({
    ...resolveLine(l, i),
    dimensions: l.dimensions && Object.keys(l.dimensions).length ? l.dimensions : null,
    accrual: l.accrual ?? null,
  }));
  function resolveLine(l: InvoiceInput['lines'][number], i: number) {
    const product = l.product_id ? products.get(l.product_id) : undefined;
    // Another company's product is indistinguishable from one that does not exist.
    if (l.product_id && !product) throw invalidRequest(`No product ${l.product_id} in this company.`, `lines[${i}].product_id`);
    const description = l.description ?? product?.name ?? '';
    if (!description) throw invalidRequest('A line needs a description (or a product_id to take it from).', `lines[${i}].description`);
    const unitPrice = l.unit_price ?? (product ? decimalOf(product.unit_price) : undefined);
    const unit = l.unit ?? DEFAULT_LINE_UNIT;
    const discountPercent = l.discount_percent ?? new Decimal(0);
    if (!unitPrice) throw invalidRequest('A line needs a unit_price (or a product_id to take it from).', `lines[${i}].unit_price`);
    if (l.vat_code) {
      const code = codeFor(codes, l.vat_code, 'sale', `lines[${i}].vat_code`);
      if (l.vat_rate && !l.vat_rate.equals(code.rate)) {
        throw invalidRequest(
          `VAT code ${code.code} carries ${code.rate.toString()} %, not ${l.vat_rate.toString()}; send one of them.`,
          `lines[${i}].vat_rate`,
        );
      }
      return { productId: product?.id ?? null, description, quantity: l.quantity, unitPrice, vatRate: code.rate, vatCode: code.code, unit, discountPercent };
    }
    const vatRate = l.vat_rate ?? (product ? decimalOf(product.vat_rate) : new Decimal(25));
    if (!INVOICE_VAT_RATES.some((r) => vatRate.equals(r))) {
      throw invalidRequest(`A Danish invoice line carries VAT at 25 or 0 percent, not ${vatRate.toString()}.`, `lines[${i}].vat_rate`);
    }
    return {
      productId: product?.id ?? null,
      description,
      quantity: l.quantity,
      unitPrice,
      vatRate,
      vatCode: DEFAULT_SALES_CODE[vatRate.toFixed(2)]!,
      unit,
      discountPercent,
    };
  }
  const totals = invoiceTotals(resolved);
  if (totals.total.isNegative()) {
    throw invalidRequest('An invoice total cannot be negative; an approved invoice is cancelled with a credit note instead.', 'lines');
  }
  return { lines: resolved, totals };
}

export type ResolvedLines = Awaited<ReturnType<typeof resolveLines>>;

export function lineRows(scope: CompanyScope, invoiceId: string, { lines, totals }: ResolvedLines) {
  return lines.map((l, i) => ({
    id: newId(),
    company_id: scope.companyId,
    invoice_id: invoiceId,
    line_number: i + 1,
    product_id: l.productId,
    description: l.description,
    quantity: l.quantity.toFixed(),
    unit_price: l.unitPrice.toFixed(2),
    vat_rate: l.vatRate.toFixed(2),
    vat_code: l.vatCode,
    unit: l.unit,
    discount_percent: l.discountPercent.toFixed(2),
    amount: totals.amounts[i]!.toFixed(2),
    dimensions: l.dimensions,
    ...accrualColumns(l.accrual),
  }));
}

export const draftAmounts = ({ totals }: ResolvedLines) => ({
  subtotal: totals.subtotal.toFixed(2),
  vat_amount: totals.vat.toFixed(2),
  total: totals.total.toFixed(2),
});

/** A draft's currency and the rate it names (null: fixed at approval from the rate table). */
export const checkCurrency = (currency: string, rate: Decimal | null | undefined) => ({ currency, rate: givenRate(currency, rate) });

export function checkDates(issue: string, due: string) {
  if (due < issue) throw invalidRequest(`The due date ${due} is before the issue date ${issue}.`, 'due_date');
}

export async function customerOf(db: Db, scope: CompanyScope, customerId: string | null | undefined) {
  if (!customerId) return { fields: { customer_id: null, customer_name: '' }, customer: null };
  const customer = await liveCustomer(db, scope, customerId);
  if (!customer) throw invalidRequest(`No customer ${customerId} in this company.`, 'customer_id');
  return { fields: { customer_id: customer.id, customer_name: customer.name }, customer };
}
