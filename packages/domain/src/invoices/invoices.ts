// Invoices: drafts that may change freely, and approved invoices that are legal documents. Approving
// draws the next number of the unified document number sequence and posts through the one posting
// function; payments and the credit note that cancels an invoice are postings of their own. Every
// change of an existing invoice starts by locking its row, so two servers changing one invoice at once
// queue, and the second sees the first's outcome (one approval, one posting).
import { Prisma, type Account, type Customer, type Db, type InTransaction, type Invoice } from '@tlr/db';
import { fromDate, toDate, today } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest, notFound } from '../errors.ts';
import { countInvoices } from '../lists/kept-counts.ts';
import { recordEvent, type EventType } from '../events/outbox.ts';
import { newId } from '../ids.ts';
import { postTransaction } from '../ledger/post.ts';
import { postPayment, postReversalOf, settlementAccount } from '../ledger/documents.ts';
import { listPage, unfiltered, type CurrencyFilter, type ListParams, type ListSpec, type Page } from '../lists/list.ts';
import { amountToJson, Decimal } from '../money.ts';
import { approvalPosting, assertTransition, INVOICE_STATUSES, INVOICE_VAT_RATES, invoiceTotals, OPEN_STATUSES, type InvoiceStatus } from './rules.ts';
import { DEFAULT_SALES_CODE, needsEuBuyer } from '../vat/codes.ts';
import { codeFor, postableCode, vatCodesOf } from '../vat/treatments.ts';
import { documentCurrency, givenRate, netOn, postingInDkk } from '../currency/convert.ts';
import { toDkk } from '../currency/rules.ts';
import { isEuCountry, vatNumberCountry } from '../identifiers/vat-number.ts';
import { fiPaymentId } from '../identifiers/fi-payment.ts';
import { queueOnApproval } from '../einvoice/outbound.ts';
import type { FullInvoiceView, InvoiceInput, InvoiceStatusInput, InvoiceUpdate, InvoiceView, PaymentInput } from './schema.ts';
import {
  fullInvoiceInclude,
  fullInvoiceView,
  invoiceEventData,
  invoiceInclude,
  invoiceSummary,
  invoiceView,
  paymentView,
  type FullInvoiceRow,
} from './views.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';

export const INVOICE_LIST = {
  // Invoice numbers sort as numbers (the document number behind them); drafts have none.
  sort: { created_at: 'created_at', issue_date: 'issue_date', due_date: 'due_date', total: 'total', invoice_number: 'document_number', currency: 'currency' },
  defaultSort: 'created_at',
  search: ['invoice_number', 'payment_id', 'notes'],
  dateColumn: 'created_at',
  dateDescription: 'creation date',
  statuses: INVOICE_STATUSES,
} satisfies ListSpec;

const dec = (v: { toString(): string }) => new Decimal(v.toString());

// Plain SQL through $queryRaw for the reads every invoice creation makes: the rows are the model's
// types, without the query compiler's CPU per call (docs/perf-log.md, Order 10).
async function liveCustomer(db: Db, scope: CompanyScope, id: string): Promise<Customer | null> {
  const [row] = await db.$queryRaw<Customer[]>`SELECT * FROM customers WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid AND deleted_at IS NULL`;
  return row ?? null;
}

/** A draft's lines as stored: product defaults applied, VAT codes and rates checked, amounts computed. */
async function resolveLines(db: Db, scope: CompanyScope, lines: InvoiceInput['lines']) {
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
  const resolved = lines.map((l, i) => {
    const product = l.product_id ? products.get(l.product_id) : undefined;
    // Another company's product is indistinguishable from one that does not exist.
    if (l.product_id && !product) throw invalidRequest(`No product ${l.product_id} in this company.`, `lines[${i}].product_id`);
    const description = l.description ?? product?.name ?? '';
    if (!description) throw invalidRequest('A line needs a description (or a product_id to take it from).', `lines[${i}].description`);
    const unitPrice = l.unit_price ?? (product ? dec(product.unit_price) : undefined);
    if (!unitPrice) throw invalidRequest('A line needs a unit_price (or a product_id to take it from).', `lines[${i}].unit_price`);
    if (l.vat_code) {
      const code = codeFor(codes, l.vat_code, 'sale', `lines[${i}].vat_code`);
      if (l.vat_rate && !l.vat_rate.equals(code.rate)) {
        throw invalidRequest(
          `VAT code ${code.code} carries ${code.rate.toString()} %, not ${l.vat_rate.toString()}; send one of them.`,
          `lines[${i}].vat_rate`,
        );
      }
      return { productId: product?.id ?? null, description, quantity: l.quantity, unitPrice, vatRate: code.rate, vatCode: code.code };
    }
    const vatRate = l.vat_rate ?? (product ? dec(product.vat_rate) : new Decimal(25));
    if (!INVOICE_VAT_RATES.some((r) => vatRate.equals(r))) {
      throw invalidRequest(`A Danish invoice line carries VAT at 25 or 0 percent, not ${vatRate.toString()}.`, `lines[${i}].vat_rate`);
    }
    return { productId: product?.id ?? null, description, quantity: l.quantity, unitPrice, vatRate, vatCode: DEFAULT_SALES_CODE[vatRate.toFixed(2)]! };
  });
  const totals = invoiceTotals(resolved);
  if (totals.total.isNegative()) {
    throw invalidRequest('An invoice total cannot be negative; an approved invoice is cancelled with a credit note instead.', 'lines');
  }
  return { lines: resolved, totals };
}

type Resolved = Awaited<ReturnType<typeof resolveLines>>;

function lineRows(scope: CompanyScope, invoiceId: string, { lines, totals }: Resolved) {
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
    amount: totals.amounts[i]!.toFixed(2),
  }));
}

const amounts = ({ totals }: Resolved) => ({ subtotal: totals.subtotal.toFixed(2), vat_amount: totals.vat.toFixed(2), total: totals.total.toFixed(2) });

/** A draft's currency and the rate it names (null: fixed at approval from the rate table). */
const checkCurrency = (currency: string, rate: Decimal | null | undefined) => ({ currency, rate: givenRate(currency, rate) });

function checkDates(issue: string, due: string) {
  if (due < issue) throw invalidRequest(`The due date ${due} is before the issue date ${issue}.`, 'due_date');
}

async function customerOf(db: Db, scope: CompanyScope, customerId: string | null | undefined) {
  if (!customerId) return { fields: { customer_id: null, customer_name: '' }, customer: null };
  const customer = await liveCustomer(db, scope, customerId);
  if (!customer) throw invalidRequest(`No customer ${customerId} in this company.`, 'customer_id');
  return { fields: { customer_id: customer.id, customer_name: customer.name }, customer };
}

async function event(db: Db, scope: CompanyScope, type: EventType, view: InvoiceView) {
  await recordEvent(db, scope, type, invoiceEventData(view));
}

export async function createInvoice(db: Db, scope: CompanyScope, input: InvoiceInput) {
  // Refused before anything is drawn or written (contract: 400 invalid_request).
  if (input.auto_approve && !input.customer_id) throw invalidRequest('auto_approve needs a customer_id: an approved invoice names its buyer.', 'customer_id');
  checkDates(input.issue_date, input.due_date);
  const currency = checkCurrency(input.currency ?? 'DKK', input.exchange_rate);
  const { fields: customer, customer: buyer } = await customerOf(db, scope, input.customer_id);
  const resolved = await resolveLines(db, scope, input.lines);
  const id = newId();
  const lines = lineRows(scope, id, resolved);
  // The new row needs no lock: nobody else sees it before this transaction commits. The invoice and
  // its lines in one statement (Prisma's nested create sends three); $queryRaw types the row as the model.
  const col = <T>(f: (l: (typeof lines)[number]) => T) => lines.map(f);
  const { subtotal, vat_amount, total } = amounts(resolved);
  const [created] = await db.$queryRaw<Invoice[]>`
    WITH invoice AS (
      INSERT INTO invoices (id, company_id, customer_id, customer_name, status, issue_date, due_date, notes, subtotal, vat_amount, total, currency, exchange_rate)
      VALUES (${id}::uuid, ${scope.companyId}::uuid, ${customer.customer_id}::uuid, ${customer.customer_name}, 'draft', ${input.issue_date}::date,
              ${input.due_date}::date, ${input.notes ?? ''}, ${subtotal}::numeric, ${vat_amount}::numeric, ${total}::numeric,
              ${currency.currency}, ${currency.rate?.toFixed(6) ?? null}::numeric)
      RETURNING *
    ), invoice_lines AS (
      INSERT INTO invoice_lines (id, company_id, invoice_id, line_number, product_id, description, quantity, unit_price, vat_rate, vat_code, amount)
      SELECT l.id, invoice.company_id, invoice.id, l.line_number, l.product_id, l.description, l.quantity, l.unit_price, l.vat_rate, l.vat_code, l.amount
      FROM invoice, unnest(${col((l) => l.id)}::uuid[], ${col((l) => l.line_number)}::int2[], ${col((l) => l.product_id)}::uuid[],
                           ${col((l) => l.description)}::text[], ${col((l) => l.quantity)}::numeric[], ${col((l) => l.unit_price)}::numeric[],
                           ${col((l) => l.vat_rate)}::numeric[], ${col((l) => l.vat_code)}::text[], ${col((l) => l.amount)}::numeric[])
           AS l(id, line_number, product_id, description, quantity, unit_price, vat_rate, vat_code, amount)
    )
    SELECT * FROM invoice`;
  // Not read back (four statements): a new draft has no credit note, no payments and the lines just written.
  const draft: FullInvoiceRow = {
    ...created!,
    credit_note: null,
    einvoice_messages: [],
    payments: [],
    lines: lines.map((l) => ({
      ...l,
      quantity: new Prisma.Decimal(l.quantity),
      unit_price: new Prisma.Decimal(l.unit_price),
      vat_rate: new Prisma.Decimal(l.vat_rate),
      amount: new Prisma.Decimal(l.amount),
      account_id: null,
    })),
  };
  await event(db, scope, 'invoice.created', invoiceView(draft));
  const result = input.auto_approve ? await approve(db, scope, draft, buyer) : draft;
  return invoiceSummary(invoiceView(result));
}

/** Reads an invoice of the caller's company and locks its row until the transaction ends. */
async function lockInvoice(db: Db, scope: CompanyScope, id: string): Promise<FullInvoiceRow> {
  const [locked] = await db.$queryRaw<{ id: string }[]>`SELECT id FROM invoices WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`;
  if (!locked) throw notFound('invoice', id);
  return db.invoice.findUniqueOrThrow({ where: { id }, include: fullInvoiceInclude });
}

export async function getInvoice(db: Db, scope: CompanyScope, id: string): Promise<FullInvoiceView> {
  const row = await db.invoice.findFirst({ where: { id, company_id: scope.companyId }, include: fullInvoiceInclude });
  if (!row) throw notFound('invoice', id);
  return fullInvoiceView(row);
}

export function listInvoices(db: Db, scope: CompanyScope, params: ListParams & CurrencyFilter): Promise<Page<InvoiceView>> {
  const delegate = {
    findMany: (args: object) => db.invoice.findMany({ ...args, include: invoiceInclude }),
    // Filtered by nothing or by status only (the common list): the kept counts, exact and O(1).
    count: (args: { where: object }) =>
      unfiltered(params, INVOICE_LIST) && !params.currency ? countInvoices(db, scope.companyId, params.status) : db.invoice.count(args),
  };
  return listPage(delegate, { company_id: scope.companyId, ...(params.currency ? { currency: params.currency } : {}) }, params, INVOICE_LIST, invoiceView);
}

function assertDraft(row: FullInvoiceRow, action: string): void {
  if (row.status !== 'draft') {
    throw new DomainError(
      'invoice_not_draft',
      `Invoice ${row.invoice_number} is ${row.status}; only a draft may be ${action}. ${row.status === 'cancelled' || row.status === 'paid' ? '' : 'Cancel it with a credit note (PUT /invoices/{id}/status {"status":"cancelled"}) instead.'}`.trim(),
      undefined,
      { current_status: row.status },
    );
  }
}

export async function updateInvoice(db: Db, scope: CompanyScope, id: string, input: InvoiceUpdate): Promise<FullInvoiceView> {
  const row = await lockInvoice(db, scope, id);
  assertDraft(row, 'updated');
  const issue = input.issue_date ?? fromDate(row.issue_date);
  const due = input.due_date ?? fromDate(row.due_date);
  checkDates(issue, due);
  const customer = input.customer_id === undefined ? {} : (await customerOf(db, scope, input.customer_id)).fields;
  const currency =
    input.currency === undefined && input.exchange_rate === undefined
      ? undefined
      : checkCurrency(input.currency ?? row.currency, input.exchange_rate === undefined ? row.exchange_rate && dec(row.exchange_rate) : input.exchange_rate);
  const resolved = input.lines ? await resolveLines(db, scope, input.lines) : undefined;
  if (resolved) {
    await db.invoiceLine.deleteMany({ where: { invoice_id: id } });
    await db.invoiceLine.createMany({ data: lineRows(scope, id, resolved) });
  }
  const updated = await db.invoice.update({
    where: { id },
    data: {
      ...customer,
      ...(currency ? { currency: currency.currency, exchange_rate: currency.rate?.toFixed(6) ?? null } : {}),
      issue_date: toDate(issue),
      due_date: toDate(due),
      ...(input.notes === undefined ? {} : { notes: input.notes }),
      ...(resolved ? amounts(resolved) : {}),
    },
    include: fullInvoiceInclude,
  });
  await event(db, scope, 'invoice.updated', invoiceView(updated));
  return fullInvoiceView(updated);
}

export async function deleteInvoice(db: Db, scope: CompanyScope, id: string): Promise<{ id: string; deleted: true }> {
  const row = await lockInvoice(db, scope, id);
  assertDraft(row, 'deleted');
  // A draft has no number and no posting: nothing of it belongs to the books, so it goes entirely.
  await db.invoice.delete({ where: { id } });
  await recordEvent(db, scope, 'invoice.deleted', { id, invoice_number: '', status: 'draft' });
  return { id, deleted: true };
}

/** Active accounts of the company by number; a missing or deactivated one is a clear 422. */
export async function accountsByNumber(db: Db, scope: CompanyScope, numbers: string[]) {
  const rows = await db.$queryRaw<Pick<Account, 'id' | 'account_number' | 'name' | 'active'>[]>`
    SELECT id, account_number, name, active FROM accounts WHERE company_id = ${scope.companyId}::uuid AND account_number = ANY(${[...new Set(numbers)]}::text[])`;
  const byNumber = new Map(rows.map((a) => [a.account_number, a]));
  return (n: string, field?: string) => {
    const a = byNumber.get(n);
    if (!a) throw new DomainError('invoice_incomplete', `The chart of accounts has no account ${n}, which this invoice posts to.`, field);
    if (!a.active) throw new DomainError('account_inactive', `Account ${n} (${a.name}), which this invoice posts to, is deactivated.`, field);
    return a;
  };
}

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
async function approve(db: Db, scope: CompanyScope, row: FullInvoiceRow, known?: Customer | null): Promise<FullInvoiceRow> {
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
  const lines = row.lines.map((l) => ({
    accountId: account(revenueNumber(l.product_id), `lines[${l.line_number - 1}].product_id`).id,
    amount: dec(l.amount),
    vatCode: l.vat_code,
  }));
  const totals = invoiceTotals(
    row.lines.map((l) => ({ quantity: dec(l.quantity), unitPrice: dec(l.unit_price), vatRate: dec(l.vat_rate), vatCode: l.vat_code })),
  );
  const text = `Faktura til ${customer.name}`.slice(0, 500);
  const fx = await documentCurrency(db, scope, row.currency, row.exchange_rate && dec(row.exchange_rate), fromDate(row.issue_date));
  // Made in the invoice's currency, posted in DKK; receivables (the first line) balances it.
  const postingLines = postingInDkk(approvalPosting(lines, totals, account(DEFAULT_ACCOUNTS.receivable).id, codes, text), fx, 0);
  if (postingLines.length < 2) throw new DomainError('invoice_incomplete', 'The invoice totals 0.00: there is nothing to invoice or post.', 'lines');
  const totalDkk = netOn(postingLines, account(DEFAULT_ACCOUNTS.receivable).id);

  // The accounts travel with the lines, so the posting does not read them again.
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
  // The lines' revenue accounts and the invoice's approval in one statement, which also reads whether
  // the company sends e-invoices on approval and its FI creditor number.
  const [updated] = await db.$queryRaw<(Invoice & { einvoice_auto_send: boolean })[]>`
    WITH lines AS (
      UPDATE invoice_lines AS l SET account_id = v.account_id
      FROM unnest(${row.lines.map((l) => l.id)}::uuid[], ${lines.map((l) => l.accountId)}::uuid[]) AS v(id, account_id) WHERE l.id = v.id
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
  const approved = { ...row, ...invoice, lines: row.lines.map((l, i) => ({ ...l, account_id: lines[i]!.accountId })) };
  await event(db, scope, 'invoice.approved', invoiceView(approved));
  const message = autoSend ? await queueOnApproval(db, scope, approved, customer) : null;
  return message ? { ...approved, einvoice_messages: [message] } : approved;
}

/**
 * PUT /invoices/{id}/status. Repeating the current status changes and posts nothing (PUT semantics);
 * any other move must be in the transition table (rules.ts).
 */
export async function setInvoiceStatus(db: Db, scope: CompanyScope, id: string, input: InvoiceStatusInput): Promise<FullInvoiceView> {
  const row = await lockInvoice(db, scope, id);
  const from = row.status as InvoiceStatus;
  if (input.status !== 'paid' && (input.account_id || input.account_number || input.exchange_rate)) {
    throw invalidRequest(
      'account_id, account_number and exchange_rate belong to status paid (the account the payment went to, the rate it was received at).',
      input.account_id ? 'account_id' : input.account_number ? 'account_number' : 'exchange_rate',
    );
  }
  if (input.date && input.status !== 'paid' && input.status !== 'cancelled') {
    throw invalidRequest('date belongs to status paid (payment date) or cancelled (credit note date).', 'date');
  }
  if (input.status === from) return fullInvoiceView(row);
  assertTransition(from, input.status);
  switch (input.status) {
    case 'approved':
      return fullInvoiceView(await approve(db, scope, row));
    case 'sent':
    case 'overdue': {
      const updated = await db.invoice.update({
        where: { id },
        data: { status: input.status, ...(input.status === 'sent' ? { sent_at: new Date() } : {}) },
        include: fullInvoiceInclude,
      });
      await event(db, scope, `invoice.${input.status}`, invoiceView(updated));
      return fullInvoiceView(updated);
    }
    case 'paid': {
      const remaining = dec(row.total).minus(dec(row.paid_amount));
      await pay(db, scope, row, {
        amount: remaining,
        date: input.date,
        account_id: input.account_id,
        account_number: input.account_number,
        exchange_rate: input.exchange_rate,
      });
      return getInvoice(db, scope, id);
    }
    case 'cancelled':
      return fullInvoiceView(await cancel(db, scope, row, input.date));
    case 'draft':
      // Unreachable: no transition leads back to draft (assertTransition refused it).
      throw new Error('no transition to draft');
  }
}

export async function registerPayment(db: Db, scope: CompanyScope, id: string, input: PaymentInput) {
  const row = await lockInvoice(db, scope, id);
  return paymentView(await pay(db, scope, row, input));
}

/** Registers a payment on a locked, open invoice; the invoice becomes paid when its total is covered. */
async function pay(db: Db, scope: CompanyScope, row: FullInvoiceRow, input: PaymentInput) {
  if (!OPEN_STATUSES.includes(row.status as InvoiceStatus)) {
    throw new DomainError('invalid_transition', `A payment is registered on an approved, sent or overdue invoice; this invoice is ${row.status}.`, undefined, {
      current_status: row.status,
    });
  }
  const balance = dec(row.total).minus(dec(row.paid_amount));
  if (input.amount.lessThanOrEqualTo(0)) throw invalidRequest('A payment amount must be greater than 0.', 'amount');
  if (input.amount.greaterThan(balance)) {
    throw new DomainError(
      'overpayment',
      `The payment ${input.amount.toFixed(2)} exceeds the balance due ${balance.toFixed(2)} of invoice ${row.invoice_number}.`,
      'amount',
      {
        balance_due: amountToJson(balance),
      },
    );
  }
  const account = await settlementAccount(db, scope, input, DEFAULT_ACCOUNTS.bank, [DEFAULT_ACCOUNTS.receivable]);
  const accounts = await accountsByNumber(db, scope, [DEFAULT_ACCOUNTS.receivable, DEFAULT_ACCOUNTS.exchangeDifference]);
  const date = input.date ?? today();
  const paidInFull = input.amount.equals(balance);
  // Received at the payment's rate; receivables are cleared at the invoice's (the last payment clears
  // what is left of them, so no øre stays open). The difference is the realised kursdifference.
  const fx = await documentCurrency(db, scope, row.currency, input.exchange_rate, date);
  const cleared = paidInFull ? dec(row.total_dkk).minus(dec(row.paid_dkk)) : toDkk(input.amount, dec(row.exchange_rate!));
  const posted = await postPayment(db, scope, {
    date,
    text: `Betaling af faktura ${row.invoice_number}`,
    sourceId: row.id,
    debitAccountId: account.id,
    creditAccountId: accounts(DEFAULT_ACCOUNTS.receivable).id,
    debit: toDkk(input.amount, fx.rate),
    credit: cleared,
    differenceAccountId: accounts(DEFAULT_ACCOUNTS.exchangeDifference).id,
    foreign: { currency: row.currency, amount: input.amount, debitRate: fx.rate, creditRate: dec(row.exchange_rate!) },
  });
  const payment = await db.invoicePayment.create({
    data: {
      id: newId(),
      company_id: scope.companyId,
      invoice_id: row.id,
      amount: input.amount.toFixed(2),
      exchange_rate: fx.rate.toFixed(6),
      date: toDate(date),
      account_id: account.id,
      transaction_id: posted.id,
    },
  });
  const updated = await db.invoice.update({
    where: { id: row.id },
    data: {
      paid_amount: dec(row.paid_amount).plus(input.amount).toFixed(2),
      paid_dkk: dec(row.paid_dkk).plus(cleared).toFixed(2),
      ...(paidInFull ? { status: 'paid', paid_at: new Date() } : {}),
    },
    include: invoiceInclude,
  });
  await event(db, scope, paidInFull ? 'invoice.paid' : 'invoice.updated', invoiceView(updated));
  return payment;
}

/**
 * Undoes a payment (its bank line was unmatched): posts the reversal of its posting and takes it out of
 * the invoice's paid amounts. A paid invoice is open again, overdue when its due date has passed, else
 * sent or approved as it was; the payment row and both postings stay (corrections are new entries).
 */
export async function reversePayment(db: Db, scope: CompanyScope, transactionId: string, date = today()) {
  const payment = await db.invoicePayment.findFirst({ where: { company_id: scope.companyId, transaction_id: transactionId } });
  if (!payment) throw notFound('invoice payment of transaction', transactionId);
  const row = await lockInvoice(db, scope, payment.invoice_id);
  const current = await db.invoicePayment.findUniqueOrThrow({ where: { id: payment.id } });
  if (current.reversed_transaction_id) return row;
  // What the payment cleared of receivables (DKK), as its posting credited them.
  const [cleared] = await db.$queryRaw<{ dkk: Prisma.Decimal | null }[]>`
    SELECT sum(l.credit - l.debit) AS dkk FROM transaction_lines l JOIN accounts a ON a.id = l.account_id
     WHERE l.transaction_id = ${transactionId}::uuid AND a.account_number = ${DEFAULT_ACCOUNTS.receivable}`;
  const reversal = await postReversalOf(db, scope, transactionId, {
    date: date < fromDate(payment.date) ? fromDate(payment.date) : date,
    description: `Tilbageført betaling af faktura ${row.invoice_number}`,
    source: 'reversal',
    sourceId: row.id,
  });
  await db.invoicePayment.update({ where: { id: payment.id }, data: { reversed_transaction_id: reversal.id } });
  const reopened: InvoiceStatus = fromDate(row.due_date) < today() ? 'overdue' : row.sent_at ? 'sent' : 'approved';
  const updated = await db.invoice.update({
    where: { id: row.id },
    data: {
      paid_amount: dec(row.paid_amount).minus(dec(payment.amount)).toFixed(2),
      paid_dkk: dec(row.paid_dkk)
        .minus(dec(cleared?.dkk ?? 0))
        .toFixed(2),
      ...(row.status === 'paid' ? { status: reopened, paid_at: null } : {}),
    },
    include: invoiceInclude,
  });
  await event(db, scope, 'invoice.updated', invoiceView(updated));
  return updated;
}

/**
 * Cancels an approved, unpaid invoice with a credit note (kreditnota): a document with its own number
 * whose posting reverses the invoice's posting line by line. The invoice's posting is never changed.
 */
async function cancel(db: Db, scope: CompanyScope, row: FullInvoiceRow, date = today()): Promise<FullInvoiceRow> {
  if (dec(row.paid_amount).greaterThan(0)) {
    throw new DomainError(
      'invoice_has_payments',
      `Invoice ${row.invoice_number} has payments of ${dec(row.paid_amount).toFixed(2)} registered; a paid amount is refunded before the invoice is credited.`,
      undefined,
      { paid_amount: amountToJson(row.paid_amount) },
    );
  }
  const issued = fromDate(row.issue_date);
  if (date < issued) throw invalidRequest(`A credit note cannot be dated ${date}, before the invoice's issue date ${issued}.`, 'date');
  const posted = await postReversalOf(db, scope, row.posted_transaction_id!, {
    date,
    description: `Kreditnota for faktura ${row.invoice_number}`,
    source: 'credit_note',
    sourceId: row.id,
  });
  await db.creditNote.create({
    data: {
      id: newId(),
      company_id: scope.companyId,
      invoice_id: row.id,
      document_number: posted.document_number,
      date: toDate(date),
      transaction_id: posted.id,
    },
  });
  const cancelled = await db.invoice.update({ where: { id: row.id }, data: { status: 'cancelled', cancelled_at: new Date() }, include: fullInvoiceInclude });
  await event(db, scope, 'invoice.cancelled', invoiceView(cancelled));
  return cancelled;
}

/**
 * The overdue sweep: approved and sent invoices whose due date has passed (the Danish calendar day)
 * become overdue, each announced once. Rows another worker is moving are skipped (SKIP LOCKED), so two
 * sweeps at once split the work; batches keep each transaction short. `db` is the pool client (not a
 * transaction); each batch is its own transaction.
 */
export async function sweepOverdue(run: InTransaction, day = today(), batch = 500): Promise<number> {
  let moved = 0;
  for (;;) {
    const n = await run(async (tx) => {
      const rows = await tx.$queryRaw<{ id: string; company_id: string; livemode: boolean }[]>`
        UPDATE invoices AS i SET status = 'overdue', updated_at = now()
        FROM companies AS c
        WHERE c.id = i.company_id AND i.id IN (
          SELECT id FROM invoices WHERE status IN ('approved', 'sent') AND due_date < ${day}::date
          ORDER BY due_date, id LIMIT ${batch} FOR UPDATE SKIP LOCKED)
        RETURNING i.id, i.company_id, c.sandbox_of_id IS NULL AS livemode`;
      const invoices = await tx.invoice.findMany({ where: { id: { in: rows.map((r) => r.id) } }, include: invoiceInclude });
      const scopeOf = new Map(rows.map((r) => [r.id, { companyId: r.company_id, livemode: r.livemode }]));
      for (const inv of invoices) await event(tx, scopeOf.get(inv.id)!, 'invoice.overdue', invoiceView(inv));
      return rows.length;
    });
    moved += n;
    if (n < batch) return moved;
  }
}
