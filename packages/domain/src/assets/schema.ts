// A fixed asset's fields, once: the create and update bodies, the disposal's, the resources the API
// answers with (the asset, the asset with its schedule and postings, the register and the tax view),
// and the domain's types derived from them. docs/assets.md.
import { z } from 'zod';
import { accountNumber, amountOut, date, dateOut, exact, money, requiredText, timestamp, uuid } from '../fields.ts';
import { count } from '../integers.ts';
import { lineDimensions } from '../dimensions/schema.ts';
import { ASSET_GROUP_NAMES, ASSET_GROUPS, ASSET_STATUSES, MAX_LIFE_MONTHS } from './rules.ts';

const groups = ASSET_GROUP_NAMES.map(
  (g) => `${g} (${ASSET_GROUPS[g].name}: ${ASSET_GROUPS[g].asset}, ${ASSET_GROUPS[g].accumulated}, ${ASSET_GROUPS[g].depreciation})`,
).join('; ');
const lifeInt = () => z.int().min(1).max(MAX_LIFE_MONTHS);

const fields = {
  name: requiredText(200).meta({ description: 'What the asset is', example: 'Varebil Ford Transit' }),
  group: z
    .enum(ASSET_GROUP_NAMES, { error: `must be one of ${ASSET_GROUP_NAMES.join(', ')}` })
    .optional()
    .meta({
      description: `The asset type, which gives the default accounts of the standard chart (asset, accumulated depreciation, depreciation expense): ${groups}. Default operating_equipment`,
      example: 'operating_equipment',
    }),
  acquisition_date: date().optional().meta({
    description: "The day it was acquired; depreciation starts with its month. Required unless expense_id is given (then the expense's date)",
  }),
  cost: money({ min: 0.01 }).optional().meta({
    description:
      'The acquisition cost (anskaffelsessum) in DKK, more than 0. Required unless expense_id is given (then what the expense posted to its account)',
    example: 120000,
  }),
  useful_life_months: exact(lifeInt()).meta({ description: 'The useful life in months over which cost − residual_value is depreciated', example: 60 }),
  residual_value: money({ min: 0 })
    .optional()
    .meta({ description: 'The residual value (scrapværdi) left after the life, less than cost; default 0', example: 0 }),
  asset_account_number: accountNumber()
    .optional()
    .meta({ description: "The balance-sheet account of the cost; default the group's (or the expense's account when it is a balance-sheet account)" }),
  accumulated_account_number: accountNumber()
    .optional()
    .meta({ description: "The balance-sheet account of the accumulated depreciation; default the group's" }),
  depreciation_account_number: accountNumber().optional().meta({ description: "The expense account of the depreciation; default the group's" }),
  dimensions: lineDimensions()
    .nullable()
    .optional()
    .meta({
      description:
        'The asset\'s dimensions ({"Projekt": "B"}): its monthly depreciation, its disposal and the debit of its capitalisation carry them, so the profit and loss by project shows the project\'s depreciation. Default those of the expense line or expense it is made from; {} or null for none. A value retired later stays on the asset and its postings. When the company requires a dimension on the asset, accumulated or depreciation account, the asset must carry it (400 dimension_required naming dimensions.<name>). Decisions 872-874',
      example: { Projekt: 'B' },
    }),
};

export const assetCreate = z.strictObject({
  ...fields,
  expense_id: uuid().optional().meta({
    description:
      "A booked (or paid) expense of the company the asset was bought with: cost and acquisition_date are taken from it (giving them too: 400). When the expense was posted to another account than the asset account, a posting moves the cost from it to the asset account (capitalisation), its credit carrying the dimensions the cost was posted with: the expense's, or one credit per set of dimensions when its lines carry their own (decisions 841, 876). One asset per expense (409 asset_exists, also when one of its lines is an asset); to make an asset of one line, give expense_line_id",
  }),
  expense_line_id: uuid().optional().meta({
    description:
      "A line of a booked (or paid) expense (GET /expenses/{id}: lines[].id; a received e-invoice's), when the asset is one line of several (a van among its extras): the acquisition date is the expense's, the cost the line's net amount in DKK with its share of VAT that is not deductible, and a capitalisation posting moves that cost from the line's account to the asset account. expense_id may be left out or must be the line's expense. One asset per line, and none for a line of an expense that is an asset as a whole (409 asset_exists naming expense_line_id); a line of 0 or less, or accrued, is 400. Decisions 870-871",
  }),
  transaction_id: uuid().optional().meta({ description: 'The posting the asset came from (a manual entry to the asset account); not with expense_id' }),
});

export const assetUpdate = z.strictObject({
  name: fields.name.optional(),
  group: fields.group,
  acquisition_date: fields.acquisition_date,
  cost: fields.cost,
  useful_life_months: fields.useful_life_months.optional(),
  residual_value: fields.residual_value,
  asset_account_number: fields.asset_account_number,
  accumulated_account_number: fields.accumulated_account_number,
  depreciation_account_number: fields.depreciation_account_number,
  dimensions: fields.dimensions.meta({
    description:
      'The asset\'s dimensions ({"Projekt": "B"}; {} or null for none): they may change until the asset is disposed of, also after months are posted; the months posted keep theirs, the next carry the new ones (decision 872)',
  }),
});

export const assetDispose = z.strictObject({
  date: date().meta({ description: 'The day of the sale or scrapping; no depreciation is posted for its month or later' }),
  proceeds: money({ min: 0 }).optional().meta({ description: 'What it was sold for, without VAT (DKK); default 0 (scrapped)', example: 40000 }),
  proceeds_account_number: accountNumber()
    .optional()
    .meta({ description: 'The account debited with the proceeds; default 6470 Bankkonto. Name a clearing account when the sale is invoiced' }),
});

const amount = (d: string) => amountOut(`${d} (DKK)`);

const resourceFields = {
  id: uuid(),
  name: z.string(),
  group: z.enum(ASSET_GROUP_NAMES),
  acquisition_date: dateOut(),
  cost: amount('The acquisition cost'),
  useful_life_months: lifeInt(),
  residual_value: amount('The residual value'),
  asset_account_number: z.string(),
  accumulated_account_number: z.string(),
  depreciation_account_number: z.string(),
  expense_id: uuid().nullable(),
  expense_line_id: uuid()
    .nullable()
    .meta({ description: 'The expense line it was made from (expense_id is its expense); null when made from a whole expense or none' }),
  transaction_id: uuid().nullable(),
  capitalisation_transaction_id: uuid()
    .nullable()
    .meta({ description: "The posting that moved the expense's cost to the asset account; null when none was needed" }),
  status: z.enum(ASSET_STATUSES).meta({
    description:
      'active: depreciation goes on monthly; fully_depreciated: cost − residual_value is depreciated; disposed: sold or scrapped (POST /assets/{id}/dispose)',
  }),
  monthly_depreciation: amount('The straight-line depreciation of a month (the last month takes the rounding)'),
  months_depreciated: count().meta({ description: 'Months whose depreciation is posted' }),
  accumulated_depreciation: amount('The depreciation posted so far'),
  book_value: amount('cost − accumulated_depreciation; 0 once disposed'),
  next_depreciation_month: dateOut()
    .nullable()
    .meta({ description: 'The first day of the next month to depreciate (posted on its last day by the daily job); null when fully depreciated or disposed' }),
  disposed_date: dateOut().nullable(),
  disposal_proceeds: amountOut('What it was sold for (DKK); null until disposed').nullable(),
  disposal_transaction_id: uuid().nullable(),
  dimensions: z
    .record(z.string(), z.string())
    .meta({ description: 'The dimensions its depreciation and disposal carry; {} for none', example: { Projekt: 'B' } }),
  depreciation_failure: z
    .object({
      month: dateOut().meta({ description: 'The first day of the month the run could not post' }),
      code: z.string().meta({ description: "The refusal's problem code (dimension_required, fiscal_year_not_open, ...)" }),
      detail: z.string(),
      failed_at: timestamp(),
    })
    .nullable()
    .meta({
      description:
        'Why the last depreciation run could not post the next month (a dimension the company requires since, no open fiscal year): the run goes on with the other assets and tries this one again on the next run; null once a month posts or the asset is changed (decision 875)',
    }),
  created_at: timestamp(),
  updated_at: timestamp(),
};

export const assetResource = z.object(resourceFields).meta({ id: 'Asset' });

export const fullAssetResource = z
  .object({
    ...resourceFields,
    schedule: z
      .array(
        z.object({
          month: dateOut().meta({ description: "The month's first day" }),
          amount: amount("The month's depreciation"),
          accumulated_depreciation: amount('The depreciation up to and including this month'),
          book_value: amount('cost − accumulated_depreciation after this month'),
          posted: z.boolean(),
          date: dateOut()
            .nullable()
            .meta({ description: "The posting's date: the month's last day, or the first open day after a locked period; null until posted" }),
          transaction_id: uuid().nullable(),
        }),
      )
      .meta({ description: 'Every month of the life, in order, with what is posted of it (the months after a disposal are left out)' }),
    postings: z
      .array(
        z.object({
          kind: z.enum(['capitalisation', 'depreciation', 'disposal']),
          date: dateOut(),
          amount: amount("What the posting moved: the cost, the month's depreciation, or the cost taken off"),
          transaction_id: uuid(),
        }),
      )
      .meta({ description: 'The postings the asset made, in date order (GET /transactions/{id} shows each)' }),
  })
  .meta({ id: 'AssetWithSchedule' });

export const assetSettings = z
  .object({
    small_asset_limit: amountOut('The small-asset limit the tax view uses; null: the statutory limit of each income year').nullable(),
    statutory_limits: z
      .record(z.string(), amountOut())
      .meta({ description: 'The statutory småaktivgrænse by income year (afskrivningsloven § 6; 2026: 36.000 kr.)' }),
  })
  .meta({ id: 'AssetSettings' });

export const assetSettingsUpdate = z.strictObject({
  small_asset_limit: money({ min: 0 }).nullable().meta({
    description: 'The small-asset limit (småaktivgrænse) for immediate expensing in the tax view; null: the statutory limit of each income year',
    example: 36000,
  }),
});

export type AssetInput = z.output<typeof assetCreate>;
export type AssetUpdate = z.output<typeof assetUpdate>;
export type AssetDisposeInput = z.output<typeof assetDispose>;
export type AssetView = z.input<typeof assetResource>;
export type FullAssetView = z.input<typeof fullAssetResource>;
