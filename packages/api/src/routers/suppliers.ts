// /suppliers: CRUD of who a company buys from.
import { z } from 'zod';
import { suppliers } from '@tlr/domain';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoint, updateEndpoint } from '../crud.ts';
import { bankAccountNumber, bankRegNumber, country, cvr, email, iban, integer, phone, requiredText, text, timestamp } from '@tlr/domain/fields';
import { router } from '../trpc.ts';

const fields = {
  name: requiredText(200).meta({ example: 'Kontorartikler A/S' }),
  email: email().optional(),
  phone: phone().optional(),
  cvr: cvr().optional(),
  contact_person: text(200).optional(),
  address_line1: text(200).optional(),
  address_line2: text(200).optional(),
  postal_code: text(20).optional(),
  city: text(100).optional(),
  country: country().optional().meta({ description: 'ISO 3166-1 alpha-2; default DK' }),
  payment_terms_days: integer(0, 365).optional().meta({ description: 'Default 30', example: 30 }),
  bank_reg_number: bankRegNumber().optional(),
  bank_account_number: bankAccountNumber().optional(),
  iban: iban().optional(),
  notes: text(2000).optional(),
};

const supplierResource = z
  .object({
    id: z.guid(),
    name: z.string(),
    email: z.string(),
    phone: z.string(),
    cvr: z.string(),
    contact_person: z.string(),
    address_line1: z.string(),
    address_line2: z.string(),
    postal_code: z.string(),
    city: z.string(),
    country: z.string(),
    payment_terms_days: z.int(),
    bank_reg_number: z.string(),
    bank_account_number: z.string(),
    iban: z.string(),
    notes: z.string(),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .meta({ id: 'Supplier' });

const tag = 'Suppliers';
export const suppliersRouter = router({
  list: listEndpoint({
    path: '/suppliers',
    tag,
    summary: 'List suppliers',
    scope: 'suppliers:read',
    spec: suppliers.listSpec,
    searchDescription: 'Case-insensitive search in name, email and CVR',
    resource: supplierResource,
    run: suppliers.list,
  }),
  get: getEndpoint({
    path: '/suppliers/{id}',
    tag,
    summary: 'Get a supplier',
    scope: 'suppliers:read',
    resource: supplierResource,
    run: suppliers.get,
    byId: suppliers.byId,
  }),
  create: createEndpoint({
    path: '/suppliers',
    tag,
    summary: 'Create a supplier',
    scope: 'suppliers:write',
    body: z.strictObject(fields),
    resource: supplierResource,
    run: suppliers.create,
  }),
  update: updateEndpoint({
    path: '/suppliers/{id}',
    tag,
    summary: 'Update a supplier',
    description: 'Fields left out keep their value.',
    scope: 'suppliers:write',
    body: z.strictObject({ ...fields, name: fields.name.optional() }),
    resource: supplierResource,
    run: suppliers.update,
  }),
  delete: deleteEndpoint({ path: '/suppliers/{id}', tag, summary: 'Delete a supplier', scope: 'suppliers:write', run: suppliers.remove }),
});
