// A product's fields, once: the create and update bodies, the resource the API answers with (its
// OpenAPI component), and the domain's input and view types derived from them.
import { z } from 'zod';
import { accountNumber, amountOut, money, percent, requiredText, text } from '../fields.ts';
import { masterDataSchemas } from '../master-data.ts';

const fields = {
  product_number: text(50).optional().meta({ example: 'K-100' }),
  name: requiredText(200).meta({ example: 'Konsulenttime' }),
  description: text(2000).optional(),
  unit: text(20).optional().meta({ description: 'Unit of sale; default stk', example: 'timer' }),
  unit_price: money({ min: 0 }).optional().meta({ description: 'Price per unit in DKK, excluding VAT; default 0', example: 950 }),
  vat_rate: percent().optional().meta({ description: 'VAT percent; default 25', example: 25 }),
  revenue_account: accountNumber()
    .or(z.literal(''))
    .optional()
    .meta({ description: 'Revenue account number sales of the product post to; empty means the company default', example: '1010' }),
};

export const productSchemas = masterDataSchemas(
  'Product',
  fields,
  { unit_price: amountOut('Price per unit in DKK, excluding VAT'), vat_rate: z.number() },
  { currency: z.string() },
);

export type ProductInput = z.output<typeof productSchemas.create>;
export type ProductUpdate = z.output<typeof productSchemas.update>;
export type ProductView = z.input<typeof productSchemas.resource>;
