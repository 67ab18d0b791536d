// /transactions: the general ledger. Posted transactions are immutable (no PUT, no DELETE); a
// correction is POST /transactions/{id}/reverse.
import { z } from 'zod';
import {
  createTransaction,
  lineDimensions,
  getTransaction,
  listTransactions,
  POSTING_SOURCES,
  reverseTransaction,
  TRANSACTION_LIST,
  registrationFields,
} from '@tlr/domain';
import { createEndpoint, getEndpoint, listEndpoint } from '../crud.ts';
import { single } from '../schemas/envelopes.ts';
import { accountNumber, amountOut, currency, date, dateOut, exchangeRate, money, text, timestamp, uuid, vatCode } from '@tlr/domain/fields';
import { authedProcedure, router } from '../trpc.ts';
import { lineNumber, ordinal } from '@tlr/domain/integers';

export const lineInput = z.strictObject({
  account_id: uuid().optional().meta({ description: 'The account; or give account_number' }),
  account_number: accountNumber().optional().meta({ example: '1010' }),
  debit: money({ min: 0 }).optional().meta({ description: 'Debit in DKK; a line has a debit or a credit, not both' }),
  credit: money({ min: 0 }).optional().meta({ description: 'Credit in DKK' }),
  description: text(500).optional(),
  vat_code: vatCode().meta({
    description:
      'VAT code (momskode) the line belongs to, any code of the company (GET /vat-codes), e.g. S25; VAT lines are posted explicitly. A coded line on an account other than the VAT accounts is a base in the VAT return',
    example: 'S25',
  }),
  // A registration in foreign currency (bogføringsloven § 15): all three, or none for a DKK line.
  currency: currency().optional().meta({
    description:
      'Valuta: a line registered in foreign currency gives currency, currency_amount and exchange_rate together (none for a DKK line; DKK itself is refused). debit or credit stays the DKK amount and must equal currency_amount × exchange_rate rounded half up to øre',
    example: 'EUR',
  }),
  currency_amount: money({ min: 0.01 })
    .optional()
    .meta({ description: 'Beløb i valuta: the amount of the line in its currency, at most 2 decimals', example: 100 }),
  exchange_rate: exchangeRate().optional(),
  dimensions: lineDimensions().optional(),
});

const transactionBody = z.strictObject({
  date: date().meta({ description: 'Posting date; must lie in an open fiscal year and after the lock date' }),
  description: text(500).optional().meta({ example: 'Husleje november' }),
  voucher_id: uuid().optional().meta({
    description:
      "A voucher of the company that documents the posting: it records transaction_id and is kept until five years after the end of the financial year (then it cannot be deleted). Another company's voucher, or one attached elsewhere: 400 invalid_request",
  }),
  lines: z.array(lineInput).min(2, 'needs at least two lines').max(1000, 'has more than 1000 lines'),
});

export const transactionResource = z
  .object({
    id: z.guid(),
    document_number: ordinal().meta({ description: "Number in the company's unified document number sequence (gapless)" }),
    system_id: ordinal().meta({ description: 'Gapless posting-order number (SAF-T SystemID)' }),
    date: dateOut(),
    description: z.string(),
    source: z.string().meta({ description: `What produced it: ${POSTING_SOURCES.join(', ')}` }),
    source_journal_id: z
      .string()
      .nullable()
      .meta({ description: 'An imported posting (source import): the JournalID of the SAF-T file it came from; null otherwise' }),
    source_transaction_id: z
      .string()
      .nullable()
      .meta({ description: 'An imported posting: the TransactionID in the SAF-T file (OPENING for the opening balances); null otherwise' }),
    reverses_transaction_id: z.string().nullable(),
    reversed_by_transaction_id: z.string().nullable(),
    voucher_id: z.string(),
    total_debit: amountOut(),
    total_credit: amountOut(),
    currency: z.string(),
    lines: z.array(
      z.object({
        line_number: lineNumber(),
        account_id: z.guid(),
        account_number: z.string(),
        account_name: z.string(),
        debit: amountOut(),
        credit: amountOut(),
        description: z.string(),
        vat_code: z.string(),
        currency: z.string().nullable().meta({ description: 'Valuta of a line registered in foreign currency; null for a DKK line', example: 'EUR' }),
        currency_amount: amountOut().nullable().meta({ description: 'Beløb i valuta: the amount in that currency; null for a DKK line', example: 100 }),
        exchange_rate: amountOut()
          .nullable()
          .meta({ description: 'Valutakurs, DKK pr. enhed, that made debit or credit; null for a DKK line', example: 7.4612 }),
        dimensions: z
          .record(z.string(), z.string())
          .meta({ description: 'The dimension values the line was posted with, by dimension name ({} for none)', example: { Projekt: 'A' } }),
      }),
    ),
    created_at: timestamp(),
    ...registrationFields,
  })
  .meta({ id: 'Transaction' });

const tag = 'Transactions';
export const transactionsRouter = router({
  list: listEndpoint({
    path: '/transactions',
    tag,
    summary: 'List ledger transactions',
    scope: 'transactions:read',
    spec: TRANSACTION_LIST,
    searchDescription: 'Case-insensitive search in the description',
    resource: transactionResource,
    run: listTransactions,
  }),
  get: getEndpoint({
    path: '/transactions/{id}',
    tag,
    summary: 'Get a ledger transaction',
    scope: 'transactions:read',
    resource: transactionResource,
    run: getTransaction,
  }),
  create: createEndpoint({
    path: '/transactions',
    tag,
    summary: 'Post a ledger transaction',
    description:
      'Total debit must equal total credit exactly (422 unbalanced_transaction); the date must be after the lock date (422 period_locked) and inside an open fiscal year (422 fiscal_year_not_open). Accounts must be active accounts of the company. A line registered in foreign currency (bogføringsloven § 15) gives its currency, currency_amount and exchange_rate (valutakurs, DKK pr. enhed); its debit or credit is the DKK amount, currency_amount × exchange_rate rounded half up to øre, or 400 invalid_request names that debit or credit.',
    scope: 'transactions:write',
    problems: [422],
    body: transactionBody,
    resource: transactionResource,
    run: createTransaction,
  }),
  reverse: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/transactions/{id}/reverse',
        tags: [tag],
        summary: 'Reverse a transaction',
        description:
          'Posts a new transaction with debit and credit swapped (at most once per transaction; 409 already_reversed). Default date today (Europe/Copenhagen).',
      },
      scopes: ['transactions:write'],
      idempotent: { status: 201 },
      problems: [409, 422],
    })
    .input(z.strictObject({ id: uuid(), date: date().optional(), description: text(500).optional() }))
    .output(single(transactionResource))
    .mutation(async ({ ctx, input: { id, ...options } }) => ({ data: await reverseTransaction(ctx.tx, ctx.scope, id, options) })),
});
