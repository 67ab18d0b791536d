// Queuing e-invoices: POST /invoices/{id}/send, sending on approval when the company asks for it, and
// replaying a message that failed or was refused. The document is rendered once, here, in the queuing
// transaction; delivery (delivery.ts) hands those bytes to the access point, attempt after attempt.
import type { Customer, Db, Invoice } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { ublDocument, ublXml } from './ubl.ts';
import { oioublXml } from './oioubl.ts';
import { toDate } from '../calendar.ts';
import { DomainError, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { REPLAYABLE_STATUSES, type DocumentKind, type EinvoiceFormat, type EinvoiceSendInput, type EinvoiceStatus } from './schema.ts';
import { einvoiceMessageView, type EinvoiceMessageRow } from './views.ts';
import { sendFormat } from './receivers.ts';

/** A UBL document made from an invoice or its credit note: what ubl.ts's renderInvoiceUbl answers. */
export interface RenderedUbl {
  xml: string;
  filename: string;
  /** The document's cbc:UUID. */
  documentId: string;
  /** The document's number (cbc:ID): the invoice's, or its credit note's. */
  number: string;
  /** Its issue date (the credit note's own), YYYY-MM-DD. */
  issueDate: string;
  /** The seller's endpoint, <scheme>:<id>: the company as the document names it. */
  sender: string;
}
export type RenderUbl = (db: Db, scope: CompanyScope, invoiceId: string, kind: DocumentKind, format?: EinvoiceFormat) => Promise<RenderedUbl>;

/** The document of an approved invoice or its credit note, as Peppol BIS Billing 3.0 UBL (ubl.ts) or OIOUBL 2.1 (oioubl.ts). */
export const renderInvoiceUbl: RenderUbl = async (db, scope, invoiceId, kind, format = 'peppol-bis3') => {
  const { document, filename } = await ublDocument(db, scope, invoiceId, kind);
  return {
    xml: format === 'oioubl-2.1' ? oioublXml(document) : ublXml(document),
    filename,
    documentId: document.uuid,
    number: document.number,
    issueDate: document.issueDate,
    sender: document.seller.endpoint,
  };
};
let renderUbl: RenderUbl = renderInvoiceUbl;

/** Replaces the UBL renderer (tests render a fixed document); returns the one it replaced. */
export function useUblRenderer(render: RenderUbl): RenderUbl {
  const replaced = renderUbl;
  renderUbl = render;
  return replaced;
}

/** A moment a message falls due: the delivery job for it is sent for then (@tlr/jobs, deliverEinvoiceAt). */
export interface DueMessage {
  id: string;
  due: Date;
}

/** Messages queued or replayed in a transaction, for its caller to hand to the delivery worker once it commits (api trpc.ts). */
const queuedIn = new WeakMap<Db, DueMessage[]>();
/** Notes a message queued in transaction `db`, for its caller to wake the delivery once it commits. */
export const rememberQueued = (db: Db, due: DueMessage) => queuedIn.set(db, [...(queuedIn.get(db) ?? []), due]);

/** The messages `tx` queued or replayed, forgotten as they are taken. */
export function takeQueuedEinvoices(tx: Db): DueMessage[] {
  const due = queuedIn.get(tx) ?? [];
  queuedIn.delete(tx);
  return due;
}

/**
 * The receiver's Peppol participant id: the customer's `peppol_id`, "" when it has none.
 */
export function receiverOf(customer: Pick<Customer, 'peppol_id'> | null | undefined): string {
  return customer?.peppol_id ?? '';
}

/** The invoice's customer's name, Peppol id and e-invoice format, as the customer is now. */
async function customerRow(db: Db, scope: CompanyScope, customerId: string | null): Promise<Pick<Customer, 'name' | 'peppol_id' | 'einvoice_format'> | null> {
  if (!customerId) return null;
  return db.customer.findFirst({
    where: { id: customerId, company_id: scope.companyId },
    select: { name: true, peppol_id: true, einvoice_format: true },
  });
}

/** Renders the document and queues its message, due at once; `invoice` is locked by the caller. */
async function queue(db: Db, scope: CompanyScope, invoice: Invoice, receiver: string, kind: DocumentKind, format: EinvoiceFormat): Promise<EinvoiceMessageRow> {
  const doc = await renderUbl(db, scope, invoice.id, kind, format);
  const row = await db.einvoiceMessage.create({
    data: {
      id: newId(),
      company_id: scope.companyId,
      invoice_id: invoice.id,
      direction: 'outbound',
      document_kind: kind,
      document_number: doc.number,
      channel: 'peppol',
      receiver_peppol_id: receiver,
      sender_peppol_id: doc.sender,
      counterpart_name: invoice.customer_name,
      issue_date: toDate(doc.issueDate),
      currency: invoice.currency,
      net_amount: invoice.subtotal,
      vat_amount: invoice.vat_amount,
      total_amount: invoice.total,
      payable_amount: invoice.total,
      status: 'queued' satisfies EinvoiceStatus,
      next_attempt_at: new Date(),
      document_xml: doc.xml,
      document_uuid: doc.documentId,
      document_format: format,
    },
  });
  rememberQueued(db, { id: row.id, due: row.next_attempt_at! });
  return row;
}

/**
 * Sending on approval (the company's `einvoice_auto_send`): the approved invoice, locked by the
 * approval, is queued when its customer has a Peppol id, in the customer's format. Customers without
 * one, and (format auto) those whose receiver takes neither format, get no e-invoice: the approval
 * stands, and they get the PDF (decision 693).
 */
export async function queueOnApproval(
  db: Db,
  scope: CompanyScope,
  invoice: Invoice,
  customer: Pick<Customer, 'name' | 'peppol_id'> & { einvoice_format?: string },
): Promise<EinvoiceMessageRow | null> {
  const receiver = receiverOf(customer);
  if (!receiver) return null;
  let format: EinvoiceFormat;
  try {
    format = await sendFormat(receiver, customer, 'invoice');
  } catch (e) {
    if (e instanceof DomainError && e.code === 'einvoice_receiver_unsupported') return null;
    throw e;
  }
  return queue(db, scope, invoice, receiver, 'invoice', format);
}

/**
 * POST /invoices/{id}/send: an approved (sent, overdue, paid) invoice, or the credit note of a cancelled
 * one, is queued once, to its customer's Peppol id.
 */
export async function sendInvoice(db: Db, scope: CompanyScope, id: string, input: EinvoiceSendInput) {
  const kind = input.document;
  // Locked as every change of an invoice locks it first (lockInvoice, invoices/invoice-rows.ts): a send and
  // an approval or a delivery's outcome queue on it, and two sends at once make one message.
  const [invoice] = await db.$queryRaw<Invoice[]>`SELECT * FROM invoices WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`;
  if (!invoice) throw notFound('invoice', id);
  const refusal = notSendable(invoice, kind);
  if (refusal) throw new DomainError('invoice_not_sendable', refusal, undefined, { current_status: invoice.status });
  const existing = await db.einvoiceMessage.findFirst({ where: { company_id: scope.companyId, invoice_id: id, document_kind: kind } });
  if (existing) {
    const replay = REPLAYABLE_STATUSES.includes(existing.status as EinvoiceStatus)
      ? ` To send it again, replay it: POST /einvoices/${existing.id}/replay.`
      : '';
    const what = kind === 'credit_note' ? `The credit note of invoice ${invoice.invoice_number}` : `Invoice ${invoice.invoice_number}`;
    throw new DomainError('einvoice_exists', `${what} is e-invoice ${existing.id} already, ${existing.status}.${replay}`, undefined, {
      current_status: existing.status,
      message_id: existing.id,
    });
  }
  const customer = await customerRow(db, scope, invoice.customer_id);
  const receiver = receiverOf(customer);
  if (!receiver) {
    throw new DomainError(
      'peppol_id_required',
      // BEK 97/2023 annex 2: the system prompts the sender to have such a customer register in NemHandelsregistret.
      `Customer ${invoice.customer_name} has no peppol_id: set the customer's Peppol participant id (such as 0088:<EAN> or 0184:<CVR>) to send it e-invoices. A customer not yet registered in NemHandel can register its CVR number in NemHandelsregistret (nemhandelsregisteret.dk) to receive them.`,
      'customer_id',
    );
  }
  // In the customer's format; with auto, the one its receiver takes (422 einvoice_receiver_unsupported when none, before anything is written).
  const format = await sendFormat(receiver, customer!, kind);
  return einvoiceMessageView(await queue(db, scope, invoice, receiver, kind, format));
}

/**
 * Why the invoice's document `kind` cannot be sent, or null. A draft is no document yet; a cancelled
 * invoice is replaced by its credit note, which only a cancelled invoice has (a draft is deleted, never
 * cancelled, so every cancelled invoice has one).
 */
export function notSendable(invoice: Invoice, kind: DocumentKind): string | null {
  if (invoice.status === 'draft') {
    return 'A draft is not a document yet: approve the invoice (PUT /invoices/{id}/status {"status":"approved"}) before sending it.';
  }
  if (kind === 'invoice' && invoice.status === 'cancelled') {
    return `Invoice ${invoice.invoice_number} is cancelled: its credit note stands in its place (send it with {"document":"credit_note"}); a cancelled invoice is not sent.`;
  }
  if (kind === 'credit_note' && invoice.status !== 'cancelled') {
    return `Invoice ${invoice.invoice_number} is ${invoice.status} and has no credit note: only a cancelled invoice has one (PUT /invoices/{id}/status {"status":"cancelled"} issues it).`;
  }
  return null;
}

/**
 * POST /einvoices/{id}/replay: a failed or rejected message is queued again from the start of the
 * schedule, with the same document (its UUID too: a receiver that got it before can tell).
 */
export async function replayEinvoice(db: Db, scope: CompanyScope, id: string) {
  const [found] = await db.$queryRaw<{ status: string }[]>`
    SELECT status FROM einvoice_messages WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`;
  if (!found) throw notFound('e-invoice', id);
  if (!REPLAYABLE_STATUSES.includes(found.status as EinvoiceStatus)) {
    throw new DomainError(
      'einvoice_not_replayable',
      `E-invoice ${id} is ${found.status}; only a failed or rejected one is sent again${found.status === 'queued' ? ' (this one is on its way)' : ''}.`,
      undefined,
      { current_status: found.status },
    );
  }
  const row = await db.einvoiceMessage.update({
    where: { id },
    data: { status: 'queued' satisfies EinvoiceStatus, attempts: 0, next_attempt_at: new Date(), last_error: '' },
  });
  rememberQueued(db, { id, due: row.next_attempt_at! });
  return einvoiceMessageView(row);
}
