// /fiscal-years: the company's fiscal years with their state and result, closing one (årsafslutning) and
// reopening it (docs/reports.md#closing-the-fiscal-year). Spread into the reports router.
import { z } from 'zod';
import {
  closeFiscalYear,
  DEFAULT_ACCOUNTS,
  listFiscalYears,
  openEarlierFiscalYear,
  payOpeningBalance,
  postOpeningBalances,
  reopenFiscalYear,
  reverseOpeningBalancePayment,
} from '@tlr/domain';
import { single } from '../schemas/envelopes.ts';
import { accountNumber, amountOut, date, dateOut, money, requiredText, text, timestamp, uuid } from '@tlr/domain/fields';
import { lineInput, transactionResource } from './transactions.ts';
import { authedProcedure } from '../trpc.ts';

const tag = 'Accounts';

const fiscalYearResource = z
  .object({
    start_date: dateOut(),
    end_date: dateOut(),
    state: z.enum(['open', 'closed']),
    result: amountOut("The year's result as its profit and loss shows it (profit positive), closing entries left out (DKK)"),
    closing_transaction_id: uuid()
      .nullable()
      .meta({ description: `The closing entry that moved the result to ${DEFAULT_ACCOUNTS.yearResult}; null while open, or when there was nothing to move` }),
    closed_at: timestamp().nullable(),
  })
  .meta({ id: 'FiscalYear' });

const warning = z.object({
  kind: z.literal('bank_unreconciled'),
  bank_account_id: uuid(),
  difference: amountOut('Bank balance minus ledger balance at the end of the year'),
  detail: z.string(),
});

// A journal line without VAT code or currency: balances brought in, not a transaction of the year.
const openingLine = lineInput.pick({ account_id: true, account_number: true, debit: true, credit: true, description: true }).extend({
  customer_id: uuid()
    .optional()
    .meta({ description: `The customer whose balance it is: required on a line of the receivables account ${DEFAULT_ACCOUNTS.receivable}, refused on others` }),
  supplier_id: uuid()
    .optional()
    .meta({ description: `The supplier whose balance it is: required on a line of the payables account ${DEFAULT_ACCOUNTS.payable}, refused on others` }),
  due_date: date().optional().meta({
    description:
      "A customer's or supplier's line: when the balance falls due, for the aged receivables and payables (default the entry's date, the day before the first fiscal year; not before it; refused on other lines)",
  }),
});

const openingPaymentResource = z
  .object({
    id: uuid(),
    customer_id: uuid().nullable(),
    supplier_id: uuid().nullable(),
    date: dateOut(),
    amount: amountOut('DKK'),
    open_amount: amountOut("What is open of the party's opening balances after it (DKK)"),
    transaction_id: uuid().meta({ description: 'The posting' }),
    bank_line_id: uuid().nullable().meta({ description: 'The bank line it was made from and matched to; null when registered without one' }),
    reversed_transaction_id: uuid()
      .nullable()
      .meta({ description: 'The entry that reversed it (POST /opening-balances/payments/{id}/reverse, or unmatching its bank line); null while it counts' }),
  })
  .meta({ id: 'OpeningBalancePayment' });

const startParam = date().meta({ description: 'The first day of the fiscal year, e.g. 2026-01-01' });

export const fiscalYearProcedures = {
  openFiscalYear: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/fiscal-years',
        tags: [tag],
        summary: 'Open the year before the first',
        description:
          "Opens the fiscal year that ends the day before the company's first fiscal year begins, so that last year's books can be posted or imported and closed here. `start` is that year's first day (400 invalid_request naming the start it must be otherwise). Refused with 409 postings_before_first_year while anything is dated before the first year (opening balances), 409 fiscal_year_exists when the year exists already.",
      },
      scopes: ['transactions:write'],
      idempotent: { status: 201 },
      problems: [409],
    })
    .input(z.strictObject({ start: date().meta({ description: 'The first day of the year to open, e.g. 2025-01-01' }) }))
    .output(single(fiscalYearResource))
    .mutation(async ({ ctx, input }) => ({ data: await openEarlierFiscalYear(ctx.tx, ctx.scope, input.start) })),
  openingBalances: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/opening-balances',
        tags: [tag],
        summary: 'Enter the opening balances',
        description: `For a company that starts keeping its books here mid-life: one balanced entry (422 unbalanced_transaction otherwise) of balance-sheet accounts, dated the day before the first fiscal year (source opening_balance), which the first year's trial balance and balance sheet show as its opening balance. A line of the receivables account ${DEFAULT_ACCOUNTS.receivable} names its customer, one of the payables account ${DEFAULT_ACCOUNTS.payable} its supplier, and may carry its due_date: each is an open item of its party in GET /reports/aged-receivables or aged-payables and in the customer's statement (decisions 850-853). One line per open invoice or bill keeps each one's due date. Entered once: 409 opening_balances_exist the second time (correct them with an entry in the first year), 409 postings_before_first_year when anything else is dated before the first year.`,
      },
      scopes: ['transactions:write'],
      idempotent: { status: 201 },
      problems: [409, 422],
    })
    .input(
      z.strictObject({
        description: text(500).optional().meta({ example: 'Åbningsbalance' }),
        lines: z.array(openingLine).min(2, 'needs at least two lines').max(1000, 'has more than 1000 lines'),
      }),
    )
    .output(single(transactionResource))
    .mutation(async ({ ctx, input }) => ({ data: await postOpeningBalances(ctx.tx, ctx.scope, input) })),
  payOpeningBalance: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/opening-balances/payments',
        tags: [tag],
        summary: "Register a payment of a customer's or supplier's opening balance",
        description: `Money received from a customer (debit the bank account, credit receivables ${DEFAULT_ACCOUNTS.receivable}) or paid to a supplier (debit payables ${DEFAULT_ACCOUNTS.payable}, credit the bank account) against what is open of its lines of the opening balances, posted at once (source payment). GET /reports/aged-receivables and aged-payables apply the party's payments to its opening items oldest due first; the customer's statement shows it as a payment. Name customer_id or supplier_id (400 otherwise, or when the party has no opening balance); more than is open: 422 overpayment with balance_due (decision 853). From the bank statement in one step: bank_line_id instead of date and the account (400 naming them if given too) takes the line's booking date, bank account and amount (money in for a customer, out for a supplier, a DKK account; 400 naming bank_line_id otherwise, and an amount given too must be the line's) and matches the line to the payment's posting in the same transaction (409 bank_line_matched if it is matched already); POST /bank-lines/{id}/unmatch then reverses the payment, which stops counting against the party's opening balance (decisions 877-878).`,
      },
      scopes: ['transactions:write'],
      idempotent: { status: 201 },
      problems: [409, 422],
    })
    .input(
      z.strictObject({
        customer_id: uuid().optional().meta({ description: 'The customer who paid (one of customer_id and supplier_id)' }),
        supplier_id: uuid().optional().meta({ description: 'The supplier paid' }),
        amount: money().optional().meta({
          description: "DKK, greater than 0 and at most what is open of the party's opening balances. Required unless bank_line_id is given (then the line's)",
          example: 1000,
        }),
        bank_line_id: uuid().optional().meta({
          description:
            "An unmatched line of a bank statement the money came in or went out on: the payment takes its date, bank account and amount, and the line is matched to the payment's posting (decision 877)",
        }),
        date: date().optional().meta({ description: 'Payment date; default today (Europe/Copenhagen)' }),
        account_id: uuid().optional().meta({ description: 'The bank or cash account (an asset account) the money went through' }),
        account_number: accountNumber()
          .optional()
          .meta({ description: `As account_id, by number; default ${DEFAULT_ACCOUNTS.bank}` }),
      }),
    )
    .output(single(openingPaymentResource))
    .mutation(async ({ ctx, input }) => ({ data: await payOpeningBalance(ctx.tx, ctx.scope, input) })),
  reverseOpeningBalancePayment: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/opening-balances/payments/{id}/reverse',
        tags: [tag],
        summary: 'Reverse a payment of an opening balance',
        description: `Undoes a payment registered without a bank line: its posting is reversed by a new entry (source reversal, the control trail records who), dated today or the payment's date if later, or the first open day after the lock date or a closed year. The payment keeps the reversal (reversed_transaction_id) and stops counting: what is open of the party's opening balances, the aged lists from the reversal's date, and the customer's statement, which shows it as a payment_reversal (decision 890). 409 already_reversed the second time; 409 bank_line_matched while a bank line is matched to its posting: unmatch the line instead (POST /bank-lines/{id}/unmatch, decision 878). The answer's open_amount is what is open after the reversal.`,
      },
      scopes: ['transactions:write'],
      idempotent: { status: 201 },
      problems: [404, 409],
    })
    .input(z.strictObject({ id: uuid().meta({ description: 'The payment (id of POST /opening-balances/payments)' }) }))
    .output(single(openingPaymentResource))
    .mutation(async ({ ctx, input }) => ({ data: await reverseOpeningBalancePayment(ctx.tx, ctx.scope, input.id) })),
  fiscalYears: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/fiscal-years',
        tags: [tag],
        summary: 'Fiscal years',
        description: "The company's fiscal years, the earliest first: each with its state (open or closed), its result and its closing entry.",
      },
      scopes: ['accounts:read'],
    })
    .input(z.strictObject({}))
    .output(z.object({ data: z.array(fiscalYearResource) }))
    .query(async ({ ctx }) => ({ data: await listFiscalYears(ctx.tx, ctx.scope.companyId) })),
  closeFiscalYear: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/fiscal-years/{start}/close',
        tags: [tag],
        summary: 'Close a fiscal year',
        description: `Posts the closing entry on the year's last day: every revenue and expense account's balance for the year moves to ${DEFAULT_ACCOUNTS.yearResult} Overført resultat (the journal writer; source year_end, left out of the profit and loss, which still shows the year's result), then closes the year: nothing more can be posted into it (422 fiscal_year_not_open). Refused with 409 fiscal_year_blocked listing every blocker (\`blockers\`: an unsettled VAT period, a draft invoice or expense dated in the year, an earlier year still open); 409 fiscal_year_closed when it is closed already (two closes at once: one closes, the other gets this). Bank accounts that do not reconcile at the year's end come back as \`warnings\` without refusing. Emits fiscal_year.closed.`,
      },
      scopes: ['transactions:write'],
      idempotent: { status: 201 },
      problems: [409],
    })
    .input(z.strictObject({ start: startParam }))
    .output(single(fiscalYearResource.extend({ warnings: z.array(warning).meta({ description: 'What the close did not refuse over' }) })))
    .mutation(async ({ ctx, input }) => ({ data: await closeFiscalYear(ctx.tx, ctx.scope, input.start) })),
  reopenFiscalYear: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/fiscal-years/{start}/reopen',
        tags: [tag],
        summary: 'Reopen a closed fiscal year',
        description:
          "Reverses the closing entry with a new entry on the year's last day whose text gives the reason (the control trail records who registered it), and opens the year again. Refused with 409 fiscal_year_not_closed when the year is open, or while a later year is closed (`blockers`). Emits fiscal_year.reopened.",
      },
      scopes: ['transactions:write'],
      idempotent: { status: 201 },
      problems: [409],
    })
    .input(z.strictObject({ start: startParam, reason: requiredText(500).meta({ description: 'Why the year is reopened: part of the reversing entry' }) }))
    .output(
      single(
        fiscalYearResource.extend({
          reopening_transaction_id: uuid().nullable().meta({ description: 'The entry that reversed the closing entry; null when there was none' }),
          reason: z.string(),
        }),
      ),
    )
    .mutation(async ({ ctx, input }) => ({ data: await reopenFiscalYear(ctx.tx, ctx.scope, input.start, input.reason) })),
};
