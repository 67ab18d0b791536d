// /eu-sales: the EU sales list (EU-salg uden moms, momsbekendtgørelsen § 73) of an EU-sales period, and
// the file Skattestyrelsen takes (served raw by the HTTP shell). docs/eu-sales.md.
import { z } from 'zod';
import { euSalesFile, euSalesList, euSalesResource } from '@tlr/domain';
import { single } from '../schemas/envelopes.ts';
import { authedProcedure, router } from '../trpc.ts';

const tag = 'VAT' as const;
const period = z.string().meta({
  description: "The company's EU-sales period: a quarter 2026-Q3 (the default frequency) or a month 2026-09 (eu_sales_frequency monthly)",
  example: '2026-Q3',
});

export const euSalesRouter = router({
  list: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/eu-sales',
        tags: [tag],
        summary: 'The EU sales list (EU-salg uden moms) of a period',
        description:
          "Per foreign VAT number, the period's VAT-free sales to EU businesses in DKK: goods (SEUV), triangular trade (SEUT) and services (SEUY), from the postings (invoices and their credit notes, netted), with the VAT number each invoice was approved with. Sales with an EU code but no valid foreign VAT number are `problems`, never dropped. `rubrik_b` is the VAT return's rubrik B for the same months: the totals agree with it. 400 when `period` is not of the company's EU-sales frequency.",
      },
      scopes: ['reports:read'],
    })
    .input(z.strictObject({ period }))
    .output(single(euSalesResource))
    .query(async ({ ctx, input }) => ({ data: await euSalesList(ctx.tx, ctx.scope, input.period) })),
  export: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/eu-sales/{period}/export',
        tags: [tag],
        summary: "The EU sales list as Skattestyrelsen's file (comma-separated)",
        description:
          'The file TastSelv Erhverv takes for EU-salg uden moms: a start record `0,<SE/CVR>,LISTE,,,,,,`, one record per foreign VAT number `2,<reference>,<period end>,<SE/CVR>,<country>,<VAT number without prefix>,<goods>,<triangular>,<services>` in whole kroner, and an end record `10,<records>,<total of the amounts>,,,,,,`; nine fields a record, CR LF after each. docs/eu-sales.md describes every field. 409 eu_sales_incomplete while the list has problems.',
      },
      scopes: ['reports:read'],
      problems: [409],
      raw: {
        contentType: 'text/csv',
        description: 'The EU sales list, comma-separated, CR LF line ends',
        schema: { type: 'string', description: 'Records 0, 2 (one per foreign VAT number) and 10' },
        headers: { 'Content-Disposition': 'attachment; filename="eu-salg-<SE>-<period>.csv"' },
      },
    })
    .input(z.strictObject({ period }))
    .output(z.object({ filename: z.string(), csv: z.string() }))
    .query(async ({ ctx, input }) => euSalesFile(ctx.tx, ctx.scope, input.period)),
});
