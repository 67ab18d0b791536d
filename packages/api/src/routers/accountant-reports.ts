// The accountant's reports (docs/reports.md): the trial balance, an account's general ledger, receivables
// and payables by age, and a customer's statement; each also as CSV (Accept: text/csv, ApiMeta.csv).
import { z } from 'zod';
import {
  AGE_BUCKETS,
  AGED_LIST,
  AGED_PAYABLE_KINDS,
  AGED_RECEIVABLE_KINDS,
  agedPayables,
  agedReceivables,
  customerStatement,
  emailChannel,
  emailDeliveryResource,
  emailStatement,
  recipients,
  GENERAL_LEDGER_LIST,
  generalLedger,
  STATEMENT_ENTRY_TYPES,
  TRIAL_BALANCE_LIST,
  statementDocument,
  trialBalance,
  reportDimensionParams,
  type CsvTable,
  type StatementDocument,
} from '@tlr/domain';
import { listMeta, single } from '../schemas/envelopes.ts';
import { listQuery } from '../schemas/list-query.ts';
import { accountNumber, amountOut, date, dateOut, uuid } from '@tlr/domain/fields';
import { count, ordinal } from '@tlr/domain/integers';
import { authedProcedure } from '../trpc.ts';
import { metaOf } from '../crud.ts';

const amount = (description: string) => amountOut(`${description} (DKK)`);
const tag = 'Reports';

const periodParams = {
  from: date().optional().meta({ description: 'First posting date included; default the start of the fiscal year containing to' }),
  to: date().optional().meta({ description: 'Last posting date included; default today (Europe/Copenhagen)' }),
};
const asOfParam = { as_of: date().optional().meta({ description: 'The day to age at (inclusive); default today (Europe/Copenhagen)' }) };
const csvOnly = (format: string | undefined) => format === 'csv';

// ---- trial balance --------------------------------------------------------------------------------

const figures = {
  opening_balance: amount('Balance before from, debit positive; a revenue or expense account counts from the start of its fiscal year'),
  debit: amount('Debits posted from..to'),
  credit: amount('Credits posted from..to'),
  closing_balance: amount('opening_balance + debit − credit: the balance at the end of to, debit positive'),
};
const priorFigures = z.object(figures).meta({ id: 'TrialBalanceFigures', description: 'The same figures for the same period one year earlier' });
const trialBalanceRow = z
  .object({
    account_id: uuid(),
    account_number: z.string(),
    name: z.string(),
    type: z.string().meta({ description: 'asset, liability, equity, revenue or expense' }),
    dimension_value: z
      .string()
      .nullable()
      .optional()
      .meta({ description: "With group_by: the value's code of this row's figures; null for the account's lines without a value" }),
    ...figures,
    prior_year: priorFigures,
  })
  .meta({ id: 'TrialBalanceAccount' });
const trialBalanceList = z.object({
  data: z.array(trialBalanceRow),
  meta: listMeta.extend({
    from: dateOut(),
    to: dateOut(),
    prior_from: dateOut().meta({ description: 'from one year earlier (29 February: 28 February)' }),
    prior_to: dateOut(),
    dimensions: z.record(z.string(), z.string()).optional().meta({ description: 'The dimension filter the figures are of, when one was given' }),
    group_by: z.string().optional().meta({ description: 'The grouping, when one was given' }),
    totals: z.object({ ...figures, prior_year: priorFigures }).meta({ description: 'Sums over every account (not only the page); debit equals credit' }),
  }),
});
type TrialBalanceOut = z.infer<typeof trialBalanceList>;
const figureCells = (f: TrialBalanceOut['meta']['totals']['prior_year']) => [f.opening_balance, f.debit, f.credit, f.closing_balance];
const trialBalanceCsv = (out: TrialBalanceOut): CsvTable => ({
  filename: `saldobalance-${out.meta.from}-${out.meta.to}.csv`,
  columns: [
    'account_number',
    'name',
    'type',
    // A column of its own only when the rows are grouped by a dimension.
    ...(out.meta.group_by ? ['dimension_value'] : []),
    'opening_balance',
    'debit',
    'credit',
    'closing_balance',
    'prior_year.opening_balance',
    'prior_year.debit',
    'prior_year.credit',
    'prior_year.closing_balance',
  ],
  rows: out.data.map((r) => [
    r.account_number,
    r.name,
    r.type,
    ...(out.meta.group_by ? [r.dimension_value ?? ''] : []),
    ...figureCells(r),
    ...figureCells(r.prior_year),
  ]),
});

// ---- general ledger -------------------------------------------------------------------------------

const ledgerLine = z
  .object({
    date: dateOut(),
    transaction_id: uuid(),
    document_number: ordinal().meta({ description: "The posting's number from the unified document number sequence (bilagsnummer)" }),
    system_id: ordinal().meta({ description: 'The gapless SystemID of the posting' }),
    voucher_id: z.string().meta({ description: 'The voucher (bilag) attached to the posting; empty string when none' }),
    source: z.string().meta({ description: 'What made the posting: manual, reversal, invoice, expense, payment, ...' }),
    line_number: z.int().min(1).max(32767),
    description: z.string().meta({ description: "The line's text, else the posting's" }),
    debit: amount('Debit'),
    credit: amount('Credit'),
    balance: amount('The balance of the account after this line, debit positive'),
    counterparts: z
      .array(z.object({ account_number: z.string(), name: z.string() }))
      .meta({ description: 'The other accounts of the posting (modkonti), by number' }),
  })
  .meta({ id: 'GeneralLedgerLine' });
const generalLedgerList = z.object({
  data: z.array(ledgerLine),
  meta: listMeta.extend({
    account: z.object({ id: uuid(), account_number: z.string(), name: z.string(), type: z.string() }),
    from: dateOut(),
    to: dateOut(),
    opening_balance: figures.opening_balance,
    debit: figures.debit,
    credit: figures.credit,
    closing_balance: figures.closing_balance,
  }),
});
type GeneralLedgerOut = z.infer<typeof generalLedgerList>;
const generalLedgerCsv = (out: GeneralLedgerOut): CsvTable => ({
  filename: `kontokort-${out.meta.account.account_number}-${out.meta.from}-${out.meta.to}.csv`,
  columns: ['date', 'document_number', 'system_id', 'transaction_id', 'voucher_id', 'description', 'counterparts', 'debit', 'credit', 'balance'],
  rows: [
    // The first row is the opening balance (primo), the last the closing balance (ultimo).
    [out.meta.from, null, null, null, null, 'Primo', null, null, null, out.meta.opening_balance],
    ...out.data.map((l) => [
      l.date,
      l.document_number,
      l.system_id,
      l.transaction_id,
      l.voucher_id,
      l.description,
      l.counterparts.map((c) => c.account_number).join(' '),
      l.debit,
      l.credit,
      l.balance,
    ]),
    [out.meta.to, null, null, null, null, 'Ultimo', null, out.meta.debit, out.meta.credit, out.meta.closing_balance],
  ],
});

// ---- aged receivables and payables ----------------------------------------------------------------

const buckets = {
  not_due: amount('Open and not yet due at as_of'),
  days_1_30: amount('1 to 30 days past due'),
  days_31_60: amount('31 to 60 days past due'),
  days_61_90: amount('61 to 90 days past due'),
  days_over_90: amount('More than 90 days past due'),
  total: amount('Everything open'),
};
const OPENING_KIND = (what: string) =>
  `${what}, or opening_balance: a line of the opening balances (POST /opening-balances) naming the party, numbered by the entry's voucher, dated the entry's date, due on the line's due_date (decision 851)`;
const agedDocument = (what: string) => ({
  document_number: z.string().meta({ description: `The ${what}'s number (the opening entry's for an opening balance)` }),
  date: dateOut(),
  due_date: dateOut(),
  days_overdue: count().meta({ description: 'Days from the due date to as_of; 0 when not due' }),
  bucket: z.enum(AGE_BUCKETS),
  open_amount: amount('What is open of it at as_of'),
});
const agedMeta = listMeta.extend({
  as_of: dateOut(),
  currency: z.literal('DKK'),
  totals: z.object(buckets).meta({ description: 'Sums over every party (not only the page)' }),
});
const noParty = 'null for the documents without one';
const agedReceivablesList = z.object({
  data: z.array(
    z
      .object({
        customer_id: uuid().nullable().meta({ description: noParty }),
        name: z.string(),
        ...buckets,
        documents: z.array(
          z.object({
            invoice_id: uuid().nullable().meta({ description: 'The invoice; null for an opening balance' }),
            kind: z.enum(AGED_RECEIVABLE_KINDS).meta({ description: OPENING_KIND('invoice') }),
            ...agedDocument('invoice'),
          }),
        ),
      })
      .meta({ id: 'AgedReceivablesCustomer' }),
  ),
  meta: agedMeta,
});
const agedPayablesList = z.object({
  data: z.array(
    z
      .object({
        supplier_id: uuid().nullable().meta({ description: noParty }),
        name: z.string(),
        ...buckets,
        documents: z.array(
          z.object({
            expense_id: uuid().nullable().meta({ description: 'The expense; null for an opening balance' }),
            kind: z.enum(AGED_PAYABLE_KINDS).meta({ description: OPENING_KIND('expense') }),
            ...agedDocument('expense posting'),
          }),
        ),
      })
      .meta({ id: 'AgedPayablesSupplier' }),
  ),
  meta: agedMeta,
});

type AgedOut = { data: Record<string, unknown>[]; meta: { as_of: string } };
const agedCsv =
  (name: string, idField: string, docField: string) =>
  (out: AgedOut): CsvTable => ({
    filename: `${name}-${out.meta.as_of}.csv`,
    columns: [idField, 'name', docField, 'document_number', 'date', 'due_date', 'days_overdue', ...AGE_BUCKETS],
    // One row per open document; its amount stands in its bucket's column, so a column sums to the bucket.
    rows: out.data.flatMap((p) =>
      (p.documents as Record<string, string | number>[]).map((d) => [
        p[idField] as string | null,
        p.name as string,
        d[docField],
        d.document_number,
        d.date,
        d.due_date,
        d.days_overdue,
        ...AGE_BUCKETS.map((b) => (d.bucket === b ? d.open_amount : 0)),
      ]),
    ),
  });

// ---- customer statement ---------------------------------------------------------------------------

const statementResource = z
  .object({
    customer: z.object({
      id: uuid(),
      name: z.string(),
      address_line1: z.string(),
      address_line2: z.string(),
      postal_code: z.string(),
      city: z.string(),
      country: z.string(),
      cvr: z.string(),
      email: z.string(),
    }),
    from: dateOut(),
    to: dateOut(),
    currency: z.literal('DKK'),
    opening_balance: amount("What the customer owed at the start of from (the customer's opening balances included)"),
    debit: amount('Invoices, undone payments and reminder charges in the period'),
    credit: amount('Payments and credit notes in the period'),
    closing_balance: amount('What the customer owed at the end of to'),
    lines: z.array(
      z
        .object({
          date: dateOut(),
          type: z.enum(STATEMENT_ENTRY_TYPES),
          document_number: z.string().meta({
            description:
              "The invoice's number (the credit note's own for a credit_note, the posting's for an opening_entry and for a payment of the opening balances)",
          }),
          invoice_id: uuid().nullable().meta({ description: 'The invoice; null for an opening_entry and for a payment of the opening balances' }),
          due_date: dateOut().nullable().meta({ description: "An invoice's or opening_entry's due date; null on the other lines" }),
          debit: amount('What the line adds to the balance'),
          credit: amount('What the line takes off the balance'),
          balance: amount('The balance after the line'),
        })
        .meta({ id: 'StatementLine' }),
    ),
  })
  .meta({ id: 'CustomerStatement' });
type StatementOut = { data: z.infer<typeof statementResource> };
const statementCsv = ({ data: s }: StatementOut): CsvTable => ({
  filename: `kontoudtog-${s.from}-${s.to}.csv`,
  columns: ['date', 'type', 'document_number', 'invoice_id', 'due_date', 'debit', 'credit', 'balance'],
  rows: [
    [s.from, 'opening_balance', null, null, null, null, null, s.opening_balance],
    ...s.lines.map((l) => [l.date, l.type, l.document_number, l.invoice_id, l.due_date, l.debit, l.credit, l.balance]),
    [s.to, 'closing_balance', null, null, null, s.debit, s.credit, s.closing_balance],
  ],
});

const CSV_NOTE = ' With `Accept: text/csv` the whole report comes as CSV instead (every row; docs/reports.md).';

export const accountantReports = {
  trialBalance: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/reports/trial-balance',
        tags: [tag],
        summary: 'Trial balance (saldobalance)',
        description:
          'Every account with a figure in the period or in the same period one year earlier, by account number: the balance before from, the debits and credits from..to and the balance at the end, with the same figures for the period one year earlier beside them. Balances are debit positive. ' +
          'dimension[<name>]=<code> keeps the journal lines carrying that value (the balances too are of those lines only); group_by=dimension:<name> gives a row per account and value (dimension_value), then one for the lines without a value (null), which add up to the account.' +
          CSV_NOTE,
      },
      scopes: ['reports:read'],
      csv: trialBalanceCsv as (o: never) => CsvTable,
    })
    .input(listQuery(TRIAL_BALANCE_LIST, 'Case-insensitive search in the account number and name').extend({ ...periodParams, ...reportDimensionParams }))
    .output(trialBalanceList)
    .query(async ({ ctx, input }) => trialBalance(ctx.tx, ctx.scope.companyId, { ...input, all: csvOnly(ctx.format) })),
  generalLedger: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/reports/general-ledger',
        tags: [tag],
        summary: 'General ledger of an account (kontokort)',
        description:
          "An account's journal lines from..to in posting order (date, then SystemID), each with the balance after it, its document number, voucher and the other accounts of the posting; meta has the opening and closing balance." +
          CSV_NOTE,
      },
      scopes: ['reports:read'],
      csv: generalLedgerCsv as (o: never) => CsvTable,
    })
    .input(
      listQuery(GENERAL_LEDGER_LIST, "Case-insensitive search in the line's text").extend({
        account: accountNumber().meta({ description: 'The account number, e.g. 6470' }),
        ...periodParams,
      }),
    )
    .output(generalLedgerList)
    .query(async ({ ctx, input }) => generalLedger(ctx.tx, ctx.scope.companyId, { ...input, all: csvOnly(ctx.format) })),
  agedReceivables: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/reports/aged-receivables',
        tags: [tag],
        summary: 'Receivables by age',
        description:
          "Each customer with approved invoices open at the end of as_of, by name, the open amounts in buckets by days past the due date (not due, 1-30, 31-60, 61-90, over 90) and the invoices behind them. A customer's lines of the opening balances are open items of kind opening_balance, aged by their due_date (decision 851). Amounts in DKK as the invoices were posted." +
          CSV_NOTE,
      },
      scopes: ['reports:read'],
      csv: agedCsv('debitorer', 'customer_id', 'invoice_id') as (o: never) => CsvTable,
    })
    .input(listQuery(AGED_LIST, 'Case-insensitive search in the name and the document numbers').extend(asOfParam))
    .output(agedReceivablesList)
    .query(async ({ ctx, input }) => agedReceivables(ctx.tx, ctx.scope.companyId, { ...input, all: csvOnly(ctx.format) })),
  agedPayables: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/reports/aged-payables',
        tags: [tag],
        summary: 'Payables by age',
        description:
          "Each supplier with booked expenses unpaid at the end of as_of, by name, the open amounts in buckets by days past the due date (not due, 1-30, 31-60, 61-90, over 90) and the expenses behind them. A supplier's lines of the opening balances are open items of kind opening_balance, aged by their due_date (decision 851). Amounts in DKK as the expenses were posted." +
          CSV_NOTE,
      },
      scopes: ['reports:read'],
      csv: agedCsv('kreditorer', 'supplier_id', 'expense_id') as (o: never) => CsvTable,
    })
    .input(listQuery(AGED_LIST, 'Case-insensitive search in the name and the document numbers').extend(asOfParam))
    .output(agedPayablesList)
    .query(async ({ ctx, input }) => agedPayables(ctx.tx, ctx.scope.companyId, { ...input, all: csvOnly(ctx.format) })),
  customerStatement: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/customers/{id}/statement',
        tags: [tag],
        summary: 'Customer statement (kontoudtog)',
        description:
          "The customer's balance at the start of from, each invoice, credit note, payment, undone payment and reminder charge from..to with the balance after it, and the balance at the end of to, in DKK. The customer's lines of the opening balances (POST /opening-balances) are entries of type opening_entry on the entry's date, the day before the first fiscal year: the first year's statement has them in its opening_balance (decision 852)." +
          ' With `Accept: text/csv` the lines come as CSV.',
      },
      scopes: ['reports:read'],
      csv: statementCsv as (o: never) => CsvTable,
    })
    .input(z.strictObject({ id: uuid(), ...periodParams }))
    .output(single(statementResource))
    .query(async ({ ctx, input }) => ({ data: await customerStatement(ctx.tx, ctx.scope.companyId, input) })),
  customerStatementPdf: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/customers/{id}/statement/pdf',
        tags: [tag],
        summary: 'Customer statement (kontoudtog) as a PDF',
        description:
          'The statement of GET /customers/{id}/statement as a Danish PDF for the customer: the seller and the customer as on the invoice, the period, the balance at its start, each line with the balance after it, the balance owed at its end and where to pay.',
      },
      scopes: ['reports:read'],
      raw: {
        contentType: 'application/pdf',
        description: 'The PDF (A4, one or more pages), made on request from the books as they are now.',
        schema: { type: 'string', format: 'binary' },
        headers: { 'Content-Disposition': 'inline; filename="kontoudtog-<from>-<to>.pdf"' },
      },
    })
    .input(z.strictObject({ id: uuid(), ...periodParams }))
    .output(z.custom<StatementDocument>().meta({ type: 'object', description: 'What the PDF shows; the HTTP shell renders it' }))
    .query(({ ctx, input }) => statementDocument(ctx.tx, ctx.scope.companyId, input)),
  customerStatementSend: authedProcedure
    .meta(
      metaOf(
        {
          path: '/customers/{id}/statement/send',
          tag,
          summary: 'E-mail a customer statement (kontoudtog)',
          description:
            "The PDF of GET /customers/{id}/statement/pdf for `period` (default as there: from the start of the fiscal year to today) attached to an e-mail to the customer's email, or to `to` (422 email_recipient_required when there are none), written from the company's statement template (GET/PUT /settings/email-templates), Reply-To the company's e-mail. 202 with the delivery; a worker hands it to the SMTP server, retrying on the webhook schedule, and it becomes sent or, after the 8th failure, failed with the server's answer (docs/email.md).",
          scope: ['reports:read', 'invoices:write'],
          problems: [422],
        },
        'POST',
        { idempotent: { status: 202 } },
      ),
    )
    .input(
      z.strictObject({
        id: uuid(),
        channel: emailChannel,
        to: recipients().optional(),
        period: z
          .strictObject(periodParams)
          .optional()
          .meta({ description: "The statement's period: from and to, as the query of GET /customers/{id}/statement" }),
      }),
    )
    .output(single(emailDeliveryResource))
    .mutation(async ({ ctx, input }) => ({ data: await emailStatement(ctx.tx, ctx.scope, input.id, input.period ?? {}, input.to) })),
};
