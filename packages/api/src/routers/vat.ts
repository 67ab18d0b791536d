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
  vatFilingResource,
  skatGateway,
  submitVatReturn,
  pollVatFiling,
} from '@tlr/domain';
import { inTransaction } from '@tlr/db';
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
  submit: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/vat-returns/{period}/submit',
        tags: [tag],
        summary: 'Send the settled VAT return to Skattestyrelsen',
        description:
          "Sends the settled return of the period (its latest version) to Skattestyrelsen through the RSU B2B gateway, as a draft the company approves on skat.dk (`filing.approval_url`): first the company's calendar (VirksomhedKalenderHent) must list the period (409 vat_period_unknown_to_skat; a frequency other than the company's is a warning in `filing.messages`), then the draft (ModtagMomsangivelseForeloebig) with the 17 fields in whole kroner, signed with the provider's OCES3 certificate. A version is sent once: a second submit answers the same filing. A correction (version 2 and on, or after an approval) is sent as a follow-up declaration (efterangivelse, advis 5002). Skattestyrelsen's error codes answer 422 skat_error naming the code and its text; the gateway's refusal of the message (signature, certificate, schema) 502 skat_gateway_refused; neither is retried. When the gateway does not answer, the filing is `queued` and a job sends the same request again with back-off. 409 vat_return_not_settled before the period is settled; 503 skat_not_configured on a server without the SKAT_* settings. Emits vat_return.submitted. Scope transactions:write: it files on the company's behalf, as settling does.",
      },
      scopes: ['transactions:write'],
      idempotent: { status: 201 },
      problems: [409, 422, 502, 503],
    })
    .input(z.strictObject({ period: vatPeriod }))
    .output(single(vatReturnResource))
    .mutation(async ({ ctx, input }) => {
      // The gateway's settings are wanted once the period is one: a bad period is a 400 on any server.
      const { queued } = await submitVatReturn(ctx.tx, ctx.scope, input.period, () => skatGateway(ctx.skat), ctx.skat?.retryUnitMs);
      const jobs = ctx.jobs;
      if (queued && jobs) ctx.afterCommit(() => jobs.vatFilingQueued(queued));
      return { data: await getVatReturn(ctx.tx, ctx.scope, input.period) };
    }),
  filing: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/vat-returns/{period}/filing',
        tags: [tag],
        summary: "The VAT return's filing with Skattestyrelsen, and its receipt once approved",
        description:
          "The latest filing of the period. While it awaits the company's approval on skat.dk, the receipt is asked for (MomsangivelseKvitteringHent): once approved, the receipt PDF is kept as a voucher on the settlement posting, and the amount to pay, the payment deadline and the OCR line are stored (state approved; emits vat_return.approved); rejected on skat.dk, the filing is refused. 404 when the period was never submitted; 503 skat_not_configured while the filing awaits approval on a server without the SKAT_* settings.",
      },
      scopes: ['reports:read'],
      problems: [422, 502, 503],
    })
    .input(z.strictObject({ period: vatPeriod }))
    .output(single(vatFilingResource))
    .query(async ({ ctx, input }) => ({
      // The gateway's settings are wanted only to ask for a receipt: a bad period is a 400 and an unsent one a 404 on any server.
      data: await pollVatFiling(inTransaction(ctx.db), ctx.tx, ctx.scope, input.period, () => skatGateway(ctx.skat), ctx.store),
    })),
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
