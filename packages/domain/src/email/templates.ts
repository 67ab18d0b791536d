// The e-mail text of each kind of document: the company's own subject and body (email_templates) or the
// built-in Danish one, with {{placeholders}} filled in from the document (decisions 598 and 599). A
// placeholder the kind does not fill in is refused when the template is saved, not found missing in a
// customer's inbox.
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError } from '../errors.ts';
import { danishDate, kroner } from '../invoices/pdf.ts';
import { EMAIL_KINDS, type EmailKind, type EmailTemplateInput, type EmailTemplateView } from './schema.ts';

const COMMON = ['company_name', 'company_email', 'company_phone', 'customer_name'] as const;

/** The placeholders each kind fills in: the company and the customer, and the document's own. */
export const PLACEHOLDERS: Record<EmailKind, readonly string[]> = {
  invoice: [...COMMON, 'invoice_number', 'issue_date', 'due_date', 'amount'],
  credit_note: [...COMMON, 'credit_note_number', 'invoice_number', 'date', 'amount'],
  reminder: [...COMMON, 'reminder_number', 'invoice_number', 'due_date', 'amount'],
  quote: [...COMMON, 'quote_number', 'issue_date', 'valid_until', 'amount'],
  statement: [...COMMON, 'period_from', 'period_to', 'amount'],
};

const regards = '\n\nMed venlig hilsen\n{{company_name}}';

/** The built-in texts, in Danish as the documents are. */
export const DEFAULT_TEMPLATES: Record<EmailKind, { subject: string; body: string }> = {
  invoice: {
    subject: 'Faktura {{invoice_number}} fra {{company_name}}',
    body: `Kære {{customer_name}}\n\nHermed fremsendes faktura {{invoice_number}} på {{amount}} med betaling senest {{due_date}}. Fakturaen er vedhæftet som PDF.${regards}`,
  },
  credit_note: {
    subject: 'Kreditnota {{credit_note_number}} fra {{company_name}}',
    body: `Kære {{customer_name}}\n\nHermed fremsendes kreditnota {{credit_note_number}}, som krediterer faktura {{invoice_number}} med {{amount}}. Kreditnotaen er vedhæftet som PDF.${regards}`,
  },
  reminder: {
    subject: 'Rykker {{reminder_number}} for faktura {{invoice_number}} fra {{company_name}}',
    body: `Kære {{customer_name}}\n\nVi kan ikke se, at faktura {{invoice_number}} med betaling senest {{due_date}} er betalt. Vedhæftet er rykker {{reminder_number}}; der skal nu betales {{amount}}.\n\nHar du allerede betalt, kan du se bort fra denne rykker.${regards}`,
  },
  quote: {
    subject: 'Tilbud {{quote_number}} fra {{company_name}}',
    body: `Kære {{customer_name}}\n\nVedhæftet er vores tilbud {{quote_number}} på {{amount}}, som gælder til og med {{valid_until}}.${regards}`,
  },
  statement: {
    subject: 'Kontoudtog fra {{company_name}}',
    body: `Kære {{customer_name}}\n\nVedhæftet er dit kontoudtog for perioden {{period_from}} til {{period_to}}. Saldo pr. {{period_to}}: {{amount}}.${regards}`,
  },
};

const TOKEN = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** An amount as the text says it: "1.250,00 kr." in DKK, "1.250,00 EUR" in another currency. */
export const mailAmount = (amount: string, currency: string) => `${kroner(amount)} ${currency === 'DKK' ? 'kr.' : currency}`;
/** A date as the text says it: 22.11.2026. */
export const mailDate = danishDate;

/** The text with each {{name}} replaced by its value; the subject on one line whatever a value holds. */
export function fillIn(template: { subject: string; body: string }, values: Record<string, string>) {
  const fill = (s: string) => s.replace(TOKEN, (_, name: string) => values[name] ?? '');
  return { subject: fill(template.subject).replace(/\s*[\r\n]+\s*/g, ' '), body: fill(template.body) };
}

/** 400 naming the field when a text uses a placeholder its kind does not fill in (or a malformed one). */
export function checkPlaceholders(kind: EmailKind, field: 'subject' | 'body', text: string): void {
  const allowed = PLACEHOLDERS[kind];
  for (const [, name] of text.matchAll(TOKEN)) {
    if (!allowed.includes(name!)) {
      throw new DomainError(
        'invalid_request',
        `{{${name}}} is not a placeholder of ${kind} e-mails; they are ${allowed.map((p) => `{{${p}}}`).join(', ')}.`,
        field,
      );
    }
  }
}

const view = (kind: EmailKind, row: { subject: string; body: string } | undefined): EmailTemplateView => ({
  kind,
  ...(row ? { subject: row.subject, body: row.body } : DEFAULT_TEMPLATES[kind]),
  default: !row,
  placeholders: [...PLACEHOLDERS[kind]],
});

/** The text an e-mail of `kind` is written from: the company's, or the built-in one. */
export async function templateFor(db: Db, scope: CompanyScope, kind: EmailKind): Promise<{ subject: string; body: string }> {
  const row = await db.emailTemplate.findUnique({ where: { company_id_kind: { company_id: scope.companyId, kind } } });
  return row ?? DEFAULT_TEMPLATES[kind];
}

/** GET /settings/email-templates: every kind, the company's text or the built-in one. */
export async function listEmailTemplates(db: Db, scope: CompanyScope): Promise<EmailTemplateView[]> {
  const rows = await db.emailTemplate.findMany({ where: { company_id: scope.companyId } });
  return EMAIL_KINDS.map((kind) =>
    view(
      kind,
      rows.find((r) => r.kind === kind),
    ),
  );
}

/**
 * PUT /settings/email-templates/{kind}: the subject, the body or both (what is left out keeps its
 * text), or `default` to go back to the built-in text.
 */
export async function updateEmailTemplate(db: Db, scope: CompanyScope, kind: EmailKind, input: EmailTemplateInput): Promise<EmailTemplateView> {
  const where = { company_id_kind: { company_id: scope.companyId, kind } };
  if (input.default) {
    for (const field of ['subject', 'body'] as const) {
      if (input[field] !== undefined)
        throw new DomainError('invalid_request', `${field} cannot be given with default true: default goes back to the built-in text.`, field);
    }
    await db.emailTemplate.deleteMany({ where: { company_id: scope.companyId, kind } });
    return view(kind, undefined);
  }
  if (input.subject === undefined && input.body === undefined) throw new DomainError('invalid_request', 'Give subject, body, or default true.', 'subject');
  if (input.subject !== undefined) checkPlaceholders(kind, 'subject', input.subject);
  if (input.body !== undefined) checkPlaceholders(kind, 'body', input.body);
  // Two saves at once: the row's key serialises them, the last one's fields win.
  const current = await templateFor(db, scope, kind);
  const text = { subject: input.subject ?? current.subject, body: input.body ?? current.body };
  const row = await db.emailTemplate.upsert({ where, create: { company_id: scope.companyId, kind, ...text }, update: text });
  return view(kind, row);
}
