// An expense's fields, once: the create and update bodies and that of a status change, the resource
// the API answers with (its OpenAPI component), and the domain's input and view types derived from them.
import { lineDimensions } from '../dimensions/schema.ts';
import { z } from 'zod';
import { accountNumber, amountOut, boolean, currency, date, dateOut, exchangeRate, money, percent, text, timestamp, uuid, vatCode } from '../fields.ts';
import { lineNumber, ordinal } from '../integers.ts';
import { EXPENSE_STATUSES } from './rules.ts';
import { registrationFields } from '../trail/actor.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';
import { paymentMeansResource } from '../einvoice/schema.ts';
import { EXPENSE_LINE_KINDS, LINE_ACCOUNT_SOURCES } from './line-rules.ts';
import { accrualInput, accrualResource } from '../accruals/schema.ts';

const fields = {
  supplier_id: uuid().nullable().optional().meta({ description: 'A supplier of the company; optional (a till receipt has none)' }),
  voucher_id: uuid().nullable().optional().meta({
    description:
      "An uploaded voucher of the company documenting the expense; it gets expense_id. Another company's (or the other mode's) voucher, or one attached elsewhere: 400 invalid_request",
  }),
  date: date().meta({ description: 'The date of the bill; booking posts on it' }),
  due_date: date().optional().meta({ description: 'When it is to be paid; default date; not before it' }),
  description: text(500).optional().meta({ example: 'Kontorartikler' }),
  amount: money().meta({
    description:
      "The total of the bill in its currency, not 0: INCLUDING VAT, except under a reverse-charge code (EUV, EUY, IMPV, UY, KOMV), where the supplier charges none and amount is the bill's amount. Negative for a credit note from the supplier (kreditnota): booking posts the mirror of a bill, paying is the supplier's refund",
    example: 1250,
  }),
  vat_amount: money().optional().meta({
    description:
      "The VAT of the bill, with the sign of amount (negative on a credit note; the other sign: 400 naming vat_amount): without vat_code, the input VAT (købsmoms) contained in amount, default 0, in size at most amount / 5 (code K25 when not 0). With vat_code: default the VAT at the code's rate (contained in amount, and in size never more; on top of it under reverse charge)",
    example: 250,
  }),
  vat_code: vatCode().meta({
    description:
      'The VAT treatment (momskode), a purchase code of the company (GET /vat-codes): K25 købsmoms, KDELVIS delvist fradrag, KREP repræsentation (25 % fradrag), K0 momsfrit, EUV/EUY køb i EU (rubrik A), IMPV import, UY ydelser uden for EU, KOMV omvendt betalingspligt § 46',
    example: 'K25',
  }),
  vat_deductible_percent: percent().optional().meta({
    description: "The share of the VAT that is deductible (fradrag), overriding the code's (KREP 25, others 100); e.g. a pro-rata share",
    example: 100,
  }),
  currency: currency().optional().meta({ description: "The bill's currency (valuta, ISO 4217); default DKK" }),
  exchange_rate: exchangeRate().optional().meta({
    description: "DKK per unit of currency (valutakurs); default the company's rate for the date (PUT /exchange-rates), fixed at booking",
    example: 7.46,
  }),
  account_number: accountNumber()
    .optional()
    .meta({
      description: `The expense account debited with amount - vat_amount; default ${DEFAULT_ACCOUNTS.expense} Andre eksterne omkostninger. On a draft with lines (a received e-invoice's): every line to this account`,
      example: '2810',
    }),
  dimensions: lineDimensions().nullable().optional().meta({
    description:
      'The expense\'s dimensions ({"Projekt": "A"}): booking posts them with its cost lines (account_number); with lines, they are every line\'s default, a line\'s own dimensions (PUT /expenses/{id}/lines/{line_id}) going over them dimension by dimension; null clears them',
  }),
  accrual: accrualInput().nullable().optional().meta({
    description:
      "An accrual of the expense's cost (amount − vat_amount, with any VAT not deductible) over months, e.g. a yearly insurance: booking debits 6390 Periodeafgrænsningsposter (forudbetalte omkostninger) instead of account_number, and each month's share moves to account_number on its last day. An expense with lines is accrued line by line (PUT /expenses/{id}/lines/{line_id}): 409 expense_has_lines. null: none",
  }),
};

export const expenseCreate = z.strictObject({ ...fields, book: boolean().optional().meta({ description: 'true: book at once' }) });
export const expenseUpdate = z.strictObject({ ...fields, date: fields.date.optional(), amount: fields.amount.optional() });

/** PUT /expenses/{id}/status beside the id. */
export const expenseStatusBody = z.strictObject({
  status: z.enum(EXPENSE_STATUSES, { error: `must be one of ${EXPENSE_STATUSES.join(', ')}` }),
  date: date().optional(),
  exchange_rate: exchangeRate()
    .optional()
    .meta({
      description: `paid, foreign-currency expense: DKK per unit paid at; default the rate for the payment date. The difference posts to ${DEFAULT_ACCOUNTS.exchangeDifference} (kursdifference)`,
    }),
  account_id: uuid().optional(),
  account_number: accountNumber().optional(),
});

/** PUT /expenses/{id}/lines/{line_id}: a draft's line to another account (decision 684) and/or its dimensions (decision 855). */
export const expenseLineUpdate = z.strictObject({
  account_number: accountNumber().optional().meta({
    description: "An active expense account of the chart; the line's account_source becomes manual",
    example: '1610',
  }),
  dimensions: lineDimensions().nullable().optional().meta({
    description:
      'The line\'s own dimensions ({"Projekt": "A"}): booking posts its cost with them, over the expense\'s dimension by dimension (a dimension the line does not name keeps the expense\'s value); null or {} clears them',
  }),
  accrual: accrualInput().nullable().optional().meta({
    description:
      "An accrual of the line's net amount over months: booking debits 6390 (forudbetalte omkostninger) instead of the line's account, and each month's share moves to it on its last day; null: none",
  }),
});

export const expenseLineResource = z
  .object({
    id: z.guid(),
    position: lineNumber().meta({ description: 'Its place among the lines, from 1' }),
    kind: z.enum(EXPENSE_LINE_KINDS).meta({
      description:
        "item: a line of the document; allowance and charge: an allowance (discount) or a charge on the document as a whole; duty: a tax other than VAT (an excise duty, afgift), part of the cost; difference: what the document's total says beyond its lines (rounding of the sender's sums)",
    }),
    description: z.string(),
    item_id: z.string().meta({ description: 'The seller\'s item id; "" when none' }),
    quantity: amountOut('The quantity (1 for an allowance, a charge or a duty)'),
    unit: z.string().meta({ description: 'UN/ECE Recommendation 20 unit code (C62, HUR, EA, ...); "" when none', example: 'C62' }),
    unit_price: amountOut('The price per unit, as the document states it').nullable(),
    allowance_amount: amountOut("The line's own allowances (discounts), summed"),
    charge_amount: amountOut("The line's own charges, summed"),
    net_amount: amountOut(
      "The line's amount without VAT in the expense's currency, its allowances and charges applied; negative on a credit note and for an allowance",
    ),
    vat_code: z.string().meta({ description: 'The VAT code the line is booked under', example: 'K25' }),
    vat_rate: z.number().nullable().meta({ description: 'The VAT rate the document states, percent; null when none' }),
    vat_amount: amountOut("The line's share of the expense's VAT (the document's own per VAT group; under reverse charge the buyer's VAT)"),
    account_number: z.string().meta({ description: 'The expense account the line is booked to', example: '2810' }),
    dimensions: z
      .record(z.string(), z.string())
      .meta({ description: "The line's own dimensions ({} for none): booking posts its cost with them over the expense's", example: { Projekt: 'A' } }),
    account_source: z.enum(LINE_ACCOUNT_SOURCES).meta({
      description:
        "Where the account comes from, the first that applies: supplier_item, the account this supplier's same item (its seller's item id, else its description) was last booked to; supplier_default, the supplier's default_account_number; vat_category, the default expense account for the line's VAT category. manual: a person chose it (PUT /expenses/{id}/lines/{line_id}, or account_number on PUT /expenses/{id})",
    }),
    accrual: accrualResource.nullable().meta({ description: "The line's accrual and its months; null when it is not accrued" }),
  })
  .meta({ id: 'ExpenseLine' });

export const expenseResource = z
  .object({
    id: z.guid(),
    supplier_id: z.guid().nullable(),
    voucher_id: z.guid().nullable(),
    date: dateOut(),
    due_date: dateOut(),
    description: z.string(),
    amount: amountOut("In the bill's currency; including VAT except under reverse charge"),
    vat_amount: amountOut('The VAT of the bill, in its currency'),
    net_amount: amountOut('The base of the VAT: amount - vat_amount (reverse charge: amount)'),
    vat_code: z.string().meta({ description: 'The VAT code; "" for a bill without VAT booked before codes', example: 'K25' }),
    vat_deductible_percent: z.number().nullable().meta({ description: "The stated deductible share; null: the code's" }),
    currency: z.string().meta({ example: 'DKK' }),
    exchange_rate: z.number().nullable().meta({ description: 'DKK per unit (1 for DKK); null on a draft whose rate is fixed at booking' }),
    account_number: z.string().meta({
      description: 'The expense account; with lines, the account of the largest part of them (each line is booked to its own account)',
    }),
    dimensions: z.record(z.string(), z.string()).meta({ description: "The expense's dimensions; {} for none", example: { Projekt: 'A' } }),
    accrual: accrualResource.nullable().meta({
      description:
        "The expense's accrual and its months: each month's share, posted (with its transaction) or pending; cancelled when the expense was cancelled first. null when it is not accrued",
    }),
    lines: z.array(expenseLineResource).meta({
      description:
        "The lines the expense is booked from (a received e-invoice's: its lines, its allowances and charges, its duties), each to its own account; amount is their net amounts plus their VAT. [] for an expense of one amount on one account (every expense made by POST /expenses)",
    }),
    einvoice: z
      .object({
        message_id: z.guid().meta({ description: 'The received e-invoice (GET /einvoices/{id})' }),
        payment_means: z
          .array(paymentMeansResource)
          .meta({ description: 'How the supplier asks to be paid, as the document states it (FIK +71/+73/+75, bank account)' }),
        attachments: z
          .array(z.guid())
          .meta({ description: "The vouchers of the document's embedded attachments (its PDF); the XML (or Factur-X PDF) is voucher_id" }),
      })
      .nullable()
      .meta({ description: 'The e-invoice the expense was made from; null for one entered by hand' }),
    status: z.enum(EXPENSE_STATUSES),
    posted_transaction_id: z.guid().nullable().meta({ description: "The booking's posting; null on a draft" }),
    posted_system_id: ordinal().nullable(),
    payment_transaction_id: z.guid().nullable(),
    paid_date: dateOut().nullable(),
    created_at: timestamp(),
    updated_at: timestamp(),
    ...registrationFields,
  })
  .meta({ id: 'Expense' });

export type ExpenseInput = z.output<typeof expenseCreate>;
export type ExpenseUpdate = z.output<typeof expenseUpdate>;
export type ExpenseStatusInput = z.output<typeof expenseStatusBody>;
export type ExpenseView = z.input<typeof expenseResource>;
export type ExpenseLineView = z.input<typeof expenseLineResource>;
export type ExpenseLineUpdate = z.output<typeof expenseLineUpdate>;
