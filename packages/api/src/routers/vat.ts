// /vat-codes and /vat-returns: the company's VAT codes, the VAT return of a period from the books, the
// journal lines behind each field, the filed versions, settling a period and the return as a document
// for Skattestyrelsen (served raw by the HTTP shell).
import { z } from 'zod';
import {
  getVatReturn,
  type ListParams,
  listVatCodes,
  settleVatReturn,
  VAT_CODE_LIST,
  VAT_KINDS,
  VAT_RETURN_ELEMENTS,
  VAT_RETURN_FIELDS,
  VAT_RETURN_LINE_LIST,
  vatReturnLines,
  vatReturnXml,
  registrationFields,
} from '@tlr/domain';
import { amountOut, boolean, dateOut, timestamp } from '@tlr/domain/fields';
import { lineNumber, ordinal } from '@tlr/domain/integers';
import { listEndpoint } from '../crud.ts';
import { list, single } from '../schemas/envelopes.ts';
import { listQuery } from '../schemas/list-query.ts';
import { authedProcedure, router } from '../trpc.ts';

const tag = 'VAT' as const;

const period = z.string().meta({
  description: "The VAT period (afgiftsperiode) in the company's frequency: a month 2026-10, a quarter 2026-Q3 or a half-year 2026-H2",
  example: '2026-Q3',
});

const vatCode = z
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

const labels = new Map(VAT_RETURN_ELEMENTS.map((e) => [e.field, e.label]));
const fields = (description: string) =>
  z.object(Object.fromEntries(VAT_RETURN_FIELDS.map((f) => [f, amountOut(`${labels.get(f)} (${description})`)]))).meta({ description });

const vatReturn = z
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
    fields: fields('whole kroner, DKK, as filed once settled'),
    exact_fields: fields('DKK with øre, what the ledger holds'),
    changed_since_settlement: z.boolean().meta({ description: 'Settled, and the books of the period no longer give the filed figures: file a correction' }),
    versions: z
      .array(
        z.object({
          version: ordinal(),
          settled_at: timestamp(),
          ...registrationFields,
          transaction_id: z.guid().nullable(),
          fields: fields('whole kroner, as filed'),
          exact_fields: fields('with øre, as filed'),
        }),
      )
      .meta({ description: 'Every filed version (1, then one per correction), oldest first; empty while open. Filed returns never change' }),
  })
  .meta({ id: 'VatReturn' });

const vatReturnLine = z
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

export const vatRouter = router({
  codes: listEndpoint({
    path: '/vat-codes',
    tag,
    summary: 'List the VAT codes',
    description: 'The VAT codes (momskoder) invoice lines, expenses and transaction lines name in `vat_code`, seeded from the standard Danish set.',
    scope: 'accounts:read',
    spec: VAT_CODE_LIST,
    searchDescription: 'Case-insensitive search in code, name and standard code',
    resource: vatCode,
    run: listVatCodes,
  }),
  get: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/vat-returns',
        tags: [tag],
        summary: 'The VAT return of a period',
        description:
          "The VAT return (momsangivelse) of `period` from the ledger, in DKK: every field in whole kroner (each rounded half up; afgiftstilsvar from the rounded fields) and with øre. The VAT and duty fields are the balances of their accounts in the period (7680 salgsmoms, 7700 and 7720 moms af varekøb/ydelseskøb i udlandet, 7740 købsmoms, 7760-7830 energiafgifter), the boxes the bases of the VAT codes that report in them, whatever made the entries (invoices, expenses, manual transactions, payments). Once settled, the fields are as filed. 400 when `period` is not of the company's VAT frequency.",
      },
      scopes: ['reports:read'],
    })
    .input(z.strictObject({ period }))
    .output(single(vatReturn))
    .query(async ({ ctx, input }) => ({ data: await getVatReturn(ctx.tx, ctx.scope, input.period) })),
  lines: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/vat-returns/{period}/lines',
        tags: [tag],
        summary: 'The journal lines behind a field of the VAT return',
        description:
          "The journal lines that make up one field of the period's return, in posting order (date, SystemID, line), paged: the lines on the field's account, or for a box the lines coded with its VAT codes off the VAT accounts. The settlement postings are in no field. The amounts sum to the field's exact value.",
      },
      scopes: ['reports:read'],
    })
    .input(
      listQuery(VAT_RETURN_LINE_LIST, 'Case-insensitive search in the line text').extend({
        period,
        field: z.enum(VAT_RETURN_FIELDS, { error: `must be one of ${VAT_RETURN_FIELDS.join(', ')}` }).meta({ description: 'The field to drill into' }),
      }),
    )
    .output(list(vatReturnLine))
    .query(({ ctx, input }) => vatReturnLines(ctx.tx, ctx.scope, input.period, input.field, input as ListParams)),
  settle: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/vat-returns/{period}/settle',
        tags: [tag],
        summary: 'Settle a VAT period',
        description:
          'Posts the settlement (momsafregning) on the period\'s last day: the balances of the VAT and duty accounts move to 7840 Skyldig moms; files the return as it stands (immutable); sets the lock date to the period\'s end unless it is later. Refused: a period that has not ended (409 vat_period_not_ended), a period while an earlier one with VAT activity is unsettled (409 vat_period_open_before), a second settlement (409 vat_return_settled). A correction (`{"correction": true}`, after the books of the period changed) files the next version and posts what changed (409 vat_return_unchanged when nothing did). Emits vat_return.settled.',
      },
      scopes: ['transactions:write'],
      idempotent: { status: 201 },
      problems: [409],
    })
    .input(
      z.strictObject({
        period,
        correction: boolean().optional().meta({ description: 'true: file a correction of a settled period (the next version)' }),
      }),
    )
    .output(single(vatReturn))
    .mutation(async ({ ctx, input }) => ({ data: await settleVatReturn(ctx.tx, ctx.scope, input.period, input) })),
  export: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/vat-returns/{period}/export',
        tags: [tag],
        summary: 'The VAT return as a document for Skattestyrelsen (XML)',
        description:
          "The return of the period (as filed once settled) as the draft return (momsangivelse, foreløbig) for Skattestyrelsen's VAT API: the CVR, the period, the deadline and every field in whole kroner. docs/vat-return.md describes every element. Nothing is sent anywhere.",
      },
      scopes: ['reports:read'],
      raw: {
        contentType: 'application/xml',
        description: 'The draft VAT return',
        schema: { type: 'string', description: 'XML, root MomsangivelseForeloebig' },
        headers: { 'Content-Disposition': 'attachment; filename="momsangivelse-<CVR>-<period>.xml"' },
      },
    })
    .input(z.strictObject({ period }))
    .output(z.object({ filename: z.string(), xml: z.string() }))
    .query(async ({ ctx, input }) => {
      const r = await getVatReturn(ctx.tx, ctx.scope, input.period);
      const company = await ctx.tx.company.findUniqueOrThrow({ where: { id: ctx.scope.companyId }, select: { cvr: true } });
      const cvr = company.cvr ?? '';
      return { filename: `momsangivelse-${cvr || ctx.scope.companyId}-${r.period}.xml`, xml: vatReturnXml(r, cvr) };
    }),
});
