// The bank statement and bank line resources, once: the `BankStatement` and `BankLine` components of
// the OpenAPI document, the domain's view and input types, the bodies of what a user does with a line
// (match, post) and the query of an import (format options) all come from here. Amounts are JSON
// numbers of at most 2 decimals, exactly as every amount of the API.
import { z } from 'zod';
import { accountNumber, amountOut, dateOut, timestamp, uuid } from '../fields.ts';
import { count } from '../integers.ts';

export const BANK_LINE_STATUSES = ['unmatched', 'matched'] as const;
export type BankLineStatus = (typeof BANK_LINE_STATUSES)[number];
export const BANK_MATCH_TYPES = ['invoice', 'expense', 'transaction', 'posting'] as const;
export const BALANCE_STATUSES = ['ok', 'mismatch', 'not_stated'] as const;
export type BalanceStatus = (typeof BALANCE_STATUSES)[number];

const match = z
  .object({
    type: z.enum(BANK_MATCH_TYPES).meta({ description: 'What the line was matched to' }),
    invoice_id: z.guid().nullable(),
    expense_id: z.guid().nullable(),
    transaction_id: z.guid().nullable().meta({ description: 'The ledger transaction the line is reconciled with' }),
    matched_by: z.enum(['auto', 'manual']),
    matched_at: timestamp(),
  })
  .nullable()
  .meta({ description: 'null while unmatched' });

const suggestion = z.object({
  type: z.enum(BANK_MATCH_TYPES),
  id: z.guid().meta({ description: 'The invoice, expense or transaction suggested' }),
  score: z.number().meta({ description: 'Higher is likelier' }),
  reasons: z.array(z.string()),
});

export const bankLineResource = z
  .object({
    id: z.guid(),
    bank_account_id: z.guid(),
    statement_id: z
      .guid()
      .meta({ description: 'The statement that first brought the line (a later statement that carries it again counts it as a duplicate)' }),
    booking_date: dateOut().meta({ description: 'Bogføringsdato: the day the bank booked the entry' }),
    value_date: dateOut().nullable().meta({ description: 'Rentedato (valør); null when the file gives none' }),
    amount: amountOut('Signed, in the bank account currency: positive money in, negative money out'),
    currency: z.string().meta({ description: "ISO 4217, always the bank account's currency", example: 'DKK' }),
    text: z.string().meta({ description: 'The text the bank shows (docs/bank-statements.md says which fields of a file it is made of)' }),
    counterparty_name: z.string().meta({ description: 'The payer of money in, the payee of money out; "" when the file does not say' }),
    counterparty_iban: z.string().meta({ description: 'The counterparty\'s IBAN, "" when the file does not say' }),
    reference: z
      .string()
      .meta({ description: 'The structured creditor reference (an FI payment id such as +71 and 15 digits) or the end-to-end id; "" when none' }),
    bank_reference: z.string().meta({ description: 'The bank\'s own id of the entry (camt.053 AcctSvcrRef); "" when none' }),
    status: z.enum(BANK_LINE_STATUSES),
    match,
    suggestions: z.array(suggestion).meta({ description: 'Ranked candidates when automatic matching found more than one; [] otherwise' }),
    created_at: timestamp(),
  })
  .meta({ id: 'BankLine', description: 'One line of a bank account statement, stored once however many statements carry it' });
export type BankLineView = z.input<typeof bankLineResource>;

export const bankStatementResource = z
  .object({
    id: z.guid(),
    bank_account_id: z.guid(),
    format: z.string().meta({ description: 'camt.053.001.02 to camt.053.001.08, csv:<preset> or csv (a column mapping)', example: 'camt.053.001.02' }),
    file_name: z.string().meta({ description: 'The `file_name` parameter, else the Content-Disposition filename; "" when neither' }),
    statement_ref: z.string().meta({ description: 'camt.053 Stmt/Id (several statements in one file: their ids, comma separated); "" for CSV' }),
    from_date: dateOut().nullable().meta({ description: 'The first day the statement covers (camt.053 FrToDt, else its earliest line); null without lines' }),
    to_date: dateOut().nullable().meta({ description: 'The last day the statement covers; null without lines' }),
    balance: z.object({
      status: z.enum(BALANCE_STATUSES).meta({
        description:
          'ok: opening balance plus the lines is the closing balance (camt.053), or every running balance agrees (CSV); mismatch: it is not (see difference; the lines are imported all the same); not_stated: the file states no balances to check',
      }),
      opening: amountOut('The opening balance stated (CSV: derived from the first running balance); null when none').nullable(),
      closing: amountOut('The closing balance stated; null when none').nullable(),
      difference: amountOut(
        'On a mismatch: the stated closing balance minus opening plus the lines (CSV: the first running balance that breaks, minus what it should be); null otherwise',
      ).nullable(),
    }),
    lines: z.object({
      total: count().meta({ description: 'Booked lines in the file' }),
      new: count().meta({ description: 'Lines stored by this import' }),
      duplicates: count().meta({ description: 'Lines an earlier import (or a concurrent one) had stored already: not stored again' }),
    }),
    created_at: timestamp(),
  })
  .meta({ id: 'BankStatement', description: 'One imported bank statement file: what it stated and what its lines came to' });
export type BankStatementView = z.input<typeof bankStatementResource>;

/** POST /bank-lines/{id}/match: exactly one of the three (match-bank-line.ts says so when not). */
export const bankLineMatchBody = z.strictObject({
  invoice_id: uuid().optional().meta({ description: 'An open invoice the line pays (money in): a payment of the line amount, at most the balance due' }),
  expense_id: uuid().optional().meta({ description: 'A booked expense the line pays in full (money out; money in for a credit note)' }),
  transaction_id: uuid().optional().meta({
    description: "A posting already in the books with a line of the same amount on the bank account's ledger account that no other bank line reconciles",
  }),
});
export type MatchInput = z.output<typeof bankLineMatchBody>;

/** POST /bank-lines/{id}/post. */
export const bankLinePostBody = z.strictObject({
  account_number: accountNumber().meta({
    description: "The account on the other side of the bank's ledger account (a fee, interest, an owner's draw)",
    example: '7590',
  }),
  vat_code: z.string().max(20).optional().meta({ description: 'A VAT code of the company; the line amount includes its VAT', example: 'K25' }),
  description: z.string().max(500).optional().meta({ description: "The posting's text; default the line's text" }),
});
export type PostLineInput = z.output<typeof bankLinePostBody>;
