// Suppliers (kreditorer): who a company buys from; expenses refer to them.
import type { Supplier } from '@tlr/db';
import { definedOnly, masterData } from '../master-data.ts';

export interface SupplierInput {
  name: string;
  email?: string | undefined;
  phone?: string | undefined;
  cvr?: string | undefined;
  contact_person?: string | undefined;
  address_line1?: string | undefined;
  address_line2?: string | undefined;
  postal_code?: string | undefined;
  city?: string | undefined;
  country?: string | undefined;
  payment_terms_days?: number | undefined;
  bank_reg_number?: string | undefined;
  bank_account_number?: string | undefined;
  iban?: string | undefined;
  notes?: string | undefined;
}

export function supplierView(s: Supplier) {
  return {
    id: s.id,
    name: s.name,
    email: s.email,
    phone: s.phone,
    cvr: s.cvr,
    contact_person: s.contact_person,
    address_line1: s.address_line1,
    address_line2: s.address_line2,
    postal_code: s.postal_code,
    city: s.city,
    country: s.country,
    payment_terms_days: s.payment_terms_days,
    bank_reg_number: s.bank_reg_number,
    bank_account_number: s.bank_account_number,
    iban: s.iban,
    notes: s.notes,
    created_at: s.created_at.toISOString(),
    updated_at: s.updated_at.toISOString(),
  };
}
export type SupplierView = ReturnType<typeof supplierView>;

export const suppliers = masterData<Supplier, SupplierView, SupplierInput, Partial<SupplierInput>>({
  noun: 'supplier',
  delegate: (db) => db.supplier,
  toRow: (i) => definedOnly({ ...i }),
  toPatch: (i) => definedOnly({ ...i }),
  view: supplierView,
  list: {
    sort: { name: 'name', created_at: 'created_at' },
    defaultSort: 'name',
    search: ['name', 'email', 'cvr'],
    dateColumn: 'created_at',
    dateDescription: 'creation date',
  },
});
