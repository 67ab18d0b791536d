// A product's fields, once: the create and update bodies, the resource the API answers with (its
// OpenAPI component), and the domain's input and view types derived from them.
import { z } from 'zod';
import { accountNumber, amountOut, money, percent, requiredText, text, timestamp } from '../fields.ts';

const fields = {
  name: requiredText(200).meta({ example: 'Konsulenttime' }),
  product_number: text(50).optional().meta({ example: 'K-100' }),
  description: text(2000).optional(),
  unit: text(20).optional().meta({ description: 'Unit of sale; default stk', example: 'timer' }),
  unit_price: money({ min: 0 }).optional().meta({ description: 'Price per unit in DKK, excluding VAT; default 0', example: 950 }),
  vat_rate: percent().optional().meta({ description: 'VAT percent; default 25', example: 25 }),
  revenue_account: accountNumber()
    .or(z.literal(''))
    .optional()
    .meta({ description: 'Revenue account number sales of the product post to; empty means the company default', example: '1010' }),
};

export const productCreate = z.strictObject(fields);
export const productUpdate = z.strictObject({ ...fields, name: fields.name.optional() });

export const productResource = z
  .object({
    id: z.guid(),
    product_number: z.string(),
    name: z.string(),
    description: z.string(),
    unit: z.string(),
    unit_price: amountOut('Price per unit in DKK, excluding VAT'),
    vat_rate: z.number(),
    revenue_account: z.string(),
    currency: z.string(),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .meta({ id: 'Product' });

export type ProductInput = z.output<typeof productCreate>;
export type ProductUpdate = z.output<typeof productUpdate>;
export type ProductView = z.input<typeof productResource>;
