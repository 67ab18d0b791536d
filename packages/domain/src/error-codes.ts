// Every stable error code the API answers with, in one typed table: its HTTP status, the problem's
// title and when it happens. DomainError, the problem mapper, the OpenAPI Problem schema and
// docs/errors.md (generated: `npm run docs:errors`) all read it, so a code cannot exist in one and not
// the others.

export interface ErrorCodeSpec {
  status: number;
  title: string;
  /** For docs/errors.md: when the code is answered. "(contract)" marks the contract's own codes. */
  when: string;
}

export const ERROR_CODES = {
  invalid_request: {
    status: 400,
    title: 'Invalid request',
    when: '(contract) missing Idempotency-Key on a create POST, key reused on another endpoint or longer than 255 characters; malformed page, per_page, sort, order, status, since, until, UUID or date; invalid body (wrong type, unknown or missing field, more than 2 decimals on an amount, impossible date, bad CVR/EAN/country...); a body that is not a JSON object; malformed JSON; cross-company references',
  },
  einvoice_invalid: {
    status: 400,
    title: 'E-invoice invalid',
    when: 'an imported e-invoice on which the official rules (CEN EN 16931, Peppol BIS Billing 3.0 with the Danish rules) report fatal assertions: `failures` lists each rule id, its text and where; nothing is stored',
  },
  bank_file_invalid: {
    status: 400,
    title: 'Bank file invalid',
    when: "an imported bank statement (camt.053, camt.054 or CSV) that is malformed or cannot be this bank account's: `detail` and `line` name the CSV line number or the camt entry number, `field` the element or column (`header`, with `columns` and `choices`, for a CSV header that fits two readings); nothing is imported",
  },
  saft_file_invalid: {
    status: 400,
    title: 'SAF-T file invalid',
    when: 'an imported SAF-T file (POST /imports/saft) that is not UTF-8 XML valid against the Danish SAF-T Financial XSD, or whose contents cannot be booked (an unbalanced transaction, an unknown AccountID, another currency): `detail` names the element and the line, `field` the element, `line` the line; nothing of the file is kept',
  },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    when: 'no credential, or an unknown, malformed, expired or revoked API key or token. Carries `WWW-Authenticate: Bearer realm="tlr"` and no rate-limit headers',
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    when: '(contract) the endpoint needs a scope the credential lacks (`detail` names the scope); sandbox reset with a live key or an OAuth token; an internal procedure called without an operator or staff actor, or by staff without the role',
  },
  not_found: {
    status: 404,
    title: 'Not found',
    when: "no such endpoint, or no such resource in the caller's company (another company's ids are indistinguishable from ids that do not exist)",
  },
  method_not_allowed: { status: 405, title: 'Method not allowed', when: 'the path exists but not with this method; `Allow` lists the methods' },
  owner_exists: {
    status: 409,
    title: 'Conflict',
    when: '(operator CLI) creating a company for an existing owner e-mail with a different password',
  },
  account_number_taken: { status: 409, title: 'Conflict', when: 'creating or renumbering an account to a number the chart already has' },
  account_has_postings: { status: 409, title: 'Conflict', when: 'changing the number or type of an account that has postings' },
  already_reversed: { status: 409, title: 'Conflict', when: 'reversing a transaction a second time' },
  reversal_of_reversal: { status: 409, title: 'Conflict', when: 'reversing a reversing transaction' },
  invoice_not_draft: {
    status: 409,
    title: 'Conflict',
    when: '(contract: "Only a draft invoice may be updated or deleted") updating or deleting an invoice that is not a draft',
  },
  invalid_transition: {
    status: 409,
    title: 'Conflict',
    when: 'an invoice status change the transition table does not allow, or a quote move (send, accept, decline) its table does not allow (a quote past valid_until is not accepted); `current_status` and `allowed_statuses` list what is possible',
  },
  quote_not_draft: { status: 409, title: 'Conflict', when: 'updating or deleting a quote that is not a draft (a sent quote is accepted, declined or expires)' },
  quote_incomplete: {
    status: 422,
    title: 'Quote incomplete',
    when: 'sending a quote without customer_id (a quote is an offer to a customer), or accepting one whose customer was deleted',
  },
  expense_not_draft: {
    status: 409,
    title: 'Conflict',
    when: 'updating or deleting an expense that is booked, paid or cancelled (a booked expense is cancelled, which reverses its posting)',
  },
  expense_has_lines: {
    status: 409,
    title: 'Expense has lines',
    when: "setting amount, vat_amount or vat_code on a draft expense with lines (a received e-invoice's): its amount and VAT are its lines' (`field` names the one sent); change a line's account with PUT /expenses/{id}/lines/{line_id}",
  },
  webhook_limit_reached: {
    status: 409,
    title: 'Conflict',
    when: 'creating a 26th active webhook subscription (contract, Limits: 25 per company); delete one first',
  },
  invoice_has_payments: { status: 409, title: 'Conflict', when: 'cancelling an invoice that has payments registered' },
  invoice_not_sendable: {
    status: 409,
    title: 'Invoice not sendable',
    when: 'sending a draft (approve it first) or a cancelled invoice as an e-invoice, or the credit note of an invoice that is not cancelled (it has none) (`current_status` names its status)',
  },
  einvoice_exists: {
    status: 409,
    title: 'E-invoice already queued',
    when: 'sending an invoice (or its credit note) that was queued as an e-invoice before (`message_id` and `current_status` name that message; a failed or rejected one is replayed instead)',
  },
  einvoice_duplicate: {
    status: 409,
    title: 'E-invoice already imported',
    when: 'importing a document its supplier sent before (the same supplier, kind and number): `message_id`, `expense_id` and `imported_at` name the first import',
  },
  einvoice_not_rejectable: {
    status: 409,
    title: 'E-invoice not rejectable',
    when: 'rejecting an e-invoice sent from here, one rejected before (`message_id`: the response sent), or one whose expense is booked or paid already (`expense_id`, `current_status`: cancel the expense and ask for a credit note)',
  },
  einvoice_not_replayable: {
    status: 409,
    title: 'E-invoice not replayable',
    when: 'replaying an e-invoice that is queued, sent or delivered: only a failed or rejected one is sent again (`current_status`)',
  },
  bank_line_matched: {
    status: 409,
    title: 'Bank line already matched',
    when: 'matching or posting a bank line that is matched already (`current_status`); unmatch it first',
  },
  bank_line_not_matched: { status: 409, title: 'Bank line not matched', when: 'unmatching a bank line that is not matched (`current_status`)' },
  reversal_of_document: {
    status: 409,
    title: 'Conflict',
    when: 'reversing the posting of an invoice, payment or credit note through /transactions; change the document instead (cancel the invoice)',
  },
  books_not_empty: {
    status: 409,
    title: 'Conflict',
    when: '(operator CLI) moving the fiscal year start after transactions were posted; a SAF-T import into a company that has postings',
  },
  conflict: {
    status: 409,
    title: 'Conflict',
    when: 'a concurrent change won a race the request lost (a unique constraint); fetch and retry. A bank account on a ledger account that backs another bank account of the company (`field: account_number`)',
  },
  payload_too_large: { status: 413, title: 'Payload too large', when: 'request body over 1 MB (a voucher upload: over 14 MB)' },
  headers_too_large: {
    status: 431,
    title: 'Request header fields too large',
    when: 'the request line and headers exceed 16 KB (a very long URL, say); answered before the request reaches the API, so without rate-limit headers',
  },
  unsupported_media_type: { status: 415, title: 'Unsupported media type', when: 'a request body that is not `application/json`' },
  unbalanced_transaction: { status: 422, title: 'Unbalanced transaction', when: 'total debit does not equal total credit (`field: lines`)' },
  period_locked: { status: 422, title: 'Period locked', when: "a posting dated on or before the company's lock date (`field: date`)" },
  fiscal_year_not_open: { status: 422, title: 'No open fiscal year', when: 'a posting dated outside the open fiscal years (`field: date`)' },
  dimension_required: {
    status: 400,
    title: 'Dimension required',
    when: 'a journal line (posted directly or by a document) on an account on which the company requires a dimension, without a value of it (`field: lines[i].dimensions.<name>`; decision 583); a fixed asset created or changed without a value of a dimension the company requires on one of its accounts (`field: dimensions.<name>`; decision 874)',
  },
  dimension_value_retired: {
    status: 400,
    title: 'Dimension value retired',
    when: 'a new journal line, invoice line or expense naming a retired value of a dimension (`field` names the line and the dimension; decision 581)',
  },
  account_inactive: { status: 422, title: 'Account inactive', when: 'a posting to a deactivated account (`field: lines[i].account_id`)' },
  invoice_incomplete: {
    status: 422,
    title: 'Invoice incomplete',
    when: 'approving an invoice without a customer or without lines (`field` names what is missing)',
  },
  chart_incomplete: {
    status: 422,
    title: 'Chart of accounts incomplete',
    when: 'booking an expense when the chart lacks an account it posts to (7440 payables, 7740 input VAT)',
  },
  exchange_rate_missing: {
    status: 422,
    title: 'Exchange rate missing',
    when: "a document in foreign currency without an `exchange_rate` of its own, dated when the company's rate table (`PUT /exchange-rates`) has no rate of its currency on that day or the 7 days before (`field: exchange_rate`)",
  },
  einvoice_receiver_unsupported: {
    status: 422,
    title: 'Receiver takes neither e-invoice format',
    when: "sending an e-invoice to a customer whose `einvoice_format` is `auto` when the access point's receiver registry says its receiver (`receiver`, `field: customer_id`) takes neither Peppol BIS Billing 3.0 nor OIOUBL 2.1 documents of the kind: nothing is sent",
  },
  peppol_id_required: {
    status: 422,
    title: 'Peppol id required',
    when: "sending an e-invoice to a customer without a `peppol_id` (`field: customer_id`): set the customer's Peppol participant id first",
  },
  email_recipient_required: {
    status: 422,
    title: 'E-mail recipient required',
    when: "e-mailing a document (`channel` email) without `to` when its customer has no `email` (`field: to`): give the addresses or set the customer's e-mail first",
  },
  invoice_not_remindable: {
    status: 409,
    title: 'Invoice takes no reminder',
    when: 'a reminder (`POST /invoices/{id}/reminders`) on a draft, paid or cancelled invoice (`current_status` names it)',
  },
  reminder_limit_reached: {
    status: 409,
    title: 'Reminder limit reached',
    when: 'a fourth reminder on an invoice: renteloven § 9 b allows three',
  },
  reminder_too_early: {
    status: 409,
    title: 'Reminder too early',
    when: "a reminder dated before the day after the due date, or within 10 days of the invoice's last reminder (`next_allowed_date` names the first date allowed; `field: date`)",
  },
  overpayment: { status: 422, title: 'Overpayment', when: "a payment larger than what is left to pay on the invoice, or of a party's opening balances" },
  invoice_not_approved: {
    status: 409,
    title: 'Invoice not approved',
    when: 'the e-invoice (UBL) of a draft: a draft has no number yet; approve it first',
  },
  einvoice_party_unaddressable: {
    status: 422,
    title: 'E-invoice party not addressable',
    when: 'the e-invoice of an invoice whose buyer has no Peppol id, EAN, CVR or EU VAT number, or whose seller (the company) has no CVR',
  },
  vat_code_not_applicable: {
    status: 422,
    title: 'VAT code not applicable',
    when: 'a purchase VAT code on an invoice line, or a sales code on an expense (`detail` names the code and what fits)',
  },
  vat_number_required: {
    status: 422,
    title: 'VAT number required',
    when: 'approving an invoice with an EU B2B sales code (SEUV, SEUVI, SEUY) for a customer without an EU VAT number of another member state',
  },
  vat_period_not_ended: { status: 409, title: 'VAT period not ended', when: 'settling a VAT period whose last day is today or later' },
  vat_period_open_before: {
    status: 409,
    title: 'Earlier VAT period open',
    when: 'settling a VAT period while an earlier period with VAT activity is not settled (`earlier_period` names it)',
  },
  vat_return_settled: {
    status: 409,
    title: 'VAT return already settled',
    when: 'settling a period again; a correction is `{"correction": true}` and only when the books of the period changed',
  },
  vat_return_unchanged: { status: 409, title: 'Nothing to correct', when: 'a correction of a settled VAT period whose figures have not changed since' },
  vat_return_not_settled: {
    status: 409,
    title: 'VAT return not settled',
    when: 'submitting a VAT period to Skattestyrelsen before it is settled (POST /vat-returns/{period}/settle)',
  },
  vat_period_unknown_to_skat: {
    status: 409,
    title: "VAT period not in Skattestyrelsen's calendar",
    when: "submitting a VAT period that Skattestyrelsen's calendar of the company (VirksomhedKalenderHent) does not list: before the company's VAT registration, or in no frequency in force",
  },
  eu_sales_incomplete: {
    status: 409,
    title: 'EU sales list incomplete',
    when: 'exporting the EU sales list (GET /eu-sales/{period}/export) while sales coded SEUV, SEUT or SEUY name no valid foreign VAT number (`problems` of GET /eu-sales): a file leaving them out would be wrong',
  },
  skat_error: {
    status: 422,
    title: 'Refused by Skattestyrelsen',
    when: "Skattestyrelsen answered a filing call with an error code (FejlStruktur): `skat` names the service, the code and Skattestyrelsen's text (4801 the provider is not delegated, 4802 the period is not open, 4803 not ended, 4804 more than 3 years old, 4810 not approved yet, 4811 rejected, 4812/4813 no receipt or draft, 4816, 4817); nothing is stored and nothing is retried",
  },
  skat_gateway_refused: {
    status: 502,
    title: 'Refused by the RSU B2B gateway',
    when: "the gateway refused the message itself (a SOAP fault: the signature, an expired or revoked certificate, a request its schema refuses), or its answer is not signed by the gateway's certificate (SKAT_GATEWAY_CERT_FILE); nothing is stored and nothing is retried",
  },
  skat_not_configured: {
    status: 503,
    title: 'Filing with Skattestyrelsen not set up',
    when: 'a filing call on a server without the RSU B2B settings (SKAT_CERT_FILE, SKAT_CERT_PASSPHRASE, SKAT_GATEWAY_URL, SKAT_GATEWAY_CERT_FILE, SKAT_GATEWAY_CA_FILE), or whose certificate file does not open or has expired: `field` names the setting',
  },
  fiscal_year_blocked: {
    status: 409,
    title: 'Fiscal year cannot be closed',
    when: 'closing a fiscal year while something blocks it: `blockers` lists each (an unsettled VAT period, a draft dated in the year, an earlier year still open)',
  },
  fiscal_year_closed: { status: 409, title: 'Fiscal year closed', when: 'closing a fiscal year that is closed already' },
  fiscal_year_exists: {
    status: 409,
    title: 'Fiscal year exists',
    when: 'opening the fiscal year before the first when it exists already (two opens at once: one opens it)',
  },
  postings_before_first_year: {
    status: 409,
    title: 'Postings before the first fiscal year',
    when: 'opening the year before the first, or entering opening balances, while a posting is dated before the first fiscal year (opening balances, an import of earlier books)',
  },
  opening_balances_exist: { status: 409, title: 'Opening balances exist', when: 'entering opening balances a second time' },
  fiscal_year_not_closed: {
    status: 409,
    title: 'Fiscal year not closed',
    when: 'reopening a fiscal year that is open, or one while a later year is closed (`blockers`)',
  },
  asset_exists: {
    status: 409,
    title: 'Asset exists',
    when: 'creating an asset from an expense that is an asset already, or a line of which is (`field: expense_id`), or from an expense line that is an asset already, or whose expense is one as a whole (`field: expense_line_id`; two creates at once: one is made); cancelling an expense a fixed asset was made from (`field: status`)',
  },
  asset_depreciated: {
    status: 409,
    title: 'Asset depreciated',
    when: 'changing anything but the name of an asset, or deleting it, once a month of its depreciation is posted; disposing of it on a date in or before a month already depreciated (`field: date`)',
  },
  asset_disposed: { status: 409, title: 'Asset disposed of', when: 'disposing of, changing or deleting an asset that was disposed of' },
  rate_limited: {
    status: 429,
    title: 'Rate limit exceeded',
    when: "(contract) more than 100 requests of the credential in any 60 seconds (an OAuth authorization's tokens together); carries `Retry-After` (seconds) and the rate-limit headers; `title` states the limit",
  },
  internal_error: { status: 500, title: 'Internal server error', when: 'a fault of ours; quote the `X-Request-ID`' },
  service_unavailable: {
    status: 503,
    title: 'Service unavailable',
    when: "(contract) voucher storage unavailable; also: the database is unreachable or the server is momentarily out of database connections, or 2 SAF-T exports are already running, or the e-invoice access point's receiver registry file cannot be read (always with `Retry-After`)",
  },
} as const satisfies Record<string, ErrorCodeSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;
export const errorCodes = Object.keys(ERROR_CODES) as ErrorCode[];
