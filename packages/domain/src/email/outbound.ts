// Queuing e-mails: POST /invoices/{id}/send {"channel":"email"} (the invoice or its credit note),
// a reminder with `channel`, POST /quotes/{id}/send with `channel` and POST /customers/{id}/statement/send.
// Everything the e-mail says is decided here, in the transaction that asks for it: the recipients, the
// text from the company's template, the PDF, and the Message-ID. The delivery (delivery.ts) hands those
// to the SMTP server, attempt after attempt, so a retry is the same message (decision 603).
import type { Db, Invoice } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { Decimal } from '../money.ts';
import { DomainError, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { notSendable } from '../einvoice/outbound.ts';
import type { DocumentKind } from '../einvoice/schema.ts';
import { invoiceDocument, renderInvoicePdf } from '../invoices/pdf.ts';
import { reminderDocument, renderReminderPdf } from '../invoices/reminder-pdf.ts';
import { quoteDocument } from '../quotes/pdf.ts';
import { renderStatementPdf, statementDocument } from '../reports/statement-pdf.ts';
import { fillIn, mailAmount, mailDate, templateFor } from './templates.ts';
import type { EmailKind, EmailStatus } from './schema.ts';
import { emailDeliveryView, type EmailDeliveryRow } from './views.ts';

/** A moment a delivery falls due: the job for it is sent for then (@tlr/jobs, deliverEmailAt). */
export interface DueEmail {
  id: string;
  due: Date;
}

/** Deliveries queued in a transaction, for its caller to wake the worker once it commits (api trpc.ts). */
const queuedIn = new WeakMap<Db, DueEmail[]>();
const rememberQueued = (db: Db, due: DueEmail) => queuedIn.set(db, [...(queuedIn.get(db) ?? []), due]);

/** The deliveries `tx` queued, forgotten as they are taken. */
export function takeQueuedEmails(tx: Db): DueEmail[] {
  const due = queuedIn.get(tx) ?? [];
  queuedIn.delete(tx);
  return due;
}

let mailDomain = 'localhost';
/**
 * The domain of the Message-IDs (the right of the @): the sender's (SMTP_FROM's) domain, set at start.
 * A Message-ID is the delivery's id at it: unique, and the same for every attempt.
 */
export function setMailDomain(domain: string): void {
  mailDomain = domain;
}

/** What one e-mail is about, before its text is written. */
interface Composition {
  kind: EmailKind;
  invoiceId?: string;
  quoteId?: string;
  customerId: string | null;
  reminderNumber?: number;
  label: string;
  /** The customer as the document names it. */
  customerName: string;
  values: Record<string, string>;
  pdf: Buffer;
  filename: string;
}

/** The customer's e-mail, or the addresses given; 422 naming `to` when there is neither. */
async function recipientsOf(db: Db, scope: CompanyScope, customerId: string | null, given: string[] | undefined, what: string): Promise<string[]> {
  if (given) return [...new Set(given.map((a) => a.toLowerCase()))];
  const customer = customerId
    ? await db.customer.findFirst({ where: { id: customerId, company_id: scope.companyId }, select: { email: true, name: true } })
    : null;
  if (customer?.email) return [customer.email];
  throw new DomainError(
    'email_recipient_required',
    `${customer ? `Customer ${customer.name}` : `${what} has no customer and`} has no e-mail: give the addresses in \`to\`, or set the customer's email (PUT /customers/{id}).`,
    'to',
  );
}

/** Writes the e-mail and queues its delivery, due at once. */
async function queue(db: Db, scope: CompanyScope, c: Composition, to: string[]): Promise<EmailDeliveryRow> {
  const company = await db.company.findUniqueOrThrow({ where: { id: scope.companyId }, select: { name: true, email: true, phone: true } });
  const text = fillIn(await templateFor(db, scope, c.kind), {
    company_name: company.name,
    company_email: company.email,
    company_phone: company.phone,
    customer_name: c.customerName,
    ...c.values,
  });
  const id = newId();
  const row = await db.emailDelivery.create({
    data: {
      id,
      company_id: scope.companyId,
      document_kind: c.kind,
      invoice_id: c.invoiceId ?? null,
      quote_id: c.quoteId ?? null,
      customer_id: c.customerId,
      reminder_number: c.reminderNumber ?? null,
      document_label: c.label,
      recipients: to,
      reply_to: company.email,
      from_name: company.name,
      subject: text.subject,
      body: text.body,
      message_id: `<${id}@${mailDomain}>`,
      attachment_name: c.filename,
      attachment: new Uint8Array(c.pdf),
      status: 'queued' satisfies EmailStatus,
      next_attempt_at: new Date(),
    },
  });
  rememberQueued(db, { id: row.id, due: row.next_attempt_at! });
  return row;
}

/** The invoice, locked as every change of an invoice locks it first (a send and a delivery's outcome queue on it). */
async function lockedInvoice(db: Db, scope: CompanyScope, id: string): Promise<Invoice> {
  const [invoice] = await db.$queryRaw<Invoice[]>`SELECT * FROM invoices WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`;
  if (!invoice) throw notFound('invoice', id);
  return invoice;
}

/**
 * POST /invoices/{id}/send {"channel":"email"}: the PDF of an approved (sent, overdue, paid) invoice, or of
 * the credit note of a cancelled one, e-mailed to its customer or to `to`. Each call is one e-mail (an
 * invoice may be e-mailed again); the Idempotency-Key makes a retried request the same one.
 */
export async function emailInvoice(db: Db, scope: CompanyScope, id: string, input: { document: DocumentKind; to?: string[] | undefined }) {
  const kind = input.document;
  const invoice = await lockedInvoice(db, scope, id);
  const refusal = notSendable(invoice, kind);
  if (refusal) throw new DomainError('invoice_not_sendable', refusal, undefined, { current_status: invoice.status });
  const to = await recipientsOf(db, scope, invoice.customer_id, input.to, `Invoice ${invoice.invoice_number}`);
  const doc = await invoiceDocument(db, scope, id, kind);
  const amount = mailAmount(new Decimal(doc.total).abs().toFixed(2), doc.currency);
  const values: Record<string, string> =
    kind === 'credit_note'
      ? { credit_note_number: doc.number, invoice_number: invoice.invoice_number, date: mailDate(doc.date), amount }
      : { invoice_number: doc.number, issue_date: mailDate(doc.date), due_date: mailDate(doc.due_date), amount };
  const row = await queue(
    db,
    scope,
    {
      kind,
      invoiceId: id,
      customerId: invoice.customer_id,
      label: kind === 'credit_note' ? `Kreditnota ${doc.number}` : `Faktura ${doc.number}`,
      customerName: invoice.customer_name,
      values,
      pdf: await renderInvoicePdf(doc),
      filename: doc.filename,
    },
    to,
  );
  return emailDeliveryView(row);
}

/** Reminder `number` of an invoice (made in the same transaction), e-mailed with its PDF. */
export async function emailReminder(db: Db, scope: CompanyScope, invoiceId: string, number: number, given: string[] | undefined) {
  const invoice = await lockedInvoice(db, scope, invoiceId);
  const to = await recipientsOf(db, scope, invoice.customer_id, given, `Invoice ${invoice.invoice_number}`);
  const doc = await reminderDocument(db, scope, invoiceId, number);
  const charges = new Decimal(doc.fee).plus(doc.interest).plus(doc.earlier_charges);
  // Fees and interest are DKK claims of their own (decision 286): added up only when the invoice is in DKK.
  const amount =
    doc.invoice.currency === 'DKK'
      ? mailAmount(charges.plus(doc.invoice.balance).toFixed(2), 'DKK')
      : `${mailAmount(doc.invoice.balance, doc.invoice.currency)}${charges.isZero() ? '' : ` + ${mailAmount(charges.toFixed(2), 'DKK')}`}`;
  const row = await queue(
    db,
    scope,
    {
      kind: 'reminder',
      invoiceId,
      customerId: invoice.customer_id,
      reminderNumber: number,
      label: `Rykker ${number} for faktura ${doc.invoice.number}`,
      customerName: invoice.customer_name,
      values: { reminder_number: String(number), invoice_number: doc.invoice.number, due_date: mailDate(doc.invoice.due_date), amount },
      pdf: await renderReminderPdf(doc),
      filename: doc.filename,
    },
    to,
  );
  return emailDeliveryView(row);
}

/** A sent quote (sent in the same transaction, or before), e-mailed with its PDF (tilbud). */
export async function emailQuote(db: Db, scope: CompanyScope, quoteId: string, given: string[] | undefined) {
  const quote = await db.quote.findFirst({ where: { id: quoteId, company_id: scope.companyId } });
  if (!quote) throw notFound('quote', quoteId);
  const to = await recipientsOf(db, scope, quote.customer_id, given, `Quote ${quote.quote_number}`);
  const doc = await quoteDocument(db, scope, quoteId);
  const row = await queue(
    db,
    scope,
    {
      kind: 'quote',
      quoteId,
      customerId: quote.customer_id,
      label: `Tilbud ${doc.number}`,
      customerName: quote.customer_name,
      values: { quote_number: doc.number, issue_date: mailDate(doc.date), valid_until: mailDate(doc.due_date), amount: mailAmount(doc.total, doc.currency) },
      pdf: await renderInvoicePdf(doc),
      filename: doc.filename,
    },
    to,
  );
  return emailDeliveryView(row);
}

/** POST /customers/{id}/statement/send: the customer's statement (kontoudtog) for the period, e-mailed as its PDF. */
export async function emailStatement(
  db: Db,
  scope: CompanyScope,
  customerId: string,
  input: { from?: string | undefined; to?: string | undefined },
  given: string[] | undefined,
) {
  const doc = await statementDocument(db, scope.companyId, { id: customerId, from: input.from, to: input.to });
  const to = await recipientsOf(db, scope, customerId, given, 'The statement');
  const s = doc.statement;
  const row = await queue(
    db,
    scope,
    {
      kind: 'statement',
      customerId,
      label: `Kontoudtog ${mailDate(s.from)} - ${mailDate(s.to)}`,
      customerName: s.customer.name,
      values: { period_from: mailDate(s.from), period_to: mailDate(s.to), amount: mailAmount(String(s.closing_balance), 'DKK') },
      pdf: await renderStatementPdf(doc),
      filename: doc.filename,
    },
    to,
  );
  return emailDeliveryView(row);
}
