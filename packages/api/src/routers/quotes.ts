// /quotes: drafts, sending (numbering), acceptance into an invoice, declining, and the PDF (tilbud).
import { z } from 'zod';
import {
  acceptQuote,
  createQuote,
  declineQuote,
  DomainError,
  emailChannel,
  emailQuote,
  recipients,
  deleteQuote,
  fullQuoteResource,
  getQuote,
  type InvoiceDocument,
  listQuotes,
  QUOTE_LIST,
  QUOTE_STATUSES,
  QUOTE_TRANSITIONS,
  quoteAcceptBody,
  quoteCreate,
  quoteDocument,
  quoteResource,
  quoteUpdate,
  sendQuote,
  updateQuote,
} from '@tlr/domain';
import { uuid } from '@tlr/domain/fields';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoint, metaOf, updateEndpoint } from '../crud.ts';
import { single } from '../schemas/envelopes.ts';
import { authedProcedure, router } from '../trpc.ts';

const transitionTable = QUOTE_STATUSES.map((s) => `${s} → ${QUOTE_TRANSITIONS[s].length ? QUOTE_TRANSITIONS[s].join(', ') : '(final)'}`).join('; ');
const tag = 'Quotes';
const noOp = 'Repeating the move the quote has made (sending a sent quote, ...) changes nothing and answers it as it is.';
const refused = `Transitions: ${transitionTable}. Another move: 409 invalid_transition with current_status and allowed_statuses.`;

/** POST /quotes/{id}/<verb>: a move of the quote, answered with it; an Idempotency-Key is optional, as on the other state changes (a repeat is a no-op anyway). */
const move = (verb: string, summary: string, description: string) =>
  authedProcedure
    .meta(
      metaOf(
        { path: `/quotes/{id}/${verb}`, tag, summary, description: `${description} ${noOp} ${refused}`, scope: 'invoices:write', problems: [409, 422] },
        'POST',
        { idempotent: { status: 200, optional: true } },
      ),
    )
    .output(single(fullQuoteResource));

export const quotesRouter = router({
  list: listEndpoint({
    path: '/quotes',
    tag,
    summary: 'List quotes',
    description: 'sort=quote_number sorts numerically (drafts, unnumbered, last in ascending order).',
    scope: 'invoices:read',
    spec: QUOTE_LIST,
    searchDescription: 'Case-insensitive search in quote number, customer name and notes',
    resource: quoteResource,
    run: listQuotes,
  }),
  create: createEndpoint({
    path: '/quotes',
    tag,
    summary: 'Create a quote',
    description:
      "Creates a draft quote (tilbud). Its lines are an invoice's lines, checked and summed by the same rules (line amount = quantity × unit_price rounded half up to øre; VAT per code on the sum of its lines). valid_until before issue_date: 400.",
    scope: 'invoices:write',
    problems: [409, 422],
    body: quoteCreate,
    resource: fullQuoteResource,
    run: createQuote,
  }),
  get: getEndpoint({
    path: '/quotes/{id}',
    tag,
    summary: 'Get a quote with its lines',
    scope: 'invoices:read',
    resource: fullQuoteResource,
    run: getQuote,
  }),
  update: updateEndpoint({
    path: '/quotes/{id}',
    tag,
    summary: 'Update a draft quote',
    description: 'Only a draft; any other status is 409 quote_not_draft. Lines, when given, replace all lines.',
    scope: 'invoices:write',
    problems: [409],
    body: quoteUpdate,
    resource: fullQuoteResource,
    run: updateQuote,
  }),
  delete: deleteEndpoint({
    path: '/quotes/{id}',
    tag,
    summary: 'Delete a draft quote',
    description: 'Only a draft (it has no number yet); any other status is 409 quote_not_draft.',
    scope: 'invoices:write',
    problems: [409],
    run: deleteQuote,
  }),
  send: move(
    'send',
    'Mark a quote as sent, or send it by e-mail',
    "A draft becomes sent and takes the next number of the company's own quote series (gapless; drafts are not numbered). Without customer_id: 422 quote_incomplete. With channel email the quote's PDF (tilbud) is also e-mailed, in the same transaction, to the customer's email or to `to` (422 email_recipient_required when there are none, and the quote stays a draft), written from the company's quote template; a quote already sent is e-mailed again. GET /quotes/{id} lists the e-mails under `deliveries`. With channel email a repeated request is another e-mail unless it repeats its Idempotency-Key.",
  )
    .input(z.strictObject({ id: uuid(), channel: emailChannel.optional(), to: recipients().optional() }))
    .mutation(async ({ ctx, input }) => {
      if (input.to && !input.channel) throw new DomainError('invalid_request', '`to` names e-mail recipients: it goes with channel email only.', 'to');
      const sent = await sendQuote(ctx.tx, ctx.scope, input.id);
      if (input.channel !== 'email') return { data: sent };
      const delivery = await emailQuote(ctx.tx, ctx.scope, input.id, input.to);
      return { data: { ...sent, deliveries: [...sent.deliveries, delivery] } };
    }),
  accept: move(
    'accept',
    'Accept a quote: make its invoice',
    "A sent quote, on or before valid_until, becomes accepted and an invoice with the quote's lines, customer, currency and notes is made in the same transaction: a draft, or with approve true an approved invoice (numbered and posted). The quote's invoice_id names it; the invoice's quote_id the quote. Two acceptances at once make one invoice. A quote past valid_until: 409 invalid_transition.",
  )
    .input(z.strictObject({ id: uuid(), ...quoteAcceptBody.shape }))
    .mutation(async ({ ctx, input: { id, ...body } }) => ({ data: await acceptQuote(ctx.tx, ctx.scope, id, body) })),
  decline: move('decline', 'Decline a quote', 'A sent quote becomes declined (final).')
    .input(z.strictObject({ id: uuid() }))
    .mutation(async ({ ctx, input }) => ({ data: await declineQuote(ctx.tx, ctx.scope, input.id) })),
  pdf: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/quotes/{id}/pdf',
        tags: [tag],
        summary: 'The quote as a PDF (tilbud)',
        description:
          'A Danish quote (TILBUD) laid out as the invoice PDF: seller, customer, number and date, valid until, lines with quantity and unit price excluding VAT, VAT per rate and the totals. A draft is watermarked KLADDE and has no number yet.',
      },
      scopes: ['invoices:read'],
      raw: {
        contentType: 'application/pdf',
        description: 'The PDF (A4, one or more pages), made on request from the quote as it is now.',
        schema: { type: 'string', format: 'binary' },
        headers: { 'Content-Disposition': 'inline; filename="tilbud-<number>.pdf" (tilbud-kladde-<id>.pdf for a draft)' },
      },
    })
    .input(z.strictObject({ id: uuid() }))
    .output(z.custom<InvoiceDocument>().meta({ type: 'object', description: 'What the PDF shows; the HTTP shell renders it' }))
    .query(({ ctx, input }) => quoteDocument(ctx.tx, ctx.scope, input.id)),
});
