// /einvoices: the e-invoices sent (POST /invoices/{id}/send) and received (POST /einvoices/inbound, or
// the transport's inbox): the list of both, one message, its document, the replay of a failed send, and
// the rejection of a document received (the invoice responses: invoice-responses.ts).
import { z } from 'zod';
import {
  createEinvoiceImport,
  einvoiceImportBounds,
  EINVOICE_DIRECTIONS,
  importResource,
  MAX_LARGE_EINVOICE_BYTES,
  EINVOICE_LIST,
  einvoiceMessageResource,
  einvoiceXml,
  getEinvoice,
  importEinvoice,
  invalidRequest,
  listEinvoices,
  MAX_EINVOICE_BYTES,
  prepareInbound,
  einvoiceRejectBody,
  rejectEinvoice,
  replayEinvoice,
  storePdfWithoutInvoice,
} from '@tlr/domain';
import { uuid } from '@tlr/domain/fields';
import { getEndpoint, listEndpoint, metaOf } from '../crud.ts';
import { single } from '../schemas/envelopes.ts';
import { authedProcedure, router } from '../trpc.ts';
import { requireStore } from './vouchers.ts';

const tag = 'E-invoices';
/** Messages say what was invoiced and bought: reading them takes both reads. */
const readScope = ['invoices:read', 'expenses:read'] as const;

export const einvoicesRouter = router({
  list: listEndpoint({
    path: '/einvoices',
    tag,
    summary: 'List e-invoices sent and received',
    scope: readScope,
    spec: EINVOICE_LIST,
    searchDescription: "Case-insensitive search in the document number, the counterpart's name and the Peppol ids",
    filters: z.object({
      direction: z
        .enum(EINVOICE_DIRECTIONS, { error: `must be one of ${EINVOICE_DIRECTIONS.join(', ')}` })
        .optional()
        .meta({ description: 'outbound: only those sent (invoices, credit notes and invoice responses); inbound: only those received' }),
    }),
    resource: einvoiceMessageResource,
    run: listEinvoices,
  }),
  get: getEndpoint({
    path: '/einvoices/{id}',
    tag,
    summary: 'Get an e-invoice',
    description: 'The same shape as a list item.',
    scope: readScope,
    resource: einvoiceMessageResource,
    run: getEinvoice,
  }),
  xml: authedProcedure
    .meta({
      ...metaOf({ path: '/einvoices/{id}/xml', tag, summary: 'The document, as sent or received', scope: readScope }, 'GET'),
      raw: {
        contentType: 'application/xml',
        description: 'The UBL document exactly as it was sent (rendered when queued) or received.',
        schema: {
          type: 'string',
          description: 'XML, root Invoice or CreditNote (UBL 2.1), ApplicationResponse for an invoice response, or CrossIndustryInvoice as received',
        },
        headers: {
          'Content-Disposition':
            'attachment; filename="faktura-<number>-<issue date>.xml" (kreditnota-… for a credit note, svar-<number of the document answered>-… for an invoice response)',
        },
      },
    })
    .input(z.strictObject({ id: uuid() }))
    .output(z.object({ filename: z.string(), xml: z.string() }))
    .query(({ ctx, input }) => einvoiceXml(ctx.tx, ctx.scope, input.id)),
  inbound: authedProcedure
    .meta({
      ...metaOf(
        {
          path: '/einvoices/inbound',
          tag,
          summary: 'Import a received e-invoice (Peppol BIS 3, OIOUBL 2.1, EN 16931 UBL or CII, Factur-X)',
          description: [
            "The body is the document itself, at most 10 MB (a long document, below, up to 32 MB): a Peppol BIS Billing 3.0, OIOUBL 2.1 or EN 16931 (plain, XRechnung) UBL `Invoice` or `CreditNote`, or an EN 16931 UN/CEFACT CII `CrossIndustryInvoice` (XRechnung CII included), as `Content-Type: application/xml` (text/xml too), UTF-8; or a Factur-X / ZUGFeRD PDF (`Content-Type: application/pdf`) whose embedded XML is imported, the PDF kept as the expense's voucher. A PDF that carries no e-invoice XML is stored as a voucher and answered with `data` null, its `voucher_id` and a `detail` saying nothing was read from it.",
            'The rules applied: Peppol BIS 3 (with CEN EN 16931) only to a document that claims Peppol BIS 3; the CEN EN 16931 rules of its syntax (UBL or CII) to any other EN 16931 document; the OIOUBL schematron to an OIOUBL one.',
            'XML with a DOCTYPE or ENTITY declaration (XXE, entity expansion), another root element or namespace, or that is not well-formed is 400 invalid_request. A Peppol document on which the official rules (CEN EN 16931 and Peppol BIS 3 with the Danish rules) report a fatal assertion, or an OIOUBL document (OIOUBL-2.1, 2.02, 2.01) on which the official OIOUBL schematron 1.17.2 reports an `<Error>` (or whose amounts have more than 2 decimals or another currency), is 400 einvoice_invalid, with `failures` listing every rule id (BR-CO-16, F-INV133, ...), its text and location. Nothing is stored on a refusal.',
            "A valid document is imported in one transaction: its XML and each embedded attachment become vouchers; the supplier is found by Peppol id, then CVR, then VAT number, by name only when the document names none of these (and then only a supplier without any), and is created otherwise (supplier.created); a draft expense is made (expense.created) in the document's currency, with the total including VAT as its amount (a credit note: negative), the VAT as the document states it and a VAT code from its VAT categories, carrying the XML voucher. Answers 201 with the e-invoice (direction inbound, status received), with the document's lines (each with a proposed account and where the proposal comes from), payment means and duties.",
            'The same document of the same supplier (kind and number) again is 409 einvoice_duplicate, naming the first import (`message_id`, `expense_id`, `imported_at`).',
            `A long document (decision 491: more than ${einvoiceImportBounds.asyncLines} lines, counted by their start tags, or more than ${einvoiceImportBounds.asyncAttachments} embedded attachments, or more than 10 MB; at most ${MAX_LARGE_EINVOICE_BYTES} bytes) is always answered 202 Accepted with an import (\`type\` einvoice, status \`queued\`; \`Location\` /api/v1/imports/{id}), whatever it holds: the import-einvoice job checks it against the same rules and imports it the same way, the companies' documents in turn. Watch \`GET /imports/{id}\`: \`succeeded\` with \`einvoice_id\` (GET /einvoices/{id}), or \`failed\` with the \`problem\` the request would have answered (einvoice_invalid with every rule in \`failures\`, einvoice_duplicate, invalid_request), nothing of the document kept. The same document again (its SHA-256) while its import is queued, running or succeeded is that import (202).`,
          ].join('\n\n'),
          scope: ['expenses:write', 'vouchers:write'],
          problems: [409, 503],
        },
        'POST',
        { idempotent: { status: 201 } },
      ),
      streamedBody: true,
      accepted: {
        description: 'Accepted: a long document (decision 491), queued as an import of type einvoice; watch GET /imports/{id}',
        schema: 'Import',
      },
      requestBody: {
        contentType: 'application/xml',
        description: `The received document, UTF-8, at most ${MAX_EINVOICE_BYTES} bytes; a long one (more than ${einvoiceImportBounds.asyncLines} lines or ${einvoiceImportBounds.asyncAttachments} attachments, or above 10 MB) at most ${MAX_LARGE_EINVOICE_BYTES} bytes`,
        schema: {
          type: 'string',
          description:
            'XML, root Invoice or CreditNote (UBL 2.1: Peppol BIS Billing 3.0, OIOUBL 2.1, EN 16931) or CrossIndustryInvoice (CII); or a Factur-X / ZUGFeRD PDF (application/pdf)',
        },
      },
    })
    .input(z.strictObject({ xml: z.string().optional().meta({ description: 'In-process callers: the document (the HTTP body carries it as XML)' }) }))
    .output(
      z.object({
        data: einvoiceMessageResource.nullable().meta({ description: 'The e-invoice imported; null when a PDF carried no e-invoice XML' }),
        voucher_id: z.guid().optional().meta({ description: 'A PDF that carried no e-invoice XML: the voucher it is stored as' }),
        detail: z.string().optional().meta({ description: 'A PDF that carried no e-invoice XML: says that nothing was read from it' }),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const store = requireStore(ctx.store);
      if (ctx.inboundPdf) {
        const voucherId = await storePdfWithoutInvoice(ctx.tx, ctx.db.prisma, store, ctx.scope, ctx.inboundPdf);
        return {
          data: null,
          voucher_id: voucherId,
          detail: 'The PDF carries no e-invoice XML (Factur-X / ZUGFeRD): it is stored as a voucher, and nothing was read from it; key it in as an expense.',
        };
      }
      // The HTTP shell read and checked the document before the transaction; an in-process caller sends it.
      if (!ctx.inbound && input.xml === undefined) throw invalidRequest('The request has no document: send the XML as the body.', 'body');
      const prepared = ctx.inbound ?? (await prepareInbound(input.xml!));
      return { data: await importEinvoice(ctx.tx, ctx.db.prisma, store, ctx.scope, prepared) };
    }),
  // POST /einvoices/inbound's long documents (decision 491): called by its HTTP shell only (no REST path
  // of its own); the OpenAPI document states this 202 on POST /einvoices/inbound (meta `accepted`).
  inboundLong: authedProcedure
    .meta({
      scopes: ['expenses:write', 'vouchers:write'],
      idempotent: { status: 202 },
      // Up to 32 MB stored in this transaction.
      transactionTimeoutMs: 60_000,
    })
    .input(z.strictObject({}))
    .output(single(importResource))
    .mutation(async ({ ctx }) => {
      if (!ctx.longInbound) throw invalidRequest('The request has no document: send the XML as the body.', 'body');
      const { view, created } = await createEinvoiceImport(ctx.tx, ctx.scope, {
        file: ctx.longInbound.file,
        fileName: ctx.longInbound.fileName,
        requestedBy: { type: ctx.credential.type, id: ctx.credential.id },
      });
      ctx.response.headers.Location = `/api/v1/imports/${view.id}`;
      if (created)
        ctx.afterCommit(async () => {
          await ctx.jobs?.einvoiceImport?.(view.id);
        });
      return { data: view };
    }),
  reject: authedProcedure
    .meta(
      metaOf(
        {
          path: '/einvoices/{id}/reject',
          tag,
          summary: 'Reject a received e-invoice',
          description: [
            "Rejects a received document with a reason: its draft expense is cancelled (nothing was posted; expense.updated) and an invoice response saying rejected, with the reason, is queued to the sender through the transport the company's e-invoices go by: a Peppol BIS Invoice Response (code RE, clarification OTH) to a Peppol or EN 16931 sender, an OIOUBL ApplicationResponse (BusinessReject) to an OIOUBL one. Answers 202 with the response (direction outbound, document_kind application_response), or `data` null with a `detail` when the document names no sender endpoint to answer.",
            'Every received document is answered received when imported and accepted when its expense is booked, each at most once. A document sent from here, one rejected before, or one whose expense is booked or paid (accepted already: cancel the expense and ask the supplier for a credit note) is 409 einvoice_not_rejectable.',
          ].join('\n\n'),
          scope: 'expenses:write',
          problems: [409],
        },
        'POST',
        { idempotent: { status: 202 } },
      ),
    )
    .input(z.strictObject({ id: uuid(), ...einvoiceRejectBody.shape }))
    .output(
      z.object({
        data: einvoiceMessageResource.nullable().meta({ description: 'The response queued; null when there is nobody to answer' }),
        detail: z.string().optional().meta({ description: 'Why no response was sent, when none was' }),
      }),
    )
    .mutation(({ ctx, input }) => rejectEinvoice(ctx.tx, ctx.scope, input.id, input.reason)),
  replay: authedProcedure
    .meta(
      metaOf(
        {
          path: '/einvoices/{id}/replay',
          tag,
          summary: 'Send a failed or rejected e-invoice again',
          description:
            'Queues the message again from the start of the retry schedule, with the same document (the same UUID); answers 202 with the message. Only a failed (every attempt failed) or rejected message: any other is 409 einvoice_not_replayable.',
          scope: 'invoices:write',
          problems: [409],
        },
        'POST',
        { idempotent: { status: 202, optional: true } },
      ),
    )
    .input(z.strictObject({ id: uuid() }))
    .output(single(einvoiceMessageResource))
    .mutation(async ({ ctx, input }) => ({ data: await replayEinvoice(ctx.tx, ctx.scope, input.id) })),
});
