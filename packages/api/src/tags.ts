// The catalogue of OpenAPI tags: the sections of the API reference, in this order, each with what an
// integrator finds there. Every operation names one of these (ApiMeta types its tags by this catalogue).

export const TAGS = {
  Invoices:
    'Sales invoices from draft to paid. Approval (PUT /invoices/{id}/status, or `auto_approve` on create) draws the next number from the ' +
    "company's unified document number sequence and posts the invoice to the general ledger; payments, cancellation by credit note and " +
    'the PDF follow. Only a draft may be updated or deleted.',
  'Recurring invoices':
    "Templates that make an invoice every month, quarter or year (abonnementsfakturaer): a job makes each period's invoice once, in order, " +
    'catching up after downtime, as a draft, approved, or approved and sent as an e-invoice. Scopes invoices:read and invoices:write.',
  'E-invoices':
    'Invoices sent over Peppol (NemHandel) with POST /invoices/{id}/send: the access point gets each document at least once, retried on ' +
    'the webhook schedule; a message that failed or was rejected can be replayed. Documents received (POST /einvoices/inbound, the ' +
    "access point's inbox) become draft expenses, and their senders get invoice responses: received, accepted (booked), rejected.",
  Quotes:
    "Quotes (tilbud) from draft to accepted: sending one numbers it in the company's own gapless quote series; accepting it makes the " +
    'invoice of its lines (a draft, or approved), linked both ways; a sent quote past valid_until expires (a daily job). Scopes: invoices:read and invoices:write.',
  Customers: 'The companies and people invoices are issued to, with a lookup by CVR, Peppol id, e-mail or telephone number.',
  Products: 'Goods and services with a default unit price and VAT rate, used as defaults of invoice lines.',
  Expenses: 'Supplier bills (amounts include VAT), from draft to booked (posted to the ledger) and paid; an expense may carry a voucher that documents it.',
  Suppliers: 'The companies expenses are bought from, with their bank details.',
  Vouchers:
    'Vouchers (bilag): the documents that support entries, uploaded as base64 JSON (at most 10 MB decoded) and downloaded as the stored bytes. ' +
    'Needs both vouchers:read and vouchers:write.',
  Accounts: 'The chart of accounts (seeded with the Danish standard chart for every company and sandbox) and the accounting settings.',
  Transactions:
    'The general ledger: balanced postings (total debit equals total credit) with a gapless SystemID and a number from the unified document ' +
    'number sequence. Posted transactions are immutable; a reversal posts the opposite.',
  'Exchange rates':
    "The company's exchange-rate table (valutakurser): DKK pr. enhed per currency and day, put through the API or loaded from Nationalbankens " +
    'referencekurser by the operator. A document in foreign currency without a rate of its own takes the latest rate of its date or the 7 days before.',
  'Bank accounts':
    "The company's bank accounts (bankkonti), each reconciled to one active asset account of the chart (default 6470 Bankkonto); " +
    'a ledger account backs at most one bank account. Statements are imported as the bank gives them (camt.053, Danish bank CSV), each ' +
    'line stored once; lines are matched to invoices (FI payment id +71), expenses and postings automatically when unambiguous, or by ' +
    'hand; the reconciliation shows the unreconciled difference (bank minus ledger).',
  Assets:
    'Fixed assets (anlægskartotek): cost, useful life, residual value and accounts; straight-line depreciation posted monthly by a daily job ' +
    '(each month once, caught up after downtime); disposal with its gain or loss; the register at a date and the tax view (saldo method). ' +
    'Scopes transactions:read and transactions:write (reports:read for the register and the tax view).',
  Reports: 'Balance sheet and profit and loss statement, computed from the postings.',
  Dimensions:
    'Dimensions (afdelinger, projekter): named lists of values a journal line, an invoice line or an expense carries ({"Projekt": "A"}); ' +
    'values are added and retired, never deleted; a dimension can be required on chosen accounts. The profit and loss and the trial balance ' +
    'filter and group by them, and SAF-T carries them as Analysis.',
  Budgets: 'Budgets per fiscal year: an amount per revenue or expense account per month, shown beside the actuals in GET /reports/profit-loss?budget={id}.',
  'Audit trail':
    'The control trail (kontrolspor, bogføringsloven): who registered what and when. Every posting, invoice and its state changes, expense, ' +
    'voucher, payment, VAT settlement, bank match and master-data change records its actor (API key, OAuth application and the owner who ' +
    'approved it, the owner on their pages, support staff, the operator or tlr itself), the database time and the request id. The trail is ' +
    'append-only: the database refuses to change or delete it.',
  VAT:
    "The company's VAT codes (momskoder) and the VAT return (momsangivelse) of each period, computed from the ledger in whole kroner, with the " +
    'journal lines behind every field; settling a period posts the momsafregning, files the return and locks the period.',
  Exports: 'The Danish SAF-T Financial file of a period, streamed as XML.',
  Imports:
    'A company switching system brings its books as a Danish SAF-T Financial file: checked against the XSD, then imported in the background into ' +
    'fresh books, everything or nothing; the same file imports once. See docs/saft-import.md.',
  Settings: 'The company itself: name, CVR, books settings and the seller profile printed on invoices.',
  Webhooks:
    'Subscriptions to signed event notifications (scope webhooks:manage): at most 25 per company, HTTPS only; deliveries are retried up to ' +
    '8 times (1, 2, 4, 8, 16, 32 minutes, then 1 hour) and can be replayed.',
  Sandbox: 'Test mode: a test API key works on an isolated sandbox company, which POST /sandbox/reset restores to a freshly provisioned state.',
  OAuth:
    'Token exchange and revocation for partner applications (authorization code with PKCE, S256 only). Served under {app_url}, not under ' +
    '{base_url}; the browser authorization page is {app_url}/oauth/authorize.',
  Meta: 'Public documents that need no credentials: this OpenAPI description and the service discovery document.',
} as const;

export type Tag = keyof typeof TAGS;

/** The document's top-level `tags`, in the catalogue's order (the reference's order of sections). */
export const openApiTags = () => Object.entries(TAGS).map(([name, description]) => ({ name, description }));
