// /products: CRUD of what a company sells.
import { z } from 'zod';
import { products } from '@tlr/domain';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoint, updateEndpoint } from '../crud.ts';
import { accountNumber, amountOut, money, percent, requiredText, text, timestamp } from '@tlr/domain/fields';
import { router } from '../trpc.ts';

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

const productResource = z
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

const tag = 'Products';
export const productsRouter = router({
  list: listEndpoint({
    path: '/products',
    tag,
    summary: 'List products',
    scope: 'products:read',
    spec: products.listSpec,
    searchDescription: 'Case-insensitive search in name, product number and description',
    resource: productResource,
    run: products.list,
  }),
  get: getEndpoint({
    path: '/products/{id}',
    tag,
    summary: 'Get a product',
    scope: 'products:read',
    resource: productResource,
    run: products.get,
    byId: products.byId,
  }),
  create: createEndpoint({
    path: '/products',
    tag,
    summary: 'Create a product',
    scope: 'products:write',
    body: z.strictObject(fields),
    resource: productResource,
    run: products.create,
  }),
  update: updateEndpoint({
    path: '/products/{id}',
    tag,
    summary: 'Update a product',
    description: 'Fields left out keep their value.',
    scope: 'products:write',
    body: z.strictObject({ ...fields, name: fields.name.optional() }),
    resource: productResource,
    run: products.update,
  }),
  delete: deleteEndpoint({ path: '/products/{id}', tag, summary: 'Delete a product', scope: 'products:write', run: products.remove }),
});
