// Suppliers (kreditorer): who a company buys from; expenses refer to them.
import type { Supplier } from '@tlr/db';
import { expenseAccount } from '../expenses/draft-checks.ts';
import { definedOnly, masterData, viewOf } from '../master-data.ts';
import { supplierSchemas, type SupplierInput, type SupplierUpdate, type SupplierView } from './schema.ts';

export const suppliers = masterData<Supplier, SupplierView, SupplierInput, SupplierUpdate>({
  noun: 'supplier',
  delegate: (db) => db.supplier,
  toRow: (i) => definedOnly({ ...i }),
  toPatch: (i) => definedOnly({ ...i }),
  view: viewOf(supplierSchemas.resource),
  // A default account is an active expense account of the chart ("" clears it).
  check: async (db, scope, input) => {
    if (input.default_account_number) await expenseAccount(db, scope, input.default_account_number, 'default_account_number');
  },
  list: {
    sort: { name: 'name', created_at: 'created_at' },
    defaultSort: 'name',
    search: ['name', 'email', 'cvr', 'vat_number', 'peppol_id'],
    dateColumn: 'created_at',
    dateDescription: 'creation date',
  },
});
