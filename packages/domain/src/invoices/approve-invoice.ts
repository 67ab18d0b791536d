// Approving an invoice: the next number of the unified document number sequence, the buyer frozen, the
// posting through the one posting function, and the e-invoice queued when the company sends on approval.
import type { Customer, Db, Invoice } from '@tlr/db';
import { fromDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError } from '../errors.ts';
import { postTransaction } from '../ledger/post.ts';
import { decimalOf } from '../money.ts';
import { approvalPosting, invoiceTotals } from './rules.ts';
import { needsEuBuyer } from '../vat/codes.ts';
import { codeFor, postableCode, vatCodesOf } from '../vat/treatments.ts';
import { documentCurrency, netOn, postingInDkk } from '../currency/convert.ts';
import { isEuCountry, vatNumberCountry } from '../identifiers/vat-number.ts';
import { fiPaymentId } from '../identifiers/fi-payment.ts';
import { queueOnApproval } from '../einvoice/outbound.ts';
import { invoiceView, type FullInvoiceRow } from './views.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';
import { liveCustomer, recordInvoiceEvent } from './invoice-rows.ts';
import { accountsByNumber } from './posting-accounts.ts';
import type { LineDimensions } from '../dimensions/schema.ts';
import { holdingAccount, recordAccruals, type AccruedLine } from '../accruals/accruals.ts';
import { rangeOf } from '../accruals/rules.ts';

/**
 * An EU B2B sale is VAT-free only to a buyer registered for VAT in another member state (momsloven
 * § 34, stk. 1, nr. 1; § 16 for services): the invoice must carry the buyer's VAT number.
 */
function assertEuBuyer(customer: Customer, code: string, goods: boolean): void {
  const country = customer.vat_number ? vatNumberCountry(customer.vat_number) : '';
  // Northern Ireland (XI) counts as the EU for goods only (the Windsor Framework).
  const euGoodsInNorthernIreland = goods && customer.vat_number.startsWith('XI');
  if (!euGoodsInNorthernIreland && (!country || country === 'DK' || !isEuCountry(country))) {
    throw new DomainError(
      'vat_number_required',
      `VAT code ${code} is an EU B2B sale: customer ${customer.name} needs the vat_number of another EU member state${customer.vat_number ? `, not ${customer.vat_number}` : ''}.`,
      'customer_id',
    );
  }
}

/**
 * Draft -> approved: number, freeze the buyer, post. `row` is locked by the caller; `known` is the
 * customer as this transaction already read it (auto_approve), else it is read here.
 */
export async function approveInvoice(db: Db, scope: CompanyScope, row: FullInvoiceRow, known?: Customer | null): Promise<FullInvoiceRow> {
  if (!row.customer_id) throw new DomainError('invoice_incomplete', 'An invoice is approved for a customer; set customer_id first.', 'customer_id');
  const customer = known?.id === row.customer_id ? known : await liveCustomer(db, scope, row.customer_id);
  if (!customer) throw new DomainError('invoice_incomplete', `The invoice's customer ${row.customer_id} was deleted; choose another customer.`, 'customer_id');
  if (row.lines.length === 0) throw new DomainError('invoice_incomplete', 'An invoice without lines cannot be approved.', 'lines');

  const productIds = row.lines.flatMap((l) => (l.product_id ? [l.product_id] : []));
  const products = new Map(
    (productIds.length ? await db.product.findMany({ where: { company_id: scope.companyId, id: { in: productIds } } }) : []).map((p) => [p.id, p]),
  );
  const revenueNumber = (productId: string | null) => (productId && products.get(productId)?.revenue_account) || DEFAULT_ACCOUNTS.sales;
  const numbers = [DEFAULT_ACCOUNTS.receivable, ...row.lines.map((l) => revenueNumber(l.product_id))];
  const account = await accountsByNumber(db, scope, numbers);
  // Accrued lines (decision 820) credit deferred income at approval; their revenue moves month by month.
  const firstAccrued = row.lines.find((l) => l.accrual_from);
  const deferred = firstAccrued ? await holdingAccount(db, scope, 'invoice', `lines[${firstAccrued.line_number - 1}].accrual`) : null;
  const revenue = row.lines.map((l) => account(revenueNumber(l.product_id), `lines[${l.line_number - 1}].product_id`).id);
  const codes = await vatCodesOf(
    db,
    scope,
    row.lines.map((l) => l.vat_code),
  );
  row.lines.forEach((l) => {
    const field = `lines[${l.line_number - 1}].vat_code`;
    const code = postableCode(codeFor(codes, l.vat_code, 'sale', field), field);
    if (needsEuBuyer(code.kind)) assertEuBuyer(customer, code.code, code.kind !== 'eu_sale_services');
  });
  const lines = row.lines.map((l, i) => ({
    accountId: l.accrual_from ? deferred!.id : revenue[i]!,
    amount: decimalOf(l.amount),
    vatCode: l.vat_code,
    dimensions: (l.dimensions as LineDimensions | null) ?? undefined,
  }));
  const totals = invoiceTotals(
    row.lines.map((l) => ({
      quantity: decimalOf(l.quantity),
      unitPrice: decimalOf(l.unit_price),
      vatRate: decimalOf(l.vat_rate),
      vatCode: l.vat_code,
      discountPercent: decimalOf(l.discount_percent),
    })),
  );
  const text = `Faktura til ${customer.name}`.slice(0, 500);
  const fx = await documentCurrency(db, scope, row.currency, row.exchange_rate && decimalOf(row.exchange_rate), fromDate(row.issue_date));
  // Made in the invoice's currency, posted in DKK; receivables (the first line) balances it.
  const postingLines = postingInDkk(approvalPosting(lines, totals, account(DEFAULT_ACCOUNTS.receivable).id, codes, text), fx, 0);
  if (postingLines.length < 2) throw new DomainError('invoice_incomplete', 'The invoice totals 0.00: there is nothing to invoice or post.', 'lines');
  const totalDkk = netOn(postingLines, account(DEFAULT_ACCOUNTS.receivable).id);

  // The accounts travel with the lines, so the posting does not read them again (deferred income is read by the writer).
  const named = new Map([
    ...numbers.map((n) => account(n)).map((a) => [a.id, { account_number: a.account_number, name: a.name }] as const),
    ...[...codes.values()].flatMap((c) => [...c.accounts]),
  ]);
  const posted = await postTransaction(db, scope, {
    date: fromDate(row.issue_date),
    description: text,
    lines: postingLines.map((l) => ({ ...l, account: named.get(l.accountId) })),
    source: 'invoice',
    sourceId: row.id,
  });
  if (deferred) {
    const accrued = row.lines.flatMap((l, i): AccruedLine[] => {
      const range = rangeOf(l.accrual_from, l.accrual_to);
      return range
        ? [
            {
              lineId: l.id,
              description: l.description,
              resultAccountId: revenue[i]!,
              range,
              weight: decimalOf(l.amount),
              dimensions: (l.dimensions as LineDimensions | null) ?? undefined,
              field: `lines[${l.line_number - 1}].accrual`,
            },
          ]
        : [];
    });
    // What approval put on deferred income, in DKK (a credit: negative), is what the months move on (decision 822).
    await recordAccruals(db, scope, { type: 'invoice', id: row.id }, deferred.id, netOn(postingLines, deferred.id), accrued);
  }
  // The lines' revenue accounts and the invoice's approval in one statement, which also reads whether
  // the company sends e-invoices on approval and its FI creditor number.
  const [updated] = await db.$queryRaw<(Invoice & { einvoice_auto_send: boolean })[]>`
    WITH lines AS (
      UPDATE invoice_lines AS l SET account_id = v.account_id
      FROM unnest(${row.lines.map((l) => l.id)}::uuid[], ${revenue}::uuid[]) AS v(id, account_id) WHERE l.id = v.id
    ), company AS (SELECT fi_creditor_number FROM companies WHERE id = ${scope.companyId}::uuid)
    UPDATE invoices SET
      status = 'approved', invoice_number = ${String(posted.document_number)}, document_number = ${posted.document_number}::bigint,
      exchange_rate = ${fx.rate.toFixed(6)}::numeric, total_dkk = ${totalDkk.toFixed(2)}::numeric,
      posted_transaction_id = ${posted.id}::uuid, posted_system_id = ${posted.system_id}::bigint,
      approved_at = date_trunc('milliseconds', clock_timestamp()), updated_at = date_trunc('milliseconds', clock_timestamp()),
      -- Frozen: the approved document names the buyer as it was when it was issued.
      customer_name = ${customer.name}, customer_address_line1 = ${customer.address_line1}, customer_address_line2 = ${customer.address_line2},
      customer_postal_code = ${customer.postal_code}, customer_city = ${customer.city}, customer_country = ${customer.country},
      customer_cvr = ${customer.cvr}, customer_ean = ${customer.ean}, customer_vat_number = ${customer.vat_number},
      customer_peppol_id = ${customer.peppol_id},
      -- Frozen too (decision 246): the payment line stays what the customer was told to pay with.
      fi_creditor_number = (SELECT fi_creditor_number FROM company),
      payment_id = CASE WHEN (SELECT fi_creditor_number FROM company) <> '' THEN ${fiPaymentId(String(posted.document_number))} ELSE '' END
    WHERE id = ${row.id}::uuid
    RETURNING *, (SELECT einvoice_auto_send FROM companies WHERE id = ${scope.companyId}::uuid) AS einvoice_auto_send`;
  const { einvoice_auto_send: autoSend, ...invoice } = updated!;
  // Not read back: a draft has no credit note or payments, and its lines are the locked row's, now
  // with their revenue accounts.
  const approved = { ...row, ...invoice, lines: row.lines.map((l, i) => ({ ...l, account_id: revenue[i]! })) };
  await recordInvoiceEvent(db, scope, 'invoice.approved', invoiceView(approved));
  const message = autoSend ? await queueOnApproval(db, scope, approved, customer) : null;
  return message ? { ...approved, einvoice_messages: [message] } : approved;
}
