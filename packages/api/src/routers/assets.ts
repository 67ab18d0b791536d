// /assets: the fixed-asset register (anlægskartotek) — CRUD, disposal, the tax view — and its settings;
// the monthly depreciation is the job's (apps/server/src/worker.ts). GET /reports/assets is in
// accountant-reports style: the list envelope, or CSV with Accept: text/csv. docs/assets.md.
import { z } from 'zod';
import {
  ASSET_LIST,
  ASSET_REGISTER_LIST,
  ASSET_GROUP_NAMES,
  assetCreate,
  assetDispose,
  assetRegister,
  assetResource,
  assetSettings,
  assetSettingsUpdate,
  assetTaxView,
  assetUpdate,
  createAsset,
  deleteAsset,
  disposeAsset,
  fullAssetResource,
  getAsset,
  getAssetSettings,
  listAssets,
  updateAsset,
  updateAssetSettings,
  type CsvTable,
} from '@tlr/domain';
import { amountOut, date, dateOut, uuid } from '@tlr/domain/fields';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoint, metaOf, updateEndpoint } from '../crud.ts';
import { listMeta, single } from '../schemas/envelopes.ts';
import { listQuery } from '../schemas/list-query.ts';
import { authedProcedure, router } from '../trpc.ts';

const tag = 'Assets';
const amount = (d: string) => amountOut(`${d} (DKK)`);

const registerRow = z
  .object({
    asset_id: uuid(),
    name: z.string(),
    group: z.enum(ASSET_GROUP_NAMES),
    acquisition_date: dateOut(),
    asset_account_number: z.string(),
    accumulated_account_number: z.string(),
    cost: amount('The acquisition cost'),
    accumulated_depreciation: amount('The depreciation posted on or before as_of'),
    book_value: amount('cost − accumulated_depreciation'),
  })
  .meta({ id: 'AssetRegisterRow' });
const registerList = z.object({
  data: z.array(registerRow),
  meta: listMeta.extend({
    as_of: dateOut(),
    totals: z
      .object({ cost: amount('Sum of cost'), accumulated_depreciation: amount('Sum of accumulated_depreciation'), book_value: amount('Sum of book_value') })
      .meta({ description: 'Sums over every asset the query selects (not only the page)' }),
  }),
});
type RegisterOut = z.infer<typeof registerList>;
const registerCsv = (out: RegisterOut): CsvTable => ({
  filename: `anlaegskartotek-${out.meta.as_of}.csv`,
  columns: [
    'asset_id',
    'name',
    'group',
    'acquisition_date',
    'asset_account_number',
    'accumulated_account_number',
    'cost',
    'accumulated_depreciation',
    'book_value',
  ],
  rows: [
    ...out.data.map((r) => [
      r.asset_id,
      r.name,
      r.group,
      r.acquisition_date,
      r.asset_account_number,
      r.accumulated_account_number,
      r.cost,
      r.accumulated_depreciation,
      r.book_value,
    ]),
    [null, 'I alt', null, null, null, null, out.meta.totals.cost, out.meta.totals.accumulated_depreciation, out.meta.totals.book_value],
  ],
});

const taxView = z
  .object({
    year: z.int().min(1900).max(9999).meta({ description: 'The income year: the fiscal year that starts in this calendar year' }),
    from: dateOut(),
    to: dateOut(),
    small_asset_limit: amount('The small-asset limit used (småaktivgrænse and småsaldigrænse): the setting, else the statutory one of the year'),
    saldo_rate: z.number().meta({ description: 'The largest saldo rate for operating equipment, percent (25)' }),
    pool: z
      .object({
        opening_balance: amount("The pool at the start of the year (the year before's closing balance)"),
        additions: amount('Cost of the pooled assets acquired in the year (above the small-asset limit)'),
        disposals: amount('Proceeds of the pooled assets disposed of in the year'),
        basis: amount('opening_balance + additions − disposals'),
        depreciation: amount('The largest depreciation: 25 % of the basis, or all of it when it is at most the small-asset limit'),
        income: amount('A negative basis, taxable income (the pool starts again at 0)'),
        closing_balance: amount('basis − depreciation'),
        written_off: z.boolean().meta({ description: 'true when the whole basis was written off because it was at most the small-asset limit' }),
      })
      .meta({ description: 'The saldo pool of operating equipment (groups operating_equipment and machinery), afskrivningsloven § 5' }),
    small_assets_expensed: amount('Pooled-group assets acquired in the year at or below the small-asset limit, expensed at once (§ 6)'),
    small_asset_proceeds: amount('Proceeds of expensed small assets disposed of in the year: taxable income'),
    tax_depreciation: amount('pool.depreciation + small_assets_expensed'),
    accounting_depreciation: amount("The accounting depreciation of the year's months, every group"),
    difference: amount('tax_depreciation − accounting_depreciation'),
    assets: z.array(
      z
        .object({
          asset_id: uuid(),
          name: z.string(),
          group: z.enum(ASSET_GROUP_NAMES),
          acquisition_date: dateOut(),
          cost: amount('The acquisition cost'),
          tax_treatment: z.enum(['pool', 'expensed', 'not_in_pool']).meta({
            description:
              'pool: in the saldo pool; expensed: at or below the small-asset limit of its year; not_in_pool: a group outside the saldo method (buildings, leasehold improvements, intangibles, goodwill: their own rules)',
          }),
          tax_expensed: amount('Its cost when expensed in this year, else 0'),
          disposed_date: dateOut().nullable(),
          disposal_proceeds: amountOut('Proceeds when disposed of in this year (DKK); else null').nullable(),
          accounting_depreciation: amount("Its accounting depreciation of the year's months"),
        })
        .meta({ id: 'AssetTaxRow' }),
    ),
  })
  .meta({ id: 'AssetTaxView' });

export const assetsRouter = router({
  list: listEndpoint({
    path: '/assets',
    tag,
    summary: 'List fixed assets',
    scope: 'transactions:read',
    spec: ASSET_LIST,
    searchDescription: 'Case-insensitive search in the name',
    resource: assetResource,
    run: listAssets,
  }),
  create: createEndpoint({
    path: '/assets',
    tag,
    summary: 'Register a fixed asset',
    description:
      "Straight-line depreciation from the month of acquisition_date over useful_life_months is posted by a daily job on each month's last day (source depreciation: debit depreciation_account_number, credit accumulated_account_number); the last month takes the rounding. With expense_id the asset is made from a booked expense in one call: its cost and date are the expense's, and when the expense was posted to another account than the asset account, a posting (source asset) moves the cost there. Accounts default to the group's in the standard chart.",
    scope: 'transactions:write',
    problems: [409, 422],
    body: assetCreate,
    resource: fullAssetResource,
    run: createAsset,
  }),
  // Before GET /assets/{id}: the first route that matches a path answers it.
  tax: authedProcedure
    .meta(
      metaOf(
        {
          path: '/assets/tax',
          tag,
          summary: 'The tax view of an income year (saldo method)',
          description:
            "Not posted: for the tax return. Operating equipment (groups operating_equipment and machinery) by the saldo method, computed year by year from the first asset: additions above the small-asset limit join the pool, assets at or below it are expensed in their year, disposal proceeds leave it, and the largest depreciation is 25 % of the basis (all of it at or below the limit). Beside it, each asset's accounting depreciation of the year. The small-asset limit is GET /settings/assets.",
          scope: 'reports:read',
        },
        'GET',
      ),
    )
    .input(
      z.strictObject({
        year: z
          .int('must be a year')
          .min(1900, 'must be a year from 1900 to 9999')
          .max(9999, 'must be a year from 1900 to 9999')
          .meta({ description: 'The income year (the fiscal year starting in it), e.g. 2026' }),
      }),
    )
    .output(single(taxView))
    .query(async ({ ctx, input }) => ({ data: await assetTaxView(ctx.tx, ctx.scope, input.year) })),
  get: getEndpoint({
    path: '/assets/{id}',
    tag,
    summary: 'Get a fixed asset with its schedule, postings and book value',
    scope: 'transactions:read',
    resource: fullAssetResource,
    run: getAsset,
  }),
  update: updateEndpoint({
    path: '/assets/{id}',
    tag,
    summary: 'Update a fixed asset',
    description:
      'The name always; the other fields only while no month of depreciation is posted (409 asset_depreciated). An asset made from an expense keeps its cost and date. A disposed asset: 409 asset_disposed.',
    scope: 'transactions:write',
    problems: [409],
    body: assetUpdate,
    resource: fullAssetResource,
    run: updateAsset,
  }),
  delete: deleteEndpoint({
    path: '/assets/{id}',
    tag,
    summary: 'Delete a fixed asset',
    description:
      'Only while no month of depreciation is posted (409 asset_depreciated: dispose of it instead) and it is not disposed of (409 asset_disposed). A capitalisation posting made from an expense is reversed.',
    scope: 'transactions:write',
    run: deleteAsset,
  }),
  dispose: authedProcedure
    .meta(
      metaOf(
        {
          path: '/assets/{id}/dispose',
          tag,
          summary: 'Dispose of a fixed asset (sale or scrapping)',
          description:
            "Posts (source asset, dated date) the proceeds to proceeds_account_number, takes off the cost and the accumulated depreciation, and puts the difference to the group's gain (1530, 1510 for intangibles) or loss (3170, 3160) account. Months before the disposal's month not yet depreciated are posted first; none after. Refused: a date before acquisition or after today (400), in or before a month already depreciated (409 asset_depreciated), a disposed asset (409 asset_disposed), a locked period (422 period_locked).",
          scope: 'transactions:write',
          problems: [409, 422],
        },
        'POST',
        // 201 and a required key, as closing a fiscal year: the disposal is an entry made (decision 573).
        { idempotent: { status: 201 } },
      ),
    )
    .input(assetDispose.extend({ id: uuid() }))
    .output(single(fullAssetResource))
    .mutation(async ({ ctx, input }) => {
      const { id, ...body } = input;
      return { data: await disposeAsset(ctx.tx, ctx.scope, id, body) };
    }),
  register: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/reports/assets',
        tags: [tag],
        summary: 'The asset register at a date',
        description:
          'Every asset acquired on or before as_of and not disposed of by then, with its cost, the depreciation posted on or before as_of and its book value; meta.totals sum every asset selected. With `Accept: text/csv` the whole register comes as CSV instead (every row, a total row last).',
      },
      scopes: ['reports:read'],
      csv: registerCsv as (o: never) => CsvTable,
    })
    .input(
      listQuery(ASSET_REGISTER_LIST, 'Case-insensitive search in the name').extend({
        as_of: date().optional().meta({ description: 'The day the register is made at (inclusive); default today (Europe/Copenhagen)' }),
      }),
    )
    .output(registerList)
    .query(async ({ ctx, input }) => assetRegister(ctx.tx, ctx.scope, { ...input, all: ctx.format === 'csv' })),
  settings: authedProcedure
    .meta(metaOf({ path: '/settings/assets', tag, summary: 'The fixed-asset settings', scope: 'transactions:read' }, 'GET'))
    .input(z.strictObject({}))
    .output(single(assetSettings))
    .query(async ({ ctx }) => ({ data: await getAssetSettings(ctx.tx, ctx.scope) })),
  updateSettings: authedProcedure
    .meta(
      metaOf(
        {
          path: '/settings/assets',
          tag,
          summary: 'Set the small-asset limit of the tax view',
          description:
            'small_asset_limit: the limit for immediate expensing (and for writing off a small pool) the tax view uses; null: the statutory limit of each income year.',
          scope: 'transactions:write',
        },
        'PUT',
      ),
    )
    .input(assetSettingsUpdate)
    .output(single(assetSettings))
    .mutation(async ({ ctx, input }) => ({ data: await updateAssetSettings(ctx.tx, ctx.scope, input) })),
});
