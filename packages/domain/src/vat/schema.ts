// The VAT resources, once: the VAT code, the VAT return with its filed versions and the journal lines
// behind a field (their OpenAPI components), the period and field parameters and the settlement body;
// the domain's view and input types are derived from them.
import { z } from 'zod';
import { amountOut, boolean, dateOut, timestamp } from '../fields.ts';
import { count, lineNumber, ordinal } from '../integers.ts';
import { registrationFields } from '../trail/actor.ts';
import { VAT_KINDS, VAT_RETURN_FIELDS } from './codes.ts';
import { VAT_RETURN_ELEMENTS } from './export.ts';

/** The period parameter of every VAT return endpoint. */
export const vatPeriod = z.string().meta({
  description: "The VAT period (afgiftsperiode) in the company's frequency: a month 2026-10, a quarter 2026-Q3 or a half-year 2026-H2",
  example: '2026-Q3',
});

/** The field parameter of the drill-down into a field's journal lines. */
export const vatReturnField = z
  .enum(VAT_RETURN_FIELDS, { error: `must be one of ${VAT_RETURN_FIELDS.join(', ')}` })
  .meta({ description: 'The field to drill into' });

export const vatCodeResource = z
  .object({
    code: z.string().meta({ example: 'S25' }),
    name: z.string(),
    kind: z.enum(VAT_KINDS),
    side: z.enum(['sale', 'purchase']).meta({ description: 'sale: for invoice lines; purchase: for expenses' }),
    rate: z.number().meta({ description: 'Percent' }),
    deductible_percent: z.number().meta({ description: 'Purchases: the share of the VAT deducted (fradrag)' }),
    account_number: z.string().meta({ description: 'The VAT account the VAT posts to' }),
    offset_account_number: z.string().meta({ description: 'Reverse charge: the account of the deductible input VAT' }),
    standard_code: z.string().meta({
      description: 'The tax of the standard Danish set (account.tax-dk, e.g. S-DK-25) the code is, from which its rate, accounts, deduction and box come',
    }),
    return_box: z.string().nullable().meta({ description: 'The VAT return field the base is reported in (rubrik A, B or C), or null' }),
    active: z.boolean(),
  })
  .meta({ id: 'VatCode' });
export type VatCodeView = z.input<typeof vatCodeResource>;

const labels = new Map(VAT_RETURN_ELEMENTS.map((e) => [e.field, e.label]));
const returnFields = (description: string) =>
  z.object(Object.fromEntries(VAT_RETURN_FIELDS.map((f) => [f, amountOut(`${labels.get(f)} (${description})`)]))).meta({ description });

export const vatFilingResource = z
  .object({
    period: z.string(),
    version: ordinal().meta({ description: 'The settled version sent' }),
    kind: z
      .enum(['ordinary', 'follow_up'])
      .meta({ description: 'ordinary: the first return of the period; follow_up: a correction, which Skattestyrelsen takes as an efterangivelse' }),
    state: z.enum(['queued', 'submitted', 'approved', 'refused', 'failed']).meta({
      description:
        "queued: the gateway did not answer; a job sends the same request again with back-off. submitted: a draft awaiting the company's approval on skat.dk (approval_url). approved: the receipt is in. refused: Skattestyrelsen refused it (messages) or the company rejected the draft. failed: the gateway never answered",
    }),
    se_number: z.string().meta({ description: 'The SE number it was filed under' }),
    transaction_id: z.guid().meta({ description: 'TransaktionIdentifikator of the draft request (kept for its retries)' }),
    skat_transaction_id: z.string().nullable().meta({ description: "Skattestyrelsen's TransaktionIdentifier of the draft; null until submitted" }),
    approval_url: z.string().nullable().meta({ description: 'Where the company approves the draft on skat.dk (Dybtlink); null until submitted' }),
    messages: z.array(z.object({ kind: z.enum(['advis', 'fejl']), code: z.string(), text: z.string() })).meta({
      description:
        "Skattestyrelsen's messages (Advis: 5001 an ordinary draft, 5002 a follow-up declaration; Fejl: an error code) and tlr's warnings (frequency_mismatch: the calendar's frequency is not the company's)",
    }),
    attempts: count().meta({ description: 'Calls of the draft service made' }),
    last_error: z.string().nullable().meta({ description: 'The last transport failure or refusal; null when none' }),
    submitted_at: timestamp().nullable(),
    approved_at: timestamp().nullable(),
    amount_due: amountOut()
      .nullable()
      .meta({ description: 'From the receipt: what is to be paid to the tax account (negative: refunded), DKK; null until approved' }),
    payment_deadline: dateOut().nullable().meta({ description: 'From the receipt: the last day to pay' }),
    ocr_line: z.string().nullable().meta({ description: 'From the receipt: the payment line +71<OCR number> +<creditor number>< for paying the tax account' }),
    receipt_voucher_id: z.guid().nullable().meta({ description: 'The receipt PDF, a voucher on the settlement posting' }),
    calendar_deadline: dateOut().nullable().meta({
      description:
        "The period's filing deadline in Skattestyrelsen's calendar of the company (VirksomhedKalenderHent, asked at submit); null when it gave none",
    }),
    paid_transaction_id: z.guid().nullable().meta({
      description:
        'The tax account paid (or refunded) from the bank: the posting of the bank line matched to it (Skyldig moms against the bank); null until then',
    }),
  })
  .meta({ id: 'VatFiling' });

/** Whole kroner, as the EU sales file reports them (an amount below 10^15 DKK, as every posting). */
const wholeKroner = () => z.int().min(-999_999_999_999_999).max(999_999_999_999_999);

const euAmounts = {
  goods: amountOut('Goods (varer, SEUV), DKK, credit notes netted'),
  triangular: amountOut('Triangular trade (trekantshandel, SEUT), DKK'),
  services: amountOut('Services (ydelser, SEUY), DKK'),
};

export const euSalesResource = z
  .object({
    period: z.string(),
    frequency: z.enum(['quarterly', 'monthly']).meta({ description: "The company's EU-sales period (eu_sales_frequency, PUT /settings/company)" }),
    start_date: dateOut(),
    end_date: dateOut(),
    seller_vat_number: z.string().meta({ description: 'The SE or CVR number the list is reported under' }),
    lines: z
      .array(
        z.object({
          vat_number: z.string().meta({ description: "The customer's VAT number with its country prefix, as the invoices were approved with it" }),
          country: z.string().meta({ description: 'The VAT number prefix (EL for Greece, XI for Northern Ireland)' }),
          customers: z.array(z.object({ id: z.guid(), name: z.string() })).meta({ description: 'The customers invoiced under it' }),
          ...euAmounts,
          kroner: z
            .object({ goods: wholeKroner(), triangular: wholeKroner(), services: wholeKroner() })
            .meta({ description: 'The amounts as the file reports them: whole kroner, each rounded half up' }),
        }),
      )
      .meta({ description: 'One line per foreign VAT number, sorted by it; a VAT number whose amounts net to 0 is left out' }),
    problems: z
      .array(
        z.object({
          customer_id: z.guid().nullable(),
          customer_name: z.string(),
          vat_number: z.string(),
          reason: z.string(),
          ...euAmounts,
          transaction_ids: z.array(z.guid()).meta({ description: 'The postings concerned' }),
        }),
      )
      .meta({
        description:
          'Sales with an EU code but no valid foreign VAT number (a manual posting, a customer without a VAT number): listed, never dropped; the export is refused while there are any',
      }),
    totals: z
      .object({ ...euAmounts, unlisted: amountOut('SEUVI (rubrik B varer, indberettes ikke): not on the list, shown for the reconciliation') })
      .meta({ description: 'The sums of lines and problems, DKK' }),
    rubrik_b: z
      .object({
        goods_reported: amountOut('Rubrik B varer, indberettes (the return of the same months, with øre)'),
        goods_not_reported: amountOut('Rubrik B varer, indberettes ikke'),
        services: amountOut('Rubrik B ydelser'),
        agrees: z.boolean().meta({ description: 'goods + triangular = goods_reported, services = services, unlisted = goods_not_reported' }),
      })
      .meta({ description: "The VAT return's rubrik B for the same months, to reconcile with" }),
  })
  .meta({ id: 'EuSalesList' });

export const vatReturnResource = z
  .object({
    period: z.string(),
    frequency: z.enum(['monthly', 'quarterly', 'half_yearly']),
    start_date: dateOut(),
    end_date: dateOut(),
    deadline: dateOut().meta({ description: 'Angivelsesfrist: the filing and payment deadline, moved to the next banking day' }),
    period_ended: z.boolean(),
    status: z.enum(['open', 'settled']).meta({ description: 'open: not settled yet; settled: filed (fields are as filed)' }),
    version: ordinal().nullable().meta({ description: 'The filed version (1, then one per correction); null while open' }),
    settled_at: timestamp().nullable(),
    transaction_id: z.guid().nullable().meta({ description: 'The settlement posting (momsafregning) of this version; null while open or when nothing moved' }),
    fields: returnFields('whole kroner, DKK, as filed once settled'),
    exact_fields: returnFields('DKK with øre, what the ledger holds'),
    changed_since_settlement: z.boolean().meta({ description: 'Settled, and the books of the period no longer give the filed figures: file a correction' }),
    versions: z
      .array(
        z.object({
          version: ordinal(),
          settled_at: timestamp(),
          ...registrationFields,
          transaction_id: z.guid().nullable(),
          fields: returnFields('whole kroner, as filed'),
          exact_fields: returnFields('with øre, as filed'),
        }),
      )
      .meta({ description: 'Every filed version (1, then one per correction), oldest first; empty while open. Filed returns never change' }),
    filing: vatFilingResource
      .nullable()
      .meta({ description: 'The latest version sent to Skattestyrelsen (POST /vat-returns/{period}/submit); null when none was' }),
  })
  .meta({ id: 'VatReturn' });

export const vatReturnLineResource = z
  .object({
    transaction_id: z.guid(),
    document_number: ordinal(),
    date: dateOut(),
    source: z.string(),
    line_number: lineNumber(),
    account_number: z.string(),
    vat_code: z.string(),
    description: z.string(),
    debit: amountOut(),
    credit: amountOut(),
    amount: amountOut('What the line adds to the field, DKK'),
  })
  .meta({ id: 'VatReturnLine' });
export type VatReturnLine = z.input<typeof vatReturnLineResource>;

/** POST /vat-returns/{period}/settle, beside the period. */
export const vatSettleBody = z.strictObject({
  correction: boolean().optional().meta({ description: 'true: file a correction of a settled period (the next version)' }),
});
export type SettleInput = z.output<typeof vatSettleBody>;
