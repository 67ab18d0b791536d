// /invoices/{id}/reminders: payment reminders (rykkere) under renteloven, their list and their PDF.
import { z } from 'zod';
import {
  createReminder,
  DEFAULT_ACCOUNTS,
  DomainError,
  emailChannel,
  emailDeliveryResource,
  emailReminder,
  recipients,
  listReminders,
  REMINDER_LIST,
  reminderCreateBody,
  reminderDocument,
  type ReminderDocument,
  reminderResource,
} from '@tlr/domain';
import { uuid } from '@tlr/domain/fields';
import { listEndpoint, metaOf } from '../crud.ts';
import { single } from '../schemas/envelopes.ts';
import { authedProcedure, router } from '../trpc.ts';

const tag = 'Invoices';
const invoiceId = z.strictObject({ id: uuid().meta({ description: 'The invoice id (UUID)' }) });

const rules =
  'At most three reminders per invoice (a fourth: 409 reminder_limit_reached), the first no earlier than the day after the due date and each ' +
  'at least 10 days after the one before (409 reminder_too_early with next_allowed_date). A draft, paid or cancelled invoice takes none ' +
  '(409 invoice_not_remindable with current_status). With reminder_fee_enabled (PUT /settings/company) each charges reminder_fee (at most 100 DKK, ' +
  'renteloven § 9 b); with reminder_interest_enabled a reminder of an invoice to a business buyer (CVR, EU VAT number or EAN on the invoice) charges ' +
  'interest at reminder_reference_rate + 8 percentage points a year (renteloven § 5) on the balance in DKK, for the days since the due date or the ' +
  `last reminder that charged interest, / 365, rounded half up to øre. Fee and interest are DKK claims of their own: one posting debits ${DEFAULT_ACCOUNTS.receivable} ` +
  `and credits ${DEFAULT_ACCOUNTS.reminderFee} (fee) and ${DEFAULT_ACCOUNTS.reminderInterest} (interest); the invoice's total and balance_due do not change. Emits invoice.reminder_sent.`;

export const remindersRouter = router({
  create: authedProcedure
    .meta(
      metaOf(
        {
          path: '/invoices/{id}/reminders',
          tag,
          summary: 'Send the next payment reminder (rykker) of an invoice',
          description: `Issues reminder 1, 2 or 3 of an approved, sent or overdue invoice, dated \`date\` (default today). ${rules} With channel email the reminder's PDF is e-mailed in the same transaction to the customer's email or to \`to\` (422 email_recipient_required when there are none; nothing is issued then), written from the company's reminder template, and \`delivery\` is the e-mail (GET /invoices/{id} lists it under \`deliveries\`); without channel it is not e-mailed (\`delivery\` null): GET /invoices/{id}/reminders/{number}/pdf is the document to send. A reminder of an invoice that was sent as OIOUBL (its e-invoice queued, sent or delivered) is also queued, once, as an OIOUBL 2.1 Reminder to the receiver the invoice went to (GET /einvoices: direction outbound, document_kind reminder), unless the access point's receiver registry lists that receiver without OIOUBL reminders, or the reminder charges DKK on an invoice in another currency.`,
          scope: 'invoices:write',
          problems: [409, 422],
        },
        'POST',
        { idempotent: { status: 201 } },
      ),
    )
    .input(
      invoiceId.extend(reminderCreateBody.shape).extend({
        channel: emailChannel.optional(),
        to: recipients().optional(),
      }),
    )
    .output(
      single(
        reminderResource.extend({
          delivery: emailDeliveryResource.nullable().meta({ description: 'The e-mail of the reminder (channel email); null when it was not e-mailed' }),
        }),
      ),
    )
    .mutation(async ({ ctx, input: { id, channel, to, ...body } }) => {
      if (to && !channel) throw new DomainError('invalid_request', '`to` names e-mail recipients: it goes with channel email only.', 'to');
      const reminder = await createReminder(ctx.tx, ctx.scope, id, body);
      const delivery = channel === 'email' ? await emailReminder(ctx.tx, ctx.scope, id, reminder.number, to) : null;
      return { data: { ...reminder, delivery } };
    }),
  list: listEndpoint({
    path: '/invoices/{id}/reminders',
    tag,
    summary: "List an invoice's payment reminders",
    description: `The reminders of one invoice (404 for an invoice that is not the company's). ${rules}`,
    scope: 'invoices:read',
    spec: REMINDER_LIST,
    searchDescription: 'Case-insensitive search in the invoice number the reminder names',
    filters: invoiceId,
    resource: reminderResource,
    run: listReminders,
  }),
  pdf: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/invoices/{id}/reminders/{number}/pdf',
        tags: [tag],
        summary: 'A payment reminder as a PDF',
        description:
          'The reminder in Danish ("Rykker 1", "Rykker 2", "Rykker 3"): the invoice number and dates, the original amount, what is paid and the balance, the fee, the interest (rate and days), the fees and interest of earlier reminders, the total to pay, the FI payment line of an invoice with a payment_id and the company\'s bank details. The amounts are the reminder\'s as issued. 404 for a reminder the invoice does not have.',
      },
      scopes: ['invoices:read'],
      raw: {
        contentType: 'application/pdf',
        description: 'The PDF (A4).',
        schema: { type: 'string', format: 'binary' },
        headers: { 'Content-Disposition': 'inline; filename="rykker-<number>-faktura-<invoice number>.pdf"' },
      },
    })
    .input(invoiceId.extend({ number: z.enum(['1', '2', '3'], { error: 'must be 1, 2 or 3' }).meta({ description: 'The reminder number' }) }))
    .output(z.custom<ReminderDocument>().meta({ type: 'object', description: 'What the PDF shows; the HTTP shell renders it' }))
    .query(({ ctx, input }) => reminderDocument(ctx.tx, ctx.scope, input.id, Number(input.number))),
});
