// Reminders of e-invoiced invoices go out as e-invoices too: a reminder of an invoice that was sent as
// OIOUBL (its message queued, sent or delivered) is queued, in the reminder's transaction, as an
// OIOUBL 2.1 Reminder to the receiver the invoice went to, and delivered like any message sent
// (delivery.ts). The unique (company, invoice, kind, reminder number) makes each reminder go out once,
// however many requests or job runs issue it (decisions 695 to 698).
import type { Db, InvoiceReminder } from '@tlr/db';
import { fromDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { newId } from '../ids.ts';
import { Decimal, sumAmounts } from '../money.ts';
import { oioublReminderXml, reminderDocumentNumber } from './oioubl-reminder.ts';
import { rememberQueued } from './outbound.ts';
import { takesOioublReminders } from './receivers.ts';
import type { EinvoiceStatus } from './schema.ts';
import { ublDocument } from './ubl.ts';
import type { EinvoiceMessageRow } from './views.ts';

/** The statuses of an invoice's message that say the receiver has (or is about to get) the invoice: its reminder follows it. */
const REACHED: readonly EinvoiceStatus[] = ['queued', 'sent', 'delivered'];

const dec = (v: { toString(): string }) => new Decimal(v.toString());

/**
 * Queues reminder `reminder` of invoice `invoiceId` as an OIOUBL Reminder when the invoice was sent as
 * OIOUBL, in the caller's transaction (which holds the invoice's row lock); the message, or null when
 * none goes: the invoice was not e-invoiced as OIOUBL (or its message failed or was rejected), the
 * receiver is registered without OIOUBL reminders, the reminder charges DKK on an invoice in another
 * currency (decision 697), or the reminder was queued before.
 */
export async function queueReminderEinvoice(
  db: Db,
  scope: CompanyScope,
  invoiceId: string,
  reminder: InvoiceReminder,
  earlier: readonly InvoiceReminder[],
): Promise<EinvoiceMessageRow | null> {
  const sent = await db.einvoiceMessage.findFirst({
    where: { company_id: scope.companyId, invoice_id: invoiceId, direction: 'outbound', document_kind: 'invoice' },
    select: { document_format: true, status: true, receiver_peppol_id: true, sender_peppol_id: true, counterpart_name: true },
  });
  if (!sent || sent.document_format !== 'oioubl-2.1' || !REACHED.includes(sent.status as EinvoiceStatus)) return null;
  if (!(await takesOioublReminders(sent.receiver_peppol_id))) return null;
  const { document } = await ublDocument(db, scope, invoiceId, 'invoice', { pdf: false });
  const fee = dec(reminder.fee);
  const interest = dec(reminder.interest);
  const earlierCharges = earlier.map((e) => ({ id: e.id, number: e.number, date: fromDate(e.date), charges: dec(e.fee).plus(dec(e.interest)) }));
  const charged = fee.plus(interest).greaterThan(0) || earlierCharges.some((e) => e.charges.greaterThan(0));
  if (document.currency !== 'DKK' && charged) return null;
  const balance = dec(reminder.balance_due);
  const xml = oioublReminderXml(document, {
    id: reminder.id,
    number: reminder.number,
    date: fromDate(reminder.date),
    balance,
    fee,
    interest,
    earlier: earlierCharges,
  });
  // What the reminder asks for: the balance and every charge still claimed (none on a foreign-currency invoice, above).
  const payable = sumAmounts([balance, fee, interest, ...earlierCharges.map((e) => e.charges)]).toFixed(2);
  const id = newId();
  const [row] = await db.$queryRaw<EinvoiceMessageRow[]>`
    INSERT INTO einvoice_messages (id, company_id, invoice_id, direction, document_kind, document_format, document_number, channel,
      receiver_peppol_id, sender_peppol_id, counterpart_name, issue_date, currency, net_amount, vat_amount, total_amount, payable_amount,
      status, next_attempt_at, document_xml, document_uuid, reminder_number, updated_at)
    VALUES (${id}::uuid, ${scope.companyId}::uuid, ${invoiceId}::uuid, 'outbound', 'reminder', 'oioubl-2.1',
      ${reminderDocumentNumber(document.number, reminder.number)}, 'peppol', ${sent.receiver_peppol_id}, ${sent.sender_peppol_id},
      ${sent.counterpart_name}, ${reminder.date}::date, ${document.currency}, ${payable}::numeric, 0, ${payable}::numeric, ${payable}::numeric, ${'queued' satisfies EinvoiceStatus}, now(),
      ${xml}, ${reminder.id}, ${reminder.number}, now())
    ON CONFLICT (company_id, invoice_id, document_kind, reminder_number) DO NOTHING
    RETURNING *`;
  if (!row) return null;
  rememberQueued(db, { id: row.id, due: row.next_attempt_at! });
  return row;
}
