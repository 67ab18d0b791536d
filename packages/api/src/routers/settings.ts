// /settings/company: the company as its invoices present it (name, CVR, address, contact, bank details, Peppol id).
// The same input schema serves the operator CLI and the admin app (internal.updateCompanyProfile), so
// a CVR, an IBAN or a registration number is checked by one rule whoever changes it.
import { z } from 'zod';
import {
  EMAIL_KINDS,
  emailTemplateBody,
  emailTemplateResource,
  getCompanySettings,
  listEmailTemplates,
  PLACEHOLDERS,
  reminderSettingsInput,
  reminderSettingsOutput,
  updateCompanyProfile,
  updateEmailTemplate,
} from '@tlr/domain';
import { single } from '../schemas/envelopes.ts';
import {
  bankAccountNumber,
  bankRegNumber,
  boolean,
  country,
  cvr,
  email,
  fiCreditorNumber,
  iban,
  peppolId,
  phone,
  requiredText,
  text,
} from '@tlr/domain/fields';
import { authedProcedure, router } from '../trpc.ts';
import { month } from '@tlr/domain/integers';

/** The seller profile; fields left out keep their value, "" or null clears one. */
export const companyProfileInput = {
  name: requiredText(200).optional().meta({ description: 'The legal name printed as the seller', example: 'Nordisk Tømrer ApS' }),
  cvr: cvr().optional().meta({
    description:
      'The seller\'s CVR number, printed on invoices and in the SAF-T header: 8 digits passing the modulus 11 check, spaces removed; "" or null removes it',
    example: '12345674',
  }),
  address_line1: text(200).optional().meta({ example: 'Vestergade 12' }),
  address_line2: text(200).optional(),
  postal_code: text(20).optional().meta({ example: '8000' }),
  city: text(100).optional().meta({ example: 'Aarhus C' }),
  country: country().optional().meta({ description: 'ISO 3166-1 alpha-2', example: 'DK' }),
  email: email().optional().meta({ example: 'faktura@nordisktomrer.dk' }),
  phone: phone().optional().meta({ example: '+45 12 34 56 78' }),
  bank_reg_number: bankRegNumber().optional(),
  bank_account_number: bankAccountNumber().optional(),
  iban: iban().optional(),
  peppol_id: peppolId().optional().meta({
    description:
      'The company\'s own Peppol participant identifier <scheme>:<id>, its endpoint on the e-invoices it sends and where it receives them, e.g. 0184:12345674 (its CVR number) or 0088:5790000436101 (a GLN), checked by its scheme\'s rule and stored normalised; "" or null removes it. While it is "", e-invoices name the company by 0184 and its CVR number',
    example: '0184:12345674',
  }),
  fi_creditor_number: fiCreditorNumber().optional().meta({
    description:
      'The company\'s FI creditor number (kreditornummer) for FI card type +71: 8 digits, the first 8, spaces removed; "" or null removes it. While it is set, every invoice approved gets a payment_id, printed with it as the FI payment line +71<payment_id> +<creditor number>< and named in its e-invoice (PaymentMeans code 93); an invoice keeps the creditor number it was approved with',
    example: '81234567',
  }),
  se_number: cvr().optional().meta({
    description:
      'The SE number (SE-nr.) the VAT return is filed under with Skattestyrelsen (POST /vat-returns/{period}/submit): 8 digits passing the modulus 11 check; "" or null: the CVR number. Before the first filing, the company delegates the right "Nemvirksomhed-adgang for systemudbyderne" to the provider on skat.dk, once (docs/vat-return.md, Filing)',
    example: '12345674',
  }),
  eu_sales_frequency: z
    .enum(['quarterly', 'monthly'], { error: 'must be quarterly or monthly' })
    .optional()
    .meta({ description: 'How often the company reports EU-salg uden moms (GET /eu-sales): quarterly (the default, for a company that may) or monthly' }),
};

/** How the company sends its invoices: not part of the seller printed on them (nor of the owner's seller form). */
const sendingInput = {
  einvoice_auto_send: boolean()
    .optional()
    .meta({ description: 'true: approving an invoice also queues it as an e-invoice (Peppol) when its customer has a peppol_id; default false' }),
};

const companySettings = z
  .object({
    id: z.guid(),
    name: z.string(),
    cvr: z.string().meta({ description: 'Given when the company is created or set later with PUT /settings/company; "" if none' }),
    livemode: z.boolean().meta({ description: 'false for the sandbox of a test key' }),
    currency: z.string(),
    vat_registered: z.boolean(),
    fiscal_year_start_month: month(),
    vat_period_frequency: z.string(),
    lock_date: z.string().nullable(),
    einvoice_auto_send: z.boolean().meta({ description: 'Approving an invoice also queues it as an e-invoice (POST /invoices/{id}/send)' }),
    ...reminderSettingsOutput,
    address_line1: z.string(),
    address_line2: z.string(),
    postal_code: z.string(),
    city: z.string(),
    country: z.string(),
    email: z.string(),
    phone: z.string(),
    bank_reg_number: z.string(),
    bank_account_number: z.string(),
    iban: z.string(),
    peppol_id: z.string().meta({ description: 'The company\'s own Peppol participant identifier as set with PUT /settings/company; "" if none' }),
    fi_creditor_number: z.string().meta({ description: 'The FI creditor number (kreditornummer) as set with PUT /settings/company; "" if none' }),
    se_number: z
      .string()
      .meta({ description: 'The SE number the VAT return is filed under, as set with PUT /settings/company; "" files under the CVR number' }),
    eu_sales_frequency: z.string().meta({ description: 'quarterly or monthly: the period of GET /eu-sales' }),
  })
  .meta({ id: 'CompanySettings' });

const tag = 'Settings';
const PLACEHOLDER_NOTE =
  'Placeholders, written {{name}}: ' +
  Object.entries(PLACEHOLDERS)
    .map(([kind, names]) => `${kind}: ${names.join(', ')}`)
    .join('; ') +
  '. Amounts are written 1.250,00 kr. (another currency: 1.250,00 EUR), dates 22.11.2026 (docs/email.md).';
const path = '/settings/company';
export const settingsRouter = router({
  company: authedProcedure
    .meta({
      openapi: { method: 'GET', path, tags: [tag], summary: 'The company: name, CVR, books settings and the seller profile its invoices print' },
      scopes: ['accounts:read'],
    })
    .input(z.strictObject({}))
    .output(single(companySettings))
    .query(async ({ ctx }) => ({ data: await getCompanySettings(ctx.tx, ctx.scope.companyId) })),
  updateCompany: authedProcedure
    .meta({
      openapi: {
        method: 'PUT',
        path,
        tags: [tag],
        summary: 'Update the seller profile printed on invoices',
        description:
          'Name, CVR number, address, contact, bank details (registration and account number, IBAN, FI creditor number), the company\'s Peppol id, einvoice_auto_send and the payment reminder settings (reminder_fee_enabled, reminder_fee, reminder_interest_enabled, reminder_reference_rate, reminders_automatic; POST /invoices/{id}/reminders). Fields left out keep their value; "" or null clears one. With a live key the sandbox gets the same profile; with a test key only the sandbox changes. Invoices print the profile as it is when the PDF is made.',
      },
      scopes: ['accounts:write'],
    })
    .input(z.strictObject({ ...companyProfileInput, ...sendingInput, ...reminderSettingsInput }))
    .output(single(companySettings))
    .mutation(async ({ ctx, input }) => ({ data: await updateCompanyProfile(ctx.tx, ctx.scope.companyId, input) })),
  emailTemplates: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/settings/email-templates',
        tags: [tag],
        summary: "The company's e-mail texts, one per kind of document",
        description: `The subject and body each kind of e-mail is written from (invoice, credit_note, reminder, quote, statement): the company's own, or the built-in Danish text (\`default\` true). ${PLACEHOLDER_NOTE}`,
      },
      scopes: ['accounts:read'],
    })
    .input(z.strictObject({}))
    .output(z.object({ data: z.array(emailTemplateResource) }))
    .query(async ({ ctx }) => ({ data: await listEmailTemplates(ctx.tx, ctx.scope) })),
  updateEmailTemplate: authedProcedure
    .meta({
      openapi: {
        method: 'PUT',
        path: '/settings/email-templates/{kind}',
        tags: [tag],
        summary: 'Change the e-mail text of one kind of document',
        description: `The subject (one line), the body or both; what is left out keeps its text. \`{"default": true}\` goes back to the built-in Danish text. A placeholder the kind does not fill in: 400 invalid_request naming subject or body, with the kind's \`placeholders\`. E-mails already queued keep the text they were written with. ${PLACEHOLDER_NOTE}`,
      },
      scopes: ['accounts:write'],
    })
    .input(z.strictObject({ kind: z.enum(EMAIL_KINDS, { error: `must be one of ${EMAIL_KINDS.join(', ')}` }), ...emailTemplateBody.shape }))
    .output(single(emailTemplateResource))
    .mutation(async ({ ctx, input: { kind, ...body } }) => ({ data: await updateEmailTemplate(ctx.tx, ctx.scope, kind, body) })),
});
