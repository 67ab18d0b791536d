// Suppliers (kreditorer): who a company buys from; expenses refer to them.
import type { Supplier } from '@tlr/db';
import { definedOnly, masterData, viewOf } from '../master-data.ts';
import { supplierSchemas, type SupplierInput, type SupplierUpdate, type SupplierView } from './schema.ts';

export const suppliers = masterData<Supplier, SupplierView, SupplierInput, SupplierUpdate>({
  noun: 'supplier',
  delegate: (db) => db.supplier,
  toRow: (i) => definedOnly({ ...i }),
  toPatch: (i) => definedOnly({ ...i }),
  view: viewOf(supplierSchemas.resource),
  list: {
    sort: { name: 'name', created_at: 'created_at' },
    defaultSort: 'name',
    search: ['name', 'email', 'cvr', 'vat_number', 'peppol_id'],
    dateColumn: 'created_at',
    dateDescription: 'creation date',
  },
});
