// /invoices: drafts, approval (numbering and posting), the status lifecycle, payments and the PDF.
import { z } from 'zod';
import {
  createInvoice,
  DEFAULT_ACCOUNTS,
  deleteInvoice,
  documentKind,
  einvoiceMessageResource,
  einvoiceSendBody,
  emailDeliveryResource,
  emailInvoice,
  DomainError,
  fullInvoiceResource,
  getInvoice,
  INVOICE_LIST,
  INVOICE_STATUSES,
  invoiceCreate,
  invoiceDocument,
  type InvoiceDocument,
  invoicePaymentBody,
  invoicePaymentResource,
  invoiceResource,
  invoiceStatusBody,
  invoiceSummaryResource,
  invoiceUpdate,
  listInvoices,
  registerPayment,
  sendInvoice,
  setInvoiceStatus,
  TRANSITIONS,
  ublDocument,
  ublXml,
  oioublXml,
  updateInvoice,
} from '@tlr/domain';
import { uuid } from '@tlr/domain/fields';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoint, metaOf, updateEndpoint } from '../crud.ts';
import { single } from '../schemas/envelopes.ts';
import { currencyFilter } from '../schemas/list-query.ts';
import { authedProcedure, router } from '../trpc.ts';

const transitionTable = INVOICE_STATUSES.map((s) => `${s} → ${TRANSITIONS[s].length ? TRANSITIONS[s].join(', ') : '(final)'}`).join('; ');

const tag = 'Invoices';
/** The invoice, or the credit note that cancelled it: what its PDF and its UBL are of. */
const documentQuery = z.strictObject({ id: uuid(), document: documentKind });
const UBL_FORMATS = ['peppol', 'oioubl'] as const;
const ublQuery = documentQuery.extend({
  format: z
    .enum(UBL_FORMATS, { error: `must be one of ${UBL_FORMATS.join(', ')}` })
    .default('peppol')
    .meta({ description: 'peppol (default): Peppol BIS Billing 3.0; oioubl: OIOUBL 2.1 (NemHandel)' }),
});

export const invoicesRouter = router({
  list: listEndpoint({
    path: '/invoices',
    tag,
    summary: 'List invoices',
    description: 'sort=invoice_number sorts numerically (drafts, unnumbered, last in ascending order).',
    scope: 'invoices:read',
    spec: INVOICE_LIST,
    searchDescription: 'Case-insensitive search in invoice number, FI payment id (payment_id) and notes',
    filters: currencyFilter,
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
    resource: invoiceSummaryResource,
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
    description: 'Only a draft; any other status is 409 invoice_not_draft. Lines, when given, replace all lines.',
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
          description: `Transitions: ${transitionTable}. approved numbers and posts the invoice (422 invoice_incomplete without customer; an accrued line's amount is credited to 8070 deferred income and moved to its revenue account month by month, decisions 820-826); paid registers the balance due as a payment (debit account_number/account_id, default ${DEFAULT_ACCOUNTS.bank} Bankkonto; credit ${DEFAULT_ACCOUNTS.receivable}) on date (default today); cancelled issues a credit note with its own number whose posting reverses the invoice, on date (default today; 409 invoice_has_payments when payments are registered), an accrued line's deferred income only for what is left on 8070 and its revenue account for the months already moved, no later month being posted (decision 825); overdue is also set by the daily sweep once the due date has passed. The current status again is a no-op (200, nothing posted). A move the table forbids: 409 invalid_transition with current_status and allowed_statuses.`,
          scope: 'invoices:write',
          problems: [409, 422],
        },
        'PUT',
        { idempotent: { status: 200, optional: true } },
      ),
    )
    .input(z.strictObject({ id: uuid(), ...invoiceStatusBody.shape }))
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
    .input(z.strictObject({ id: uuid(), ...invoicePaymentBody.shape }))
    .output(single(invoicePaymentResource))
    .mutation(async ({ ctx, input: { id, ...body } }) => ({ data: await registerPayment(ctx.tx, ctx.scope, id, body) })),
  send: authedProcedure
    .meta(
      metaOf(
        {
          path: '/invoices/{id}/send',
          tag,
          summary: 'Send an invoice (or its credit note) as an e-invoice (Peppol) or by e-mail',
          description:
            "With channel peppol: queues the invoice as an e-invoice to its customer's peppol_id and answers 202 with the message, in the customer's einvoice_format: a Peppol BIS Billing 3.0 `Invoice` (peppol, the default), an OIOUBL 2.1 one (oioubl), or with auto the format the access point's receiver registry says the receiver takes (both: OIOUBL to a Danish receiver, Peppol to any other; neither: 422 einvoice_receiver_unsupported naming the receiver, nothing queued; no registry: Peppol); with `document` credit_note, the credit note that cancelled it as a `CreditNote` naming the invoice (BillingReference), as GET /invoices/{id}/ubl?document=credit_note renders it. A worker hands it to the access point, retrying on the webhook schedule (1, 2, 4, 8, 16, 32 minutes, then 1 hour; after the 8th failure it is failed and POST /einvoices/{id}/replay sends it again). When the access point accepts an invoice, an approved invoice becomes sent (invoice.sent); a credit note's acceptance leaves the invoice cancelled. The invoice's `einvoice` shows its message's status and the access point's last response, its `credit_note.einvoice` the credit note's. Each document is sent once: again is 409 einvoice_exists. A customer without peppol_id: 422 peppol_id_required. A reminder of an invoice sent as OIOUBL goes to the same receiver as an OIOUBL Reminder (POST /invoices/{id}/reminders). With a test key the document is not sent anywhere: it counts as accepted at once. " +
            "With channel email: the PDF (GET /invoices/{id}/pdf, with `document` credit_note the credit note's) attached to an e-mail to the customer's email, or to the addresses in `to` (422 email_recipient_required when there are none), its subject and text written from the company's template of the kind (GET/PUT /settings/email-templates), Reply-To the company's e-mail; 202 with the delivery, which GET /invoices/{id} lists under `deliveries`. A worker hands it to the SMTP server with the same retry schedule; the server's acceptance makes the delivery sent and an approved invoice sent (invoice.sent); after the 8th failure it is failed with the server's answer. Each request is one e-mail (an invoice may be e-mailed again): the Idempotency-Key makes a repeated request the same e-mail. `to` is for channel email only (400 otherwise). " +
            "Either channel: a draft, a cancelled invoice's `invoice`, or the `credit_note` of an invoice that is not cancelled (only a cancelled invoice has one): 409 invoice_not_sendable.",
          scope: 'invoices:write',
          problems: [409, 422],
        },
        'POST',
        { idempotent: { status: 202 } },
      ),
    )
    .input(z.strictObject({ id: uuid(), ...einvoiceSendBody.shape }))
    .output(single(z.union([einvoiceMessageResource, emailDeliveryResource])))
    .mutation(async ({ ctx, input: { id, to, ...body } }) => {
      if (body.channel === 'email') return { data: await emailInvoice(ctx.tx, ctx.scope, id, { document: body.document, to }) };
      if (to) throw new DomainError('invalid_request', '`to` names e-mail recipients: it goes with channel email only.', 'to');
      return { data: await sendInvoice(ctx.tx, ctx.scope, id, body) };
    }),
  pdf: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/invoices/{id}/pdf',
        tags: [tag],
        summary: 'The invoice (or its credit note) as a PDF',
        description:
          'A Danish invoice as faktureringsbekendtgørelsen requires it: issue date, number, seller (name, address, CVR from GET/PUT /settings/company), buyer (frozen at approval), lines with quantity and unit price excluding VAT, VAT rate and amount per rate, totals, payment terms and bank details. A draft is watermarked KLADDE and has no number yet. A cancelled invoice is watermarked ANNULLERET, names the credit note that credited it and asks for no payment (no payment terms or bank details). The credit note itself (KREDITNOTA, its own number, the credited invoice named, negative amounts) is GET /invoices/{id}/pdf?document=credit_note with the id of the cancelled invoice (404 for an invoice that has none).',
      },
      scopes: ['invoices:read'],
      raw: {
        contentType: 'application/pdf',
        description: 'The PDF (A4, one or more pages), made on request from the invoice as it is now.',
        schema: { type: 'string', format: 'binary' },
        headers: { 'Content-Disposition': 'inline; filename="faktura-<number>.pdf" (kreditnota-<number>.pdf, faktura-kladde-<id>.pdf for a draft)' },
      },
    })
    .input(documentQuery)
    .output(z.custom<InvoiceDocument>().meta({ type: 'object', description: 'What the PDF shows; the HTTP shell renders it' }))
    .query(({ ctx, input }) => invoiceDocument(ctx.tx, ctx.scope, input.id, input.document)),
  ubl: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/invoices/{id}/ubl',
        tags: [tag],
        summary: 'The invoice (or its credit note) as a Peppol BIS Billing 3.0 or OIOUBL 2.1 e-invoice (UBL)',
        description:
          "An approved invoice as a Peppol BIS Billing 3.0 `Invoice` (UBL 2.1), the credit note that cancelled it as a `CreditNote` (`?document=credit_note`): the seller (the company profile: name, address, CVR as legal entity, DK + CVR as VAT number, endpoint 0184:CVR) and the buyer as frozen at approval (endpoint: its EAN as 0088, else its CVR as 0184, else its EU VAT number in its country's scheme), the lines, the VAT breakdown per category (S, E, K, AE, G from the lines' VAT codes, with the exemption reasons), the totals, payment means (IBAN, else the Danish account) and terms, the PDF embedded, and the VAT also in DKK (TaxCurrencyCode) for an invoice in another currency. `?format=oioubl` gives the same document as OIOUBL 2.1 (NemHandel, CustomizationID OIOUBL-2.1): parties by GLN (EAN), DK:CVR or the EU VAT scheme, OIOUBL's tax categories (StandardRated, ZeroRated, ReverseCharge) and totals (TaxExclusiveAmount is the VAT), payment by FIK (93, DK:FIK) or Danish bank transfer (42, DK:BANK). A draft is 409 invoice_not_approved; a buyer without any identifier to address it to is 422 einvoice_party_unaddressable.",
      },
      scopes: ['invoices:read'],
      problems: [409, 422],
      raw: {
        contentType: 'application/xml',
        description:
          'The UBL document, valid against the CEN EN 16931 and Peppol BIS Billing 3.0 rules (no fatal assertion); with format=oioubl, against the official OIOUBL schematron 1.17.2 (no Error).',
        schema: { type: 'string', description: 'XML, root Invoice (urn:oasis:names:specification:ubl:schema:xsd:Invoice-2) or CreditNote' },
        headers: { 'Content-Disposition': 'attachment; filename="faktura-<number>.xml" (kreditnota-<number>.xml)' },
      },
    })
    .input(ublQuery)
    .output(z.object({ filename: z.string(), xml: z.string() }))
    .query(async ({ ctx, input }) => {
      const { document, filename } = await ublDocument(ctx.tx, ctx.scope, input.id, input.document);
      return { filename, xml: input.format === 'oioubl' ? oioublXml(document) : ublXml(document) };
    }),
});
