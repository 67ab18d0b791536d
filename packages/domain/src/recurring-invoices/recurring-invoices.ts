// Recurring invoices (abonnementsfakturaer): the templates' create, read, update, delete, pause and
// resume, each scoped to the caller's company. The invoices themselves are made by the job
// (make-recurring-invoices.ts) through the invoice commands, so every invoice rule stays in one place.
import type { z } from 'zod';
import type { Db, RecurringInvoice, RecurringInvoicePeriod } from '@tlr/db';
import { fromDate, toDate, today } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest, notFound } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { newId } from '../ids.ts';
import { listPage, type ListParams, type ListSpec, type Page } from '../lists/list.ts';
import { amountToJson, quantityToJson, rateToJson } from '../money.ts';
import { resolveLines } from '../invoices/draft-lines.ts';
import { liveCustomer } from '../invoices/invoice-rows.ts';
import { invoiceLines } from '../invoices/schema.ts';
import { receiverOf } from '../einvoice/outbound.ts';
import { registrationView } from '../trail/actor.ts';
import {
  nextPeriod,
  RECURRING_STATUSES,
  scheduleProblem,
  statusOf,
  type RecurringAction,
  type RecurringInterval,
  type RecurringStatus,
  type Schedule,
} from './rules.ts';
import type { FullRecurringInvoiceView, RecurringInvoiceInput, RecurringInvoiceUpdate, RecurringInvoiceView } from './schema.ts';

export const RECURRING_INVOICE_LIST = {
  sort: { created_at: 'created_at', start_date: 'start_date', next_date: 'next_date' },
  defaultSort: 'created_at',
  search: ['notes'],
  dateColumn: 'created_at',
  dateDescription: 'creation date',
  statuses: RECURRING_STATUSES,
} satisfies ListSpec;

type Line = z.output<typeof invoiceLines>[number];
/** A line as stored: what was given, amounts as decimal strings, null for what was not given. */
type StoredLine = Record<'product_id' | 'description' | 'quantity' | 'unit_price' | 'vat_rate' | 'vat_code' | 'unit' | 'discount_percent', string | null>;

const storedLine = (l: Line): StoredLine => ({
  product_id: l.product_id ?? null,
  description: l.description ?? null,
  quantity: l.quantity.toFixed(),
  unit_price: l.unit_price?.toFixed(2) ?? null,
  vat_rate: l.vat_rate?.toFixed() ?? null,
  vat_code: l.vat_code ?? null,
  unit: l.unit ?? null,
  discount_percent: l.discount_percent?.toFixed() ?? null,
});

/** The stored lines as an invoice's input, read by the invoice's own schema (what was not given stays unsaid). */
export const invoiceLinesOf = (row: Pick<RecurringInvoice, 'lines'>) =>
  invoiceLines.parse((row.lines as unknown as StoredLine[]).map((l) => Object.fromEntries(Object.entries(l).filter(([, v]) => v !== null))));

/** 'last' is stored as day 0. */
const LAST_DAY = 0;
const dayOfMonth = (stored: number) => (stored === LAST_DAY ? 'last' : stored);

export const scheduleOf = (row: RecurringInvoice): Schedule => ({
  interval: row.interval as RecurringInterval,
  every: row.every,
  start_date: fromDate(row.start_date),
  end_date: row.end_date && fromDate(row.end_date),
  count: row.count,
  day_of_month: dayOfMonth(row.day_of_month),
});

export const progressOf = (row: RecurringInvoice) => ({
  made: row.made,
  last: row.last_period && fromDate(row.last_period),
  resumed_on: row.resumed_on && fromDate(row.resumed_on),
});

function view(row: RecurringInvoice): RecurringInvoiceView {
  return {
    id: row.id,
    customer_id: row.customer_id,
    status: row.status as RecurringStatus,
    ...scheduleOf(row),
    payment_terms_days: row.payment_terms_days,
    action: row.action as RecurringAction,
    currency: row.currency,
    notes: row.notes,
    lines: (row.lines as unknown as StoredLine[]).map((l) => ({
      product_id: l.product_id,
      description: l.description,
      quantity: quantityToJson(l.quantity!),
      unit_price: l.unit_price === null ? null : amountToJson(l.unit_price),
      vat_rate: l.vat_rate === null ? null : rateToJson(l.vat_rate),
      vat_code: l.vat_code,
      unit: l.unit,
      discount_percent: l.discount_percent === null ? null : rateToJson(l.discount_percent),
    })),
    next_date: row.status === 'active' && row.next_date ? fromDate(row.next_date) : null,
    invoices_made: row.made,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    ...registrationView(row),
  };
}

const fullView = (row: RecurringInvoice, periods: RecurringInvoicePeriod[]): FullRecurringInvoiceView => ({
  ...view(row),
  invoices: periods.map((p) => ({ period: fromDate(p.period), invoice_id: p.invoice_id, created_at: p.created_at.toISOString() })),
});

const periodsOf = (db: Db, row: RecurringInvoice) =>
  db.recurringInvoicePeriod.findMany({ where: { recurring_invoice_id: row.id }, orderBy: { period: 'asc' } });

/** The template of the caller's company (not deleted), its row locked until commit: the job and every change take this lock first. */
async function lockTemplate(db: Db, scope: CompanyScope, id: string): Promise<RecurringInvoice> {
  const [locked] = await db.$queryRaw<{ id: string }[]>`
    SELECT id FROM recurring_invoices WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid AND deleted_at IS NULL FOR UPDATE`;
  if (!locked) throw notFound('recurring invoice', id);
  return (await db.recurringInvoice.findUnique({ where: { id } }))!;
}

interface Checked {
  customer_id: string;
  lines: Line[];
  action: RecurringAction;
  schedule: Schedule;
}

/** What an invoice made from the template would be refused for, refused now: the customer, the lines' products and VAT codes, the schedule, send's channel. */
async function check(db: Db, scope: CompanyScope, t: Checked): Promise<void> {
  const problem = scheduleProblem(t.schedule);
  if (problem) throw invalidRequest(`${problem.field} ${problem.detail}.`, problem.field);
  const customer = await liveCustomer(db, scope, t.customer_id);
  if (!customer) throw invalidRequest(`No customer ${t.customer_id} in this company.`, 'customer_id');
  await resolveLines(db, scope, t.lines);
  // send goes by the customer's channel (decision 619): an e-invoice to its peppol_id, else an e-mail to its email.
  if (t.action === 'send' && !receiverOf(customer) && !customer.email) {
    throw new DomainError(
      'peppol_id_required',
      `action send sends each invoice as an e-invoice to the customer's peppol_id, or else by e-mail to its email, and customer ${customer.name} has neither: set one, or choose action approve.`,
      'customer_id',
    );
  }
}

/** The columns the schedule and progress decide: the next period and the status. */
function settled(schedule: Schedule, progress: ReturnType<typeof progressOf>, paused: boolean) {
  const next = nextPeriod(schedule, progress);
  return { next_date: next && toDate(next), status: statusOf(paused, next) };
}

const scheduleColumns = (s: Schedule) => ({
  interval: s.interval,
  every: s.every,
  start_date: toDate(s.start_date),
  end_date: s.end_date && toDate(s.end_date),
  count: s.count,
  day_of_month: s.day_of_month === 'last' ? LAST_DAY : s.day_of_month,
});

export async function createRecurringInvoice(db: Db, scope: CompanyScope, input: RecurringInvoiceInput): Promise<FullRecurringInvoiceView> {
  const schedule: Schedule = {
    interval: input.interval,
    every: input.every ?? 1,
    start_date: input.start_date,
    end_date: input.end_date ?? null,
    count: input.count ?? null,
    day_of_month: input.day_of_month ?? Number(input.start_date.slice(8, 10)),
  };
  const action = input.action ?? 'draft';
  await check(db, scope, { customer_id: input.customer_id, lines: input.lines, action, schedule });
  const row = await db.recurringInvoice.create({
    data: {
      id: newId(),
      company_id: scope.companyId,
      customer_id: input.customer_id,
      ...scheduleColumns(schedule),
      ...settled(schedule, { made: 0, last: null, resumed_on: null }, false),
      payment_terms_days: input.payment_terms_days ?? null,
      action,
      currency: input.currency ?? 'DKK',
      notes: input.notes ?? '',
      lines: input.lines.map(storedLine),
    },
  });
  const result = fullView(row, []);
  await recordEvent(db, scope, 'recurring_invoice.created', result);
  return result;
}

export async function getRecurringInvoice(db: Db, scope: CompanyScope, id: string): Promise<FullRecurringInvoiceView> {
  const row = await db.recurringInvoice.findFirst({ where: { id, company_id: scope.companyId, deleted_at: null } });
  if (!row) throw notFound('recurring invoice', id);
  return fullView(row, await periodsOf(db, row));
}

export async function listRecurringInvoices(db: Db, scope: CompanyScope, q: ListParams): Promise<Page<RecurringInvoiceView>> {
  return listPage(db.recurringInvoice, { company_id: scope.companyId, deleted_at: null }, q, RECURRING_INVOICE_LIST, view);
}

/** A partial update; the lines, price and schedule apply from the next period not yet made (made ones stay as they are). */
export async function updateRecurringInvoice(db: Db, scope: CompanyScope, id: string, input: RecurringInvoiceUpdate): Promise<FullRecurringInvoiceView> {
  const row = await lockTemplate(db, scope, id);
  const was = scheduleOf(row);
  const schedule: Schedule = {
    interval: input.interval ?? was.interval,
    every: input.every ?? was.every,
    start_date: input.start_date ?? was.start_date,
    end_date: input.end_date === undefined ? was.end_date : input.end_date,
    count: input.count === undefined ? was.count : input.count,
    day_of_month: input.day_of_month ?? was.day_of_month,
  };
  const customer_id = input.customer_id ?? row.customer_id;
  const lines = input.lines ?? invoiceLinesOf(row);
  const action = input.action ?? (row.action as RecurringAction);
  await check(db, scope, { customer_id, lines, action, schedule });
  const updated = await db.recurringInvoice.update({
    where: { id },
    data: {
      customer_id,
      ...scheduleColumns(schedule),
      ...settled(schedule, progressOf(row), row.status === 'paused'),
      ...(input.payment_terms_days !== undefined ? { payment_terms_days: input.payment_terms_days } : {}),
      action,
      ...(input.currency !== undefined ? { currency: input.currency } : {}),
      ...(input.notes !== undefined ? { notes: input.notes } : {}),
      ...(input.lines ? { lines: input.lines.map(storedLine) } : {}),
    },
  });
  const result = fullView(updated, await periodsOf(db, updated));
  await recordEvent(db, scope, 'recurring_invoice.updated', result);
  return result;
}

/** Soft delete: no more invoices are made; those made stay, and so do their periods. */
export async function deleteRecurringInvoice(db: Db, scope: CompanyScope, id: string): Promise<{ id: string; deleted: true }> {
  const { count } = await db.recurringInvoice.updateMany({
    where: { id, company_id: scope.companyId, deleted_at: null },
    data: { deleted_at: new Date(), next_date: null },
  });
  if (!count) throw notFound('recurring invoice', id);
  await recordEvent(db, scope, 'recurring_invoice.deleted', { id });
  return { id, deleted: true };
}

/** Pause (no invoice is made) or resume (from `day` on: periods that passed while paused are skipped). An ended template stays ended; again is a no-op. */
export async function setRecurringInvoicePaused(db: Db, scope: CompanyScope, id: string, paused: boolean, day = today()): Promise<FullRecurringInvoiceView> {
  const row = await lockTemplate(db, scope, id);
  const now = row.status as RecurringStatus;
  let updated = row;
  if (paused && now === 'active') {
    updated = await db.recurringInvoice.update({ where: { id }, data: { status: 'paused' } });
  } else if (!paused && now === 'paused') {
    const progress = { ...progressOf(row), resumed_on: day };
    updated = await db.recurringInvoice.update({ where: { id }, data: { resumed_on: toDate(day), ...settled(scheduleOf(row), progress, false) } });
  }
  const result = fullView(updated, await periodsOf(db, updated));
  // Only a change is an event (decision 802): a repeat, or pausing an ended template, emits nothing.
  if (updated !== row) await recordEvent(db, scope, paused ? 'recurring_invoice.paused' : 'recurring_invoice.resumed', result);
  return result;
}
