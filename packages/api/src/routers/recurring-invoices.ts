// /recurring-invoices: templates that make an invoice each period (the job in the worker), and their pause and resume.
import { z } from 'zod';
import {
  createRecurringInvoice,
  deleteRecurringInvoice,
  fullRecurringInvoiceResource,
  getRecurringInvoice,
  listRecurringInvoices,
  RECURRING_INVOICE_LIST,
  RECURRING_STATUSES,
  recurringInvoiceCreate,
  recurringInvoiceDetail,
  recurringInvoiceOverview,
  recurringInvoiceResource,
  recurringInvoiceUpdate,
  setRecurringInvoicePaused,
  updateRecurringInvoice,
} from '@tlr/domain';
import { uuid } from '@tlr/domain/fields';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoint, metaOf, updateEndpoint } from '../crud.ts';
import { single } from '../schemas/envelopes.ts';
import { authedProcedure, internalProcedure, router } from '../trpc.ts';

const tag = 'Recurring invoices';

const pauseOrResume = (paused: boolean) =>
  authedProcedure
    .meta(
      metaOf(
        {
          path: `/recurring-invoices/{id}/${paused ? 'pause' : 'resume'}`,
          tag,
          summary: paused ? 'Pause a recurring invoice' : 'Resume a recurring invoice',
          description: paused
            ? 'No invoice is made while paused; next_date is null. Emits recurring_invoice.paused. Pausing a paused or ended template changes nothing (200) and emits nothing.'
            : 'Invoices are made again from today (Europe/Copenhagen) on: periods whose date passed while paused are skipped, not made. Emits recurring_invoice.resumed. Resuming an active or ended template changes nothing (200) and emits nothing.',
          scope: 'invoices:write',
        },
        // An optional Idempotency-Key, as on the other state changes (a repeat is a no-op anyway, decision 617).
        'POST',
        { idempotent: { status: 200, optional: true } },
      ),
    )
    .input(z.strictObject({ id: uuid() }))
    .output(single(fullRecurringInvoiceResource))
    .mutation(async ({ ctx, input }) => ({ data: await setRecurringInvoicePaused(ctx.tx, ctx.scope, input.id, paused) }));

// The owner's pages (docs/owner-pages.md): a company they own, its live books; the same domain functions as the API.
const live = (companyId: string) => ({ companyId, livemode: true });
const owned = { companyId: uuid(), id: uuid() };
const OWNER_PAGE_SIZE = 50;

/** The owner's pause and resume buttons: POST /recurring-invoices/{id}/pause and /resume, as the owner. */
const ownerPauseOrResume = (paused: boolean) =>
  internalProcedure
    .meta({ owner: true })
    .input(z.strictObject(owned))
    .mutation(({ ctx, input }) => setRecurringInvoicePaused(ctx.tx, live(input.companyId), input.id, paused));

export const recurringInvoicesRouter = router({
  /** The owner's list: a page of the company's recurring invoices, newest first, with each customer's name. */
  forCompany: internalProcedure
    .meta({ owner: true })
    .input(z.strictObject({ companyId: uuid(), page: z.int().min(1).max(100_000).default(1), status: z.enum(RECURRING_STATUSES).optional() }))
    .query(({ ctx, input }) =>
      recurringInvoiceOverview(ctx.tx, live(input.companyId), { page: input.page, per_page: OWNER_PAGE_SIZE, order: 'desc', status: input.status }),
    ),
  /** The owner's detail page: the template and each invoice it made, with the invoice's number, status and total. */
  detailForCompany: internalProcedure
    .meta({ owner: true })
    .input(z.strictObject(owned))
    .query(({ ctx, input }) => recurringInvoiceDetail(ctx.tx, live(input.companyId), input.id)),
  pauseForCompany: ownerPauseOrResume(true),
  resumeForCompany: ownerPauseOrResume(false),

  list: listEndpoint({
    path: '/recurring-invoices',
    tag,
    summary: 'List recurring invoices',
    scope: 'invoices:read',
    spec: RECURRING_INVOICE_LIST,
    searchDescription: 'Case-insensitive search in notes',
    resource: recurringInvoiceResource,
    run: listRecurringInvoices,
  }),
  create: createEndpoint({
    path: '/recurring-invoices',
    tag,
    summary: 'Create a recurring invoice',
    description:
      "The invoices are made by a job (hourly) for each period whose date has come: dated the period's date, due payment_terms_days later, with the template's lines as they are when the invoice is made. Each period is made once, in order, also after downtime. end_date with count: 400 invalid_request. action send for a customer without peppol_id: 422 peppol_id_required.",
    scope: 'invoices:write',
    problems: [422],
    body: recurringInvoiceCreate,
    resource: fullRecurringInvoiceResource,
    run: createRecurringInvoice,
  }),
  get: getEndpoint({
    path: '/recurring-invoices/{id}',
    tag,
    summary: 'Get a recurring invoice with the invoices it made',
    scope: 'invoices:read',
    resource: fullRecurringInvoiceResource,
    run: getRecurringInvoice,
  }),
  update: updateEndpoint({
    path: '/recurring-invoices/{id}',
    tag,
    summary: 'Update a recurring invoice',
    description:
      'A change (lines, prices, schedule, action) applies from the next period not yet made; invoices already made are not changed. Emits recurring_invoice.updated.',
    scope: 'invoices:write',
    problems: [422],
    body: recurringInvoiceUpdate,
    resource: fullRecurringInvoiceResource,
    run: updateRecurringInvoice,
  }),
  delete: deleteEndpoint({
    path: '/recurring-invoices/{id}',
    tag,
    summary: 'Delete a recurring invoice',
    description: 'No more invoices are made; the invoices it made stay. Emits recurring_invoice.deleted with { id }.',
    scope: 'invoices:write',
    run: deleteRecurringInvoice,
  }),
  pause: pauseOrResume(true),
  resume: pauseOrResume(false),
});
