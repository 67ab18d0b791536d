// An e-mail delivery's fields, once: the bodies that ask for a document by e-mail (the channel and the
// recipients), the delivery the API answers with and shows on its document, and the templates.
import { z } from 'zod';
import { requiredText, timestamp } from '../fields.ts';
import { deliveryAttempts } from '../integers.ts';

/** queued: waiting for (another) attempt; sent: the SMTP server accepted it; failed: every attempt failed (decision 601). */
export const EMAIL_STATUSES = ['queued', 'sent', 'failed'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/** What an e-mail carries: each kind has its own template (decision 598). */
export const EMAIL_KINDS = ['invoice', 'credit_note', 'reminder', 'quote', 'statement'] as const;
export type EmailKind = (typeof EMAIL_KINDS)[number];

/** At most this many recipients per e-mail: a document goes to a customer, not a mailing list. */
export const MAX_RECIPIENTS = 10;

const address = z.string({ error: 'must be an e-mail address' }).trim().pipe(z.email('must be an e-mail address').max(254));
/** The addresses given instead of the customer's e-mail. */
export const recipients = () =>
  z
    .array(address, { error: 'must be a list of e-mail addresses' })
    .min(1, { error: 'must name at least one address' })
    .max(MAX_RECIPIENTS, { error: `must name at most ${MAX_RECIPIENTS} addresses` })
    .meta({
      description: `The addresses to send to (1 to ${MAX_RECIPIENTS}), instead of the customer's e-mail; without it, the customer's \`email\` (422 email_recipient_required when it has none)`,
      example: ['bogholderi@kunde.dk'],
    });

export const emailChannel = z
  .literal('email', { error: 'must be email' })
  .meta({ description: 'email: the document as a PDF attached to an e-mail (docs/email.md)' });

const status = z.enum(EMAIL_STATUSES).meta({
  description: "queued (waiting for an attempt), sent (the SMTP server accepted it), failed (every attempt failed: last_error has the server's answer)",
});

export const emailDeliveryResource = z
  .object({
    id: z.guid(),
    channel: z.literal('email'),
    document_kind: z.enum(EMAIL_KINDS).meta({ description: 'What is attached: invoice, credit_note, reminder, quote or statement' }),
    invoice_id: z.guid().nullable(),
    quote_id: z.guid().nullable(),
    customer_id: z.guid().nullable(),
    reminder_number: z.int().min(1).max(3).nullable().meta({ description: 'The reminder attached (1, 2 or 3); null for another document' }),
    to: z.array(z.string()).meta({ description: 'The recipients' }),
    reply_to: z.string().meta({ description: 'Reply-To: the company\'s e-mail (PUT /settings/company); "" when it has none' }),
    subject: z.string(),
    body: z.string().meta({ description: 'The text of the e-mail, as sent (the template with its placeholders filled in)' }),
    message_id: z.string().meta({ description: 'The Message-ID header, fixed when queued: every attempt sends the same message (decision 603)' }),
    attachment: z.string().meta({ description: 'The file name of the attached PDF', example: 'faktura-12.pdf' }),
    status,
    attempts: deliveryAttempts(),
    next_attempt_at: timestamp().nullable(),
    last_response: z.string().meta({ description: 'The SMTP server\'s last answer (code and text); "" before any' }),
    last_error: z.string().meta({ description: 'Why the last attempt failed; "" after a success' }),
    sent_at: timestamp().nullable(),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .meta({ id: 'EmailDelivery' });
export type EmailDeliveryView = z.output<typeof emailDeliveryResource>;

export const emailTemplateResource = z
  .object({
    kind: z.enum(EMAIL_KINDS),
    subject: z.string(),
    body: z.string(),
    default: z.boolean().meta({ description: 'true: the built-in Danish text (the company has not changed it); PUT with default true goes back to it' }),
    placeholders: z.array(z.string()).meta({ description: 'The placeholders this kind fills in, written {{name}} in the subject or body' }),
  })
  .meta({ id: 'EmailTemplate' });
export type EmailTemplateView = z.output<typeof emailTemplateResource>;

export const emailTemplateBody = z.strictObject({
  subject: requiredText(200)
    .refine((s) => !/[\r\n]/.test(s), { error: 'must be one line' })
    .optional()
    .meta({ description: 'The subject, one line, at most 200 characters, with placeholders', example: 'Faktura {{invoice_number}} fra {{company_name}}' }),
  body: requiredText(10000)
    .optional()
    .meta({ description: 'The text, at most 10,000 characters, with placeholders', example: 'Kære {{customer_name}}\n\nHermed faktura {{invoice_number}}.' }),
  default: z
    .literal(true, { error: 'must be true' })
    .optional()
    .meta({ description: "true: forget the company's text and use the built-in one (subject and body must then be left out)" }),
});
export type EmailTemplateInput = z.output<typeof emailTemplateBody>;
