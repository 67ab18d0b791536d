// /accounts: the chart of accounts (list, get, create, update; deactivate instead of delete), and
// /settings/accounting: fiscal years, VAT periods and the lock date (read-only; the operator CLI sets them).
import { z } from 'zod';
import { ACCOUNT_LIST, ACCOUNT_TYPES, accountingSettings, createAccount, getAccount, listAccounts, updateAccount } from '@tlr/domain';
import { createEndpoint, getEndpoint, listEndpoint, updateEndpoint } from '../crud.ts';
import { single } from '../schemas/envelopes.ts';
import { accountNumber, boolean, dateOut, requiredText, timestamp } from '@tlr/domain/fields';
import { authedProcedure, router } from '../trpc.ts';
import { month } from '@tlr/domain/integers';

const fields = {
  account_number: accountNumber().meta({ example: '1010' }),
  name: requiredText(200).meta({ example: 'Salg af varer og ydelser' }),
  type: z.enum(ACCOUNT_TYPES, { error: `must be one of ${ACCOUNT_TYPES.join(', ')}` }),
  standard_account_id: z.string().trim().max(10).optional().meta({ description: 'Account number in the Danish standard chart (SAF-T StandardAccountID)' }),
  default_vat_code: z.string().trim().max(9).optional().meta({ description: 'VAT code suggested for postings to the account, e.g. S25 or K25' }),
  active: boolean().optional(),
};

const accountResource = z
  .object({
    id: z.guid(),
    account_number: z.string(),
    name: z.string(),
    type: z.string(),
    group_code: z.string().meta({ description: 'The standard-chart group the account reports under, e.g. 1010-1389' }),
    group_name: z.string(),
    standard_account_id: z.string(),
    default_vat_code: z.string(),
    active: z.boolean(),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .meta({ id: 'Account' });

const settingsResource = z
  .object({
    company_id: z.guid(),
    currency: z.string(),
    vat_registered: z.boolean(),
    vat_period_frequency: z.string(),
    fiscal_year_start_month: month(),
    lock_date: dateOut().nullable(),
    fiscal_years: z.array(
      z.object({
        id: z.guid(),
        start_date: dateOut(),
        end_date: dateOut(),
        closed: z.boolean(),
        vat_periods: z.array(z.object({ start_date: dateOut(), end_date: dateOut() })),
      }),
    ),
  })
  .meta({ id: 'AccountingSettings' });

const tag = 'Accounts';
export const accountsRouter = router({
  list: listEndpoint({
    path: '/accounts',
    tag,
    summary: 'List the chart of accounts',
    scope: 'accounts:read',
    spec: ACCOUNT_LIST,
    searchDescription: 'Case-insensitive search in account number and name',
    filters: z.object({
      active: z.stringbool({ error: 'must be true or false' }).optional().meta({ description: 'Only active (true) or deactivated (false) accounts' }),
      type: fields.type.optional(),
    }),
    resource: accountResource,
    run: listAccounts,
  }),
  get: getEndpoint({ path: '/accounts/{id}', tag, summary: 'Get an account', scope: 'accounts:read', resource: accountResource, run: getAccount }),
  create: createEndpoint({
    path: '/accounts',
    tag,
    summary: 'Create an account',
    scope: 'accounts:write',
    problems: [409],
    body: z.strictObject({
      ...fields,
      type: fields.type.optional().meta({ description: 'Default: the type implied by the standard-chart group of the number' }),
    }),
    resource: accountResource,
    run: createAccount,
  }),
  update: updateEndpoint({
    path: '/accounts/{id}',
    tag,
    summary: 'Update an account',
    description: 'Number and type cannot change once the account has postings (409 account_has_postings); deactivate with active=false instead of deleting.',
    scope: 'accounts:write',
    problems: [409],
    body: z.strictObject({ ...fields, account_number: fields.account_number.optional(), name: fields.name.optional(), type: fields.type.optional() }),
    resource: accountResource,
    run: updateAccount,
  }),
  settings: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/settings/accounting',
        tags: [tag],
        summary: 'Accounting settings: fiscal years, VAT periods, VAT registration and lock date',
      },
      scopes: ['accounts:read'],
    })
    .input(z.object({}).strict())
    .output(single(settingsResource))
    .query(async ({ ctx }) => ({ data: await accountingSettings(ctx.tx, ctx.scope.companyId) })),
});
