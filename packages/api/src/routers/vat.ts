// /vat-codes and /vat-returns: the company's VAT codes, the VAT return of a period from the books, the
// journal lines behind each field, the filed versions, settling a period and the return as a document
// for Skattestyrelsen (served raw by the HTTP shell).
import { z } from 'zod';
import {
  DEFAULT_ACCOUNTS,
  getVatReturn,
  type ListParams,
  listVatCodes,
  settleVatReturn,
  VAT_CODE_LIST,
  VAT_RETURN_LINE_LIST,
  vatCodeResource,
  vatPeriod,
  vatReturnField,
  vatReturnLineResource,
  vatReturnLines,
  vatReturnResource,
  vatReturnXml,
  vatSettleBody,
} from '@tlr/domain';
import { listEndpoint } from '../crud.ts';
import { list, single } from '../schemas/envelopes.ts';
import { listQuery } from '../schemas/list-query.ts';
import { authedProcedure, router } from '../trpc.ts';

const tag = 'VAT' as const;

export const vatRouter = router({
  codes: listEndpoint({
    path: '/vat-codes',
    tag,
    summary: 'List the VAT codes',
    description: 'The VAT codes (momskoder) invoice lines, expenses and transaction lines name in `vat_code`, seeded from the standard Danish set.',
    scope: 'accounts:read',
    spec: VAT_CODE_LIST,
    searchDescription: 'Case-insensitive search in code, name and standard code',
    resource: vatCodeResource,
    run: listVatCodes,
  }),
  get: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/vat-returns',
        tags: [tag],
        summary: 'The VAT return of a period',
        description: `The VAT return (momsangivelse) of \`period\` from the ledger, in DKK: every field in whole kroner (each rounded half up; afgiftstilsvar from the rounded fields) and with øre. The VAT and duty fields are the balances of their accounts in the period (${DEFAULT_ACCOUNTS.outputVat} salgsmoms, ${DEFAULT_ACCOUNTS.vatOnGoodsAbroad} and ${DEFAULT_ACCOUNTS.vatOnServicesAbroad} moms af varekøb/ydelseskøb i udlandet, ${DEFAULT_ACCOUNTS.inputVat} købsmoms, ${DEFAULT_ACCOUNTS.oilAndBottledGasDuty}-${DEFAULT_ACCOUNTS.co2Duty} energiafgifter), the boxes the bases of the VAT codes that report in them, whatever made the entries (invoices, expenses, manual transactions, payments). Once settled, the fields are as filed. 400 when \`period\` is not of the company's VAT frequency.`,
      },
      scopes: ['reports:read'],
    })
    .input(z.strictObject({ period: vatPeriod }))
    .output(single(vatReturnResource))
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
        period: vatPeriod,
        field: vatReturnField,
      }),
    )
    .output(list(vatReturnLineResource))
    .query(({ ctx, input }) => vatReturnLines(ctx.tx, ctx.scope, input.period, input.field, input as ListParams)),
  settle: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/vat-returns/{period}/settle',
        tags: [tag],
        summary: 'Settle a VAT period',
        description: `Posts the settlement (momsafregning) on the period's last day: the balances of the VAT and duty accounts move to ${DEFAULT_ACCOUNTS.vatSettlement} Skyldig moms; files the return as it stands (immutable); sets the lock date to the period's end unless it is later. Refused: a period that has not ended (409 vat_period_not_ended), a period while an earlier one with VAT activity is unsettled (409 vat_period_open_before), a second settlement (409 vat_return_settled). A correction (\`{"correction": true}\`, after the books of the period changed) files the next version and posts what changed (409 vat_return_unchanged when nothing did). Emits vat_return.settled.`,
      },
      scopes: ['transactions:write'],
      idempotent: { status: 201 },
      problems: [409],
    })
    .input(z.strictObject({ period: vatPeriod, ...vatSettleBody.shape }))
    .output(single(vatReturnResource))
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
    .input(z.strictObject({ period: vatPeriod }))
    .output(z.object({ filename: z.string(), xml: z.string() }))
    .query(async ({ ctx, input }) => {
      const r = await getVatReturn(ctx.tx, ctx.scope, input.period);
      const company = await ctx.tx.company.findUniqueOrThrow({ where: { id: ctx.scope.companyId }, select: { cvr: true } });
      const cvr = company.cvr ?? '';
      return { filename: `momsangivelse-${cvr || ctx.scope.companyId}-${r.period}.xml`, xml: vatReturnXml(r, cvr) };
    }),
});
