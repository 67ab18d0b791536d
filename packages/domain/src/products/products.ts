// Products (varer): what a company sells, with the unit price, unit, VAT rate and revenue account
// an invoice line defaults to.
import type { Product } from '@tlr/db';
import type { Decimal } from '../money.ts';
import { definedOnly, masterData } from '../master-data.ts';
import { amountToJson, rateToJson } from '../money.ts';

export interface ProductInput {
  name: string;
  product_number?: string | undefined;
  description?: string | undefined;
  unit?: string | undefined;
  unit_price?: Decimal | undefined;
  vat_rate?: Decimal | undefined;
  revenue_account?: string | undefined;
}

export function productView(p: Product) {
  return {
    id: p.id,
    product_number: p.product_number,
    name: p.name,
    description: p.description,
    unit: p.unit,
    unit_price: amountToJson(p.unit_price),
    vat_rate: rateToJson(p.vat_rate),
    revenue_account: p.revenue_account,
    currency: 'DKK',
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
  };
}
export type ProductView = ReturnType<typeof productView>;

const toRow = (input: Partial<ProductInput>) =>
  definedOnly({
    ...input,
    unit_price: input.unit_price?.toFixed(2),
    vat_rate: input.vat_rate?.toFixed(2),
  });

export const products = masterData<Product, ProductView, ProductInput, Partial<ProductInput>>({
  noun: 'product',
  delegate: (db) => db.product,
  toRow,
  toPatch: toRow,
  view: productView,
  list: {
    sort: { name: 'name', created_at: 'created_at', unit_price: 'unit_price' },
    defaultSort: 'name',
    search: ['name', 'product_number', 'description'],
    dateColumn: 'created_at',
    dateDescription: 'creation date',
  },
});
