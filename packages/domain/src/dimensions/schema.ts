// A dimension's fields, once: the create and update bodies, the resource, and the `dimensions` field that
// journal lines, invoice lines and expenses take ({"Projekt": "A"}).
import { z } from 'zod';
import { accountNumber, boolean, exact, requiredText, text, timestamp } from '../fields.ts';

/** The most dimensions a company keeps, and so the most one line carries. */
export const MAX_DIMENSIONS = 20;
/** The most values one dimension holds. */
export const MAX_DIMENSION_VALUES = 1000;

// The name is a key of `dimensions` objects and of report parameters (dimension[Projekt]=A,
// group_by=dimension:Projekt): it holds none of the characters those use (decision 580).
const dimensionName = () =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(50)
    .regex(/^[^[\]:,=&]+$/, 'must not contain [ ] : , = or &');
// A value's code: what SAF-T's AnalysisID carries (at most 35 characters there; decision 580).
export const dimensionCode = () =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(35)
    // Latin letters (æ, ø, å and the other Latin-1 letters), without Unicode property escapes, which the
    // document's JSON Schema readers do not all know.
    .regex(/^[0-9A-Za-zÀ-ÖØ-öø-ÿ._\-/ ]+$/, 'holds letters, digits, space and . _ - / only');

/** The `dimensions` of a journal line, an invoice line or an expense: a value code per dimension name. */
export const lineDimensions = () =>
  z
    .record(dimensionName(), dimensionCode())
    .refine((r) => Object.keys(r).length <= MAX_DIMENSIONS, `holds at most ${MAX_DIMENSIONS} dimensions`)
    .meta({
      description:
        'Dimensions (afdelinger, projekter): the code of one value per dimension name (GET /dimensions). An unknown name or code: 400 invalid_request; a retired value: 400 dimension_value_retired; a line on an account on which a dimension is required without it: 400 dimension_required (both naming the line and the dimension)',
      example: { Projekt: 'A' },
    });
export type LineDimensions = Record<string, string>;

/** The dimensions of a line, or undefined when it has none ({} or null). Pure. */
export const someDimensions = (d: LineDimensions | null | undefined): LineDimensions | undefined => (d && Object.keys(d).length ? d : undefined);

/** A key equal for equal dimensions whatever their order ('' for none), to group posting lines by. Pure. */
export const dimensionsKey = (d: LineDimensions | undefined): string => (d ? JSON.stringify(Object.entries(d).sort()) : '');

const valueInput = z.strictObject({
  code: dimensionCode().meta({ example: 'A' }),
  name: requiredText(200).meta({ example: 'Projekt A' }),
});

const valueUpdate = z.strictObject({
  code: dimensionCode().meta({ description: 'The value: an existing code changes that value; a new one adds it', example: 'A' }),
  name: requiredText(200).optional().meta({ description: 'Required for a new value', example: 'Projekt A' }),
  retired: boolean()
    .optional()
    .meta({ description: 'true retires the value: lines posted with it keep it, new lines are refused it; false takes it back into use' }),
});

const requiredAccounts = z
  .array(accountNumber())
  .max(1000)
  .meta({
    description:
      'Account numbers on which every journal line must carry a value of this dimension (400 dimension_required otherwise). Reversals, closing entries and SAF-T imports are exempt',
    example: ['1010'],
  });

export const dimensionCreate = z.strictObject({
  name: dimensionName().meta({ description: 'Unique in the company; fixed once created (it is the key lines name it by)', example: 'Projekt' }),
  description: text(500).optional(),
  values: z.array(valueInput).max(MAX_DIMENSION_VALUES).optional().meta({ description: 'The values; codes unique in the dimension' }),
  required_account_numbers: requiredAccounts.optional(),
});

export const dimensionUpdate = z.strictObject({
  description: text(500).optional(),
  values: z
    .array(valueUpdate)
    .max(MAX_DIMENSION_VALUES)
    .optional()
    .meta({ description: 'Values to add, rename, retire or take back; values not named are left as they are (a value is never deleted)' }),
  required_account_numbers: requiredAccounts.optional().meta({ description: 'Replaces the list' }),
});

export const dimensionResource = z
  .object({
    id: z.guid(),
    name: z.string(),
    description: z.string(),
    values: z.array(
      z.object({
        code: z.string(),
        name: z.string(),
        retired: z.boolean(),
        retired_at: timestamp().nullable(),
      }),
    ),
    required_account_numbers: z.array(z.string()),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .meta({ id: 'Dimension' });

export type DimensionInput = z.output<typeof dimensionCreate>;
export type DimensionUpdate = z.output<typeof dimensionUpdate>;
export type DimensionView = z.input<typeof dimensionResource>;

/** The report parameters of a dimension filter and grouping (GET /reports/profit-loss, /reports/trial-balance). */
export const reportDimensionParams = {
  // exact(): a pipe, which the OpenAPI generator takes for a query parameter (it refuses a bare record);
  // the document names its style deepObject (openapi.ts).
  dimension: exact(z.record(dimensionName(), dimensionCode()))
    .optional()
    .meta({
      description:
        'dimension[<name>]=<code>: only the journal lines that carry that value of the dimension (several: lines carrying all of them), e.g. dimension[Projekt]=A. An unknown name or code: 400 naming dimension[<name>]',
      example: { Projekt: 'A' },
    }),
  group_by: z
    .string()
    .regex(/^dimension:[^[\]:,=&]+$/, 'must be dimension:<name>')
    .optional()
    .meta({ description: 'dimension:<name>: the figures per value of that dimension, and those of the lines without one', example: 'dimension:Projekt' }),
};
