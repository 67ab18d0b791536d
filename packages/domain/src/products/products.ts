// Products (varer): what a company sells, with the unit price, unit, VAT rate and revenue account
// an invoice line defaults to.
import type { Product } from '@tlr/db';
import { definedOnly, masterData, viewOf } from '../master-data.ts';
import { amountToJson, rateToJson } from '../money.ts';
import { productSchemas, type ProductInput, type ProductUpdate, type ProductView } from './schema.ts';

const toRow = (input: ProductUpdate) =>
  definedOnly({
    ...input,
    unit_price: input.unit_price?.toFixed(2),
    vat_rate: input.vat_rate?.toFixed(2),
  });

export const products = masterData<Product, ProductView, ProductInput, ProductUpdate>({
  noun: 'product',
  delegate: (db) => db.product,
  toRow,
  toPatch: toRow,
  view: viewOf(productSchemas.resource, {
    unit_price: (p: Product) => amountToJson(p.unit_price),
    vat_rate: (p: Product) => rateToJson(p.vat_rate),
    currency: () => 'DKK',
  }),
  list: {
    sort: { name: 'name', created_at: 'created_at', unit_price: 'unit_price' },
    defaultSort: 'name',
    search: ['name', 'product_number', 'description'],
    dateColumn: 'created_at',
    dateDescription: 'creation date',
  },
});
