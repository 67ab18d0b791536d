// /reports: the profit and loss statement over a period and the balance sheet at a date, grouped like
// the Danish standard chart (docs/decisions/reports.md).
import { z } from 'zod';
import { BALANCE_GROUP_KEYS, BALANCE_SECTION_KEYS, balanceSheet, PROFIT_LOSS_SECTION_KEYS, profitAndLoss, reportDimensionParams } from '@tlr/domain';
import { single } from '../schemas/envelopes.ts';
import { amountOut, date, dateOut, uuid } from '@tlr/domain/fields';
import { authedProcedure, router } from '../trpc.ts';
import { accountantReports } from './accountant-reports.ts';
import { fiscalYearProcedures } from './fiscal-years.ts';

const amount = (description: string) => amountOut(`${description} (DKK)`);

const reportAccount = z
  .object({
    account_id: z.guid(),
    account_number: z.string(),
    name: z.string(),
    amount: amount("The account's amount, signed as its section (positive = the usual side)"),
    budget: amount('With ?budget: the budgeted amount for the months of the period, signed as amount').optional(),
    variance: amount('With ?budget: amount − budget').optional(),
  })
  .meta({ id: 'ReportAccount' });

const profitLossSection = z
  .object({
    key: z.enum(PROFIT_LOSS_SECTION_KEYS),
    name: z.string(),
    accounts: z.array(reportAccount).meta({ description: 'Accounts with a non-zero amount, by account number' }),
    total: amount('Sum of the accounts; income sections are positive when credit exceeds debit, cost sections when debit exceeds credit'),
    budget: amount('With ?budget: the sum of the accounts’ budgets').optional(),
    variance: amount('With ?budget: total − budget').optional(),
  })
  .meta({ id: 'ProfitAndLossSection' });

const profitLossTotals = z
  .object({
    gross_profit: amount('Bruttofortjeneste: revenue + other operating income − cost of sales − other external expenses'),
    operating_profit: amount('Resultat af primær drift: gross profit − staff − depreciation − other operating expenses + other income − other expenses'),
    profit_before_tax: amount('Resultat før skat: operating profit + financial income − financial expenses'),
    result: amount('Årets resultat: profit before tax − tax'),
  })
  .meta({ id: 'ProfitAndLossTotals' });

const statementFields = {
  sections: z.array(profitLossSection).meta({ description: 'Every section, always in the same order (ÅRL skema 1, artsopdelt)' }),
  totals: profitLossTotals,
};

const profitAndLossResource = z
  .object({
    from: dateOut(),
    to: dateOut(),
    currency: z.literal('DKK'),
    dimensions: z.record(z.string(), z.string()).optional().meta({ description: 'The dimension filter the figures are of, when one was given' }),
    budget_id: z.guid().optional().meta({ description: 'The budget shown beside the figures, when one was asked for' }),
    ...statementFields,
    budget_totals: profitLossTotals.optional().meta({ description: 'With ?budget: the totals of the budget' }),
    variance_totals: profitLossTotals.optional().meta({ description: 'With ?budget: totals − budget_totals' }),
    groups: z
      .array(
        z.object({
          dimension: z.string(),
          value: z.string().nullable().meta({ description: "The value's code; null for the lines without a value of the dimension" }),
          name: z.string(),
          ...statementFields,
        }),
      )
      .optional()
      .meta({ description: 'With group_by=dimension:<name>: the statement of each value (by code), then of the lines without one; they add up to the whole' }),
  })
  .meta({ id: 'ProfitAndLoss' });

const balanceGroup = z
  .object({
    key: z.enum(BALANCE_GROUP_KEYS),
    name: z.string(),
    accounts: z
      .array(reportAccount)
      .meta({ description: 'Accounts with a non-zero amount; empty for the computed groups result_for_the_year and prior_years_result' }),
    total: amount('Assets positive when debit exceeds credit; equity and liabilities when credit exceeds debit'),
  })
  .meta({ id: 'BalanceSheetGroup' });

const balanceSection = z
  .object({ key: z.enum(BALANCE_SECTION_KEYS), name: z.string(), groups: z.array(balanceGroup), total: amount('Sum of the groups') })
  .meta({ id: 'BalanceSheetSection' });

const balanceSheetResource = z
  .object({
    as_of: dateOut(),
    currency: z.literal('DKK'),
    fiscal_year: z
      .object({ start_date: dateOut(), end_date: dateOut() })
      .meta({ description: 'The fiscal year containing as_of: the period of result_for_the_year' }),
    assets: z.array(balanceSection),
    total_assets: amount('Total assets'),
    liabilities_and_equity: z.array(balanceSection),
    total_liabilities_and_equity: amount('Total equity, provisions and liabilities'),
    balanced: z.boolean().meta({ description: 'total_assets equals total_liabilities_and_equity (compared exactly)' }),
  })
  .meta({ id: 'BalanceSheet' });

const tag = 'Reports';
export const reportsRouter = router({
  profitLoss: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/reports/profit-loss',
        tags: [tag],
        summary: 'Profit and loss statement',
        description:
          'Revenue and expense accounts summed over the posting dates from..to (inclusive), grouped like the Danish standard chart. Defaults: to = today (Europe/Copenhagen), from = first day of the fiscal year containing to. ' +
          'dimension[<name>]=<code> keeps the journal lines carrying that value; group_by=dimension:<name> adds the statement per value (groups); budget={id} adds the budget and the variance (docs/dimensions.md).',
      },
      scopes: ['reports:read'],
    })
    .input(
      z.strictObject({
        from: date().optional().meta({ description: 'First posting date included; default the start of the fiscal year containing to' }),
        to: date().optional().meta({ description: 'Last posting date included; default today (Europe/Copenhagen)' }),
        ...reportDimensionParams,
        budget: uuid().optional().meta({
          description:
            'A budget of the company (GET /budgets): each account, section and total gets its budget for the months the period touches (a month counts whole) and the variance, actual − budget. Not with a dimension filter (400)',
        }),
      }),
    )
    .output(single(profitAndLossResource))
    .query(async ({ ctx, input }) => ({ data: await profitAndLoss(ctx.tx, ctx.scope.companyId, input) })),
  balance: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/reports/balance',
        tags: [tag],
        summary: 'Balance sheet',
        description:
          'Balances of every account up to and including as_of. Revenue and expense not closed into equity appear in equity as the result of the fiscal year so far and the result of earlier years.',
      },
      scopes: ['reports:read'],
    })
    .input(z.strictObject({ as_of: date().optional().meta({ description: 'Balance date (inclusive); default today (Europe/Copenhagen)' }) }))
    .output(single(balanceSheetResource))
    .query(async ({ ctx, input }) => ({ data: await balanceSheet(ctx.tx, ctx.scope.companyId, input) })),
  ...accountantReports,
  ...fiscalYearProcedures,
});
