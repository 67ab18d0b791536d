// The domain's typed errors: a stable machine-readable code (error-codes.ts gives its HTTP status and
// title), and a sentence for people. One mapper in the API layer turns them into RFC 9457
// problem+json (see docs/errors.md).
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from './error-codes.ts';

/** The rules of the safe-XML policy (xml/reader.ts) that a refusal of a file names in its `xml` member. */
export const XML_RULES = ['doctype', 'character', 'encoding', 'size', 'depth', 'token', 'syntax'] as const;

/**
 * The extension members a problem may carry beyond RFC 9457's, each with what it tells a client; the
 * OpenAPI document declares them on Problem from this one list.
 */
export const problemExtensions = z.object({
  current_status: z.string().optional().meta({
    description:
      'invalid_transition, invoice_not_draft, expense_not_draft, invoice_not_sendable, invoice_not_remindable: the status the document is in; einvoice_exists, einvoice_not_replayable: the status of the e-invoice; einvoice_not_rejectable: the status of its expense',
  }),
  allowed_statuses: z.array(z.string()).optional().meta({ description: 'invalid_transition: the statuses the document may move to from current_status' }),
  balance_due: z.number().optional().meta({ description: 'overpayment: what is still to be paid on the invoice, DKK' }),
  paid_amount: z.number().optional().meta({ description: 'invoice_has_payments: the payments registered on the invoice, DKK' }),
  version: z.number().optional().meta({ description: 'vat_return_settled: the filed version of the VAT return' }),
  skat: z
    .object({
      service: z
        .string()
        .meta({ description: 'The RSU B2B service that answered (VirksomhedKalenderHent, ModtagMomsangivelseForeloebig, MomsangivelseKvitteringHent)' }),
      code: z.string().meta({ description: "Skattestyrelsen's error code (FejlIdentifikator), e.g. 4801" }),
      text: z.string().meta({ description: "Skattestyrelsen's text (FejlTekst)" }),
    })
    .optional()
    .meta({ description: "skat_error: Skattestyrelsen's error code and text" }),
  message_id: z.string().optional().meta({
    description:
      'einvoice_exists: the e-invoice the invoice was queued as; einvoice_duplicate: the first import of the document; einvoice_not_rejectable: the rejecting response sent before',
  }),
  expense_id: z
    .string()
    .optional()
    .meta({ description: 'einvoice_duplicate: the draft expense the first import made; einvoice_not_rejectable: the expense booked from the document' }),
  imported_at: z.string().optional().meta({ description: 'einvoice_duplicate: when the document was first imported (ISO 8601)' }),
  receiver: z.string().optional().meta({
    description: "einvoice_receiver_unsupported: the receiver's Peppol participant id, which the access point's registry lists for neither format",
    example: '0184:29190925',
  }),
  failures: z
    .array(
      z.object({
        id: z.string().meta({ description: 'The rule id, such as BR-CO-16 or PEPPOL-EN16931-R001' }),
        text: z.string().meta({ description: "The rule's own message" }),
        location: z.string().meta({ description: 'An XPath to where the document breaks it' }),
      }),
    )
    .optional()
    .meta({ description: 'einvoice_invalid: every fatal assertion of the official rules on the document' }),
  next_allowed_date: z
    .string()
    .optional()
    .meta({ description: 'reminder_too_early: the first date the next reminder of the invoice may be dated (YYYY-MM-DD)' }),
  line: z.number().optional().meta({
    description:
      'bank_file_invalid: the line of the CSV file (1-based, header lines counted) or the entry (Ntry) of the camt.053 file at fault; saft_file_invalid (and period_locked, fiscal_year_not_open of a SAF-T import): the line of the SAF-T file',
  }),
  columns: z.array(z.string()).optional().meta({ description: 'bank_file_invalid (a CSV header that fits two readings): the header line, column by column' }),
  choices: z
    .array(
      z.object({
        column: z.string().meta({ description: 'What is to be chosen: date, text, amount_or_debit_credit, balance …' }),
        parameter: z.string().meta({ description: 'The query parameter(s) that choose it' }),
        options: z.array(z.string()).meta({ description: 'The header names that fit it' }),
      }),
    )
    .optional()
    .meta({ description: 'bank_file_invalid (a CSV header that fits two readings): each column the header names more than once, with the names that fit' }),
  xml: z
    .object({
      rule: z.enum(XML_RULES).meta({
        description:
          'doctype: a DOCTYPE or ENTITY declaration (never accepted); character: a character XML does not allow (NUL, a control character); encoding: not UTF-8; size: the document is too large; depth: elements nested too deep; token: one text, tag or comment too long; syntax: not well-formed XML',
      }),
      limit: z.number().optional().meta({ description: 'size: bytes; depth: levels; token: characters' }),
      line: z.number().optional().meta({ description: 'The line where the reader stood (1-based)' }),
      column: z.number().optional().meta({ description: 'The column where the reader stood (1-based)' }),
    })
    .optional()
    .meta({
      description:
        'invalid_request (an e-invoice), bank_file_invalid (camt.053), saft_file_invalid: the rule of the safe-XML policy the file broke, the limit and where; every XML reader refuses the same way',
    }),
  earlier_period: z.string().optional().meta({ description: 'vat_period_open_before: the earliest earlier VAT period that is to be settled first' }),
  blockers: z
    .array(
      z.object({
        kind: z.enum(['vat_period_unsettled', 'draft_invoice', 'draft_expense', 'earlier_year_open', 'later_year_closed']),
        detail: z.string(),
        id: z.string().optional().meta({ description: "The draft's id; the VAT period's name (2026-Q4); the year's start date" }),
      }),
    )
    .optional()
    .meta({ description: 'fiscal_year_blocked, fiscal_year_not_closed: everything that stands in the way, each with its kind' }),
});
export type ProblemExtensions = z.input<typeof problemExtensions>;

export class DomainError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly title: string;
  /** The request field or parameter at fault, when there is one. */
  readonly field: string | undefined;
  /** Extension members of the problem (e.g. the allowed next statuses of an invoice). */
  readonly extensions: ProblemExtensions;
  constructor(code: ErrorCode, detail: string, field?: string, extensions: ProblemExtensions = {}) {
    super(detail);
    this.name = 'DomainError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.title = ERROR_CODES[code].title;
    this.field = field;
    this.extensions = extensions;
  }
}

export const invalidRequest = (detail: string, field?: string) => new DomainError('invalid_request', detail, field);

export const notFound = (what: string, id?: string) => new DomainError('not_found', id ? `No ${what} with id ${id}.` : `${what} not found.`);

export const forbidden = (detail: string) => new DomainError('forbidden', detail);

export const unauthorized = (detail = 'Missing or invalid credentials.') => new DomainError('unauthorized', detail);
