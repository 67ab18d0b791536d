// /invoices: drafts, approval (numbering and posting), the status lifecycle, payments and the PDF.
import { z } from 'zod';
import {
  createInvoice,
  deleteInvoice,
  getInvoice,
  INVOICE_LIST,
  invoiceDocument,
  type InvoiceDocument,
  INVOICE_STATUSES,
  INVOICE_VAT_RATES,
  listInvoices,
  registerPayment,
  setInvoiceStatus,
  TRANSITIONS,
  updateInvoice,
} from '@tlr/domain';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoint, metaOf, updateEndpoint } from '../crud.ts';
import { single } from '../schemas/envelopes.ts';
import { accountNumber, amountOut, boolean, date, dateOut, money, percent, quantity, requiredText, text, timestamp, uuid } from '@tlr/domain/fields';
import { authedProcedure, router } from '../trpc.ts';

const line = z.strictObject({
  product_id: uuid().nullable().optional().meta({ description: 'A product of the company; its name, unit price and VAT rate are the defaults of the line' }),
  description: requiredText(500).optional().meta({ description: 'Required unless product_id gives it', example: 'Konsulentbistand' }),
  quantity: quantity(),
  unit_price: money().optional().meta({ description: 'DKK excluding VAT, at most 2 decimals; required unless product_id gives it', example: 19.96 }),
  vat_rate: percent()
    .optional()
    .meta({ description: `Percent: ${INVOICE_VAT_RATES.join(' or ')}; default 25 (or the product's rate)`, example: 25 }),
});

const fields = {
  customer_id: uuid().nullable().optional().meta({ description: 'A customer of the company; required when auto_approve is true and for approval' }),
  issue_date: date().meta({ description: 'Invoice date (fakturadato); the approval posts on it' }),
  due_date: date().meta({ description: 'Payment due date; not before issue_date' }),
  notes: text(2000).optional().meta({ description: 'Free text shown on the invoice; searchable' }),
  lines: z.array(line).min(1, 'needs at least one line').max(500, 'has more than 500 lines'),
};

const invoiceCreate = z.strictObject({
  ...fields,
  auto_approve: boolean().optional().meta({
    description: 'true: approve at once: draws the next number of the unified document number sequence and posts the invoice to the general ledger',
  }),
});
const invoiceUpdate = z.strictObject({
  customer_id: fields.customer_id,
  issue_date: fields.issue_date.optional(),
  due_date: fields.due_date.optional(),
  notes: fields.notes,
  lines: fields.lines.optional().meta({ description: 'When given, replaces all lines' }),
});

const creditNote = z
  .object({
    id: z.guid(),
    credit_note_number: z.string().meta({ description: 'Its own number from the unified document number sequence' }),
    date: dateOut(),
    transaction_id: z.guid().meta({ description: 'The posting that reverses the invoice' }),
  })
  .nullable()
  .meta({ description: 'The credit note (kreditnota) that cancelled the invoice; null otherwise' });

const invoiceFields = {
  id: z.guid(),
  invoice_number: z.string().meta({ description: 'Empty string until the invoice is approved and numbered' }),
  customer_id: z.guid().nullable().meta({ description: 'null on a draft without customer' }),
  customer_name: z.string().meta({ description: 'May be empty; frozen at approval' }),
  status: z.enum(INVOICE_STATUSES),
  issue_date: dateOut(),
  due_date: dateOut(),
  subtotal: amountOut('Sum of the line amounts, DKK excluding VAT'),
  vat_amount: amountOut('VAT, computed per rate and rounded half up, DKK'),
  total: amountOut('subtotal + vat_amount, DKK'),
  currency: z.string().meta({ example: 'DKK' }),
  created_at: timestamp(),
  updated_at: timestamp(),
  notes: z.string(),
  paid_amount: amountOut('Payments registered so far, DKK'),
  balance_due: amountOut('total - paid_amount (0 once cancelled), DKK'),
  posted_transaction_id: z.guid().nullable().meta({ description: 'The ledger posting of the approval; null on a draft' }),
  posted_system_id: z.int().nullable().meta({ description: 'SystemID of that posting; null on a draft' }),
  credit_note: creditNote,
};

export const invoiceResource = z.object(invoiceFields).meta({ id: 'Invoice' });

const payment = z
  .object({
    id: z.guid(),
    invoice_id: z.guid(),
    amount: amountOut(),
    date: dateOut(),
    account_id: z.guid().meta({ description: 'The account debited (bank)' }),
    transaction_id: z.guid().meta({ description: 'The ledger posting of the payment' }),
    created_at: timestamp(),
  })
  .meta({ id: 'InvoicePayment' });

export const fullInvoiceResource = z
  .object({
    ...invoiceFields,
    lines: z.array(
      z.object({
        line_number: z.int(),
        product_id: z.guid().nullable(),
        description: z.string(),
        quantity: z.number(),
        unit_price: amountOut(),
        vat_rate: z.number().meta({ description: 'Percent, as sent (25 when omitted)' }),
        amount: amountOut('quantity × unit_price rounded half up to øre'),
      }),
    ),
    payments: z.array(payment),
  })
  .meta({ id: 'InvoiceWithLines' });

const summary = z
  .object({
    id: z.guid(),
    invoice_number: z.string().meta({ description: 'Empty for a draft; filled with auto_approve' }),
    status: z.enum(INVOICE_STATUSES),
    subtotal: amountOut(),
    vat_amount: amountOut(),
    total: amountOut(),
    posted_transaction_id: z.guid().optional().meta({ description: 'Only with auto_approve: the ledger posting' }),
    posted_system_id: z.int().optional().meta({ description: 'Only with auto_approve: its SystemID' }),
  })
  .meta({ id: 'InvoiceSummary' });

const transitionTable = INVOICE_STATUSES.map((s) => `${s} → ${TRANSITIONS[s].length ? TRANSITIONS[s].join(', ') : '(final)'}`).join('; ');

const tag = 'Invoices';
export const invoicesRouter = router({
  list: listEndpoint({
    path: '/invoices',
    tag,
    summary: 'List invoices',
    description: 'since/until filter on the creation date; sort invoice_number sorts numerically (drafts, unnumbered, last in ascending order).',
    scope: 'invoices:read',
    spec: INVOICE_LIST,
    searchDescription: 'Case-insensitive search in invoice number and notes',
    resource: invoiceResource,
    run: listInvoices,
  }),
  create: createEndpoint({
    path: '/invoices',
    tag,
    summary: 'Create an invoice',
    description:
      'Creates a draft, or with auto_approve an approved invoice (numbered and posted in the same transaction). Line amount = quantity × unit_price rounded half up to øre; VAT per rate on the sum of its lines, rounded half up. auto_approve without customer_id: 400 invalid_request.',
    scope: 'invoices:write',
    problems: [409, 422],
    body: invoiceCreate,
    resource: summary,
    run: createInvoice,
  }),
  get: getEndpoint({
    path: '/invoices/{id}',
    tag,
    summary: 'Get an invoice with its lines and payments',
    scope: 'invoices:read',
    resource: fullInvoiceResource,
    run: getInvoice,
  }),
  update: updateEndpoint({
    path: '/invoices/{id}',
    tag,
    summary: 'Update a draft invoice',
    description: 'Only a draft; any other status is 409 invoice_not_draft. Fields not given keep their value; lines, when given, replace all lines.',
    scope: 'invoices:write',
    problems: [409],
    body: invoiceUpdate,
    resource: fullInvoiceResource,
    run: updateInvoice,
  }),
  delete: deleteEndpoint({
    path: '/invoices/{id}',
    tag,
    summary: 'Delete a draft invoice',
    description: 'Only a draft (it has no number and no posting); any other status is 409 invoice_not_draft.',
    scope: 'invoices:write',
    problems: [409],
    run: deleteInvoice,
  }),
  setStatus: authedProcedure
    .meta(
      metaOf(
        {
          path: '/invoices/{id}/status',
          tag,
          summary: 'Change the status of an invoice',
          description: `Transitions: ${transitionTable}. approved numbers and posts the invoice (422 invoice_incomplete without customer); paid registers the balance due as a payment (debit account_number/account_id, default 6470 Bankkonto; credit 6190) on date (default today); cancelled issues a credit note with its own number whose posting reverses the invoice, on date (default today; 409 invoice_has_payments when payments are registered); overdue is also set by the daily sweep once the due date has passed. The current status again is a no-op (200, nothing posted). A move the table forbids: 409 invalid_transition with current_status and allowed_statuses. An Idempotency-Key is optional.`,
          scope: 'invoices:write',
          problems: [409, 422],
        },
        'PUT',
        { idempotent: { status: 200, optional: true } },
      ),
    )
    .input(
      z.strictObject({
        id: uuid(),
        status: z.enum(INVOICE_STATUSES, { error: `must be one of ${INVOICE_STATUSES.join(', ')}` }),
        date: date().optional().meta({ description: 'paid: payment date; cancelled: credit note date. Default today (Europe/Copenhagen)' }),
        account_id: uuid().optional().meta({ description: 'paid: the asset account the money went to' }),
        account_number: accountNumber().optional().meta({ description: 'paid: as account_id, by number; default 6470' }),
      }),
    )
    .output(single(fullInvoiceResource))
    .mutation(async ({ ctx, input: { id, ...body } }) => ({ data: await setInvoiceStatus(ctx.tx, ctx.scope, id, body) })),
  pay: authedProcedure
    .meta(
      metaOf(
        {
          path: '/invoices/{id}/payments',
          tag,
          summary: 'Register a payment on an invoice',
          description:
            'A partial or full payment of an approved, sent or overdue invoice, posted at once (debit the bank account, credit receivables). When the payments cover the total, the invoice becomes paid (invoice.paid). More than the balance due: 422 overpayment.',
          scope: 'invoices:write',
          problems: [409, 422],
        },
        'POST',
        { idempotent: { status: 201 } },
      ),
    )
    .input(
      z.strictObject({
        id: uuid(),
        amount: money().meta({ description: 'DKK, greater than 0 and at most the balance due', example: 500 }),
        date: date().optional().meta({ description: 'Payment date; default today (Europe/Copenhagen)' }),
        account_id: uuid().optional().meta({ description: 'The asset account the money went to' }),
        account_number: accountNumber().optional().meta({ description: 'As account_id, by number; default 6470' }),
      }),
    )
    .output(single(payment))
    .mutation(async ({ ctx, input: { id, ...body } }) => ({ data: await registerPayment(ctx.tx, ctx.scope, id, body) })),
  pdf: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/invoices/{id}/pdf',
        tags: [tag],
        summary: 'The invoice (or its credit note) as a PDF',
        description:
          'A Danish invoice as faktureringsbekendtgørelsen requires it: issue date, number, seller (name, address, CVR from GET/PUT /settings/company), buyer (frozen at approval), lines with quantity and unit price excluding VAT, VAT rate and amount per rate, totals, payment terms and bank details. A draft is watermarked KLADDE and has no number yet. document=credit_note gives the credit note of a cancelled invoice (404 when it has none).',
      },
      scopes: ['invoices:read'],
      raw: {
        contentType: 'application/pdf',
        description: 'The PDF (A4, one or more pages), made on request from the invoice as it is now.',
        schema: { type: 'string', format: 'binary' },
        headers: { 'Content-Disposition': 'inline; filename="faktura-<number>.pdf" (kreditnota-<number>.pdf, faktura-kladde-<id>.pdf for a draft)' },
      },
    })
    .input(
      z.strictObject({
        id: uuid(),
        document: z
          .enum(['invoice', 'credit_note'], { error: 'must be invoice or credit_note' })
          .default('invoice')
          .meta({ description: 'invoice (default) or credit_note' }),
      }),
    )
    .output(z.custom<InvoiceDocument>().meta({ type: 'object', description: 'What the PDF shows; the HTTP shell renders it' }))
    .query(({ ctx, input }) => invoiceDocument(ctx.tx, ctx.scope, input.id, input.document)),
});
