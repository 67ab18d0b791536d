// A supplier's fields, once: the create and update bodies, the resource the API answers with (its
// OpenAPI component), and the domain's input and view types derived from them.
import { z } from 'zod';
import {
  accountNumber,
  bankAccountNumber,
  bankRegNumber,
  country,
  cvr,
  email,
  iban,
  exact,
  peppolId,
  phone,
  requiredText,
  text,
  vatNumber,
} from '../fields.ts';
import { paymentTermsDays } from '../integers.ts';
import { masterDataSchemas } from '../master-data.ts';

const fields = {
  name: requiredText(200).meta({ example: 'Kontorartikler A/S' }),
  email: email().optional(),
  phone: phone().optional(),
  cvr: cvr().optional(),
  vat_number: vatNumber().optional(),
  peppol_id: peppolId().optional(),
  contact_person: text(200).optional(),
  address_line1: text(200).optional(),
  address_line2: text(200).optional(),
  postal_code: text(20).optional(),
  city: text(100).optional(),
  country: country().optional().meta({ description: 'ISO 3166-1 alpha-2; default DK' }),
  payment_terms_days: exact(paymentTermsDays()).optional().meta({ description: 'Default 30', example: 30 }),
  bank_reg_number: bankRegNumber().optional(),
  bank_account_number: bankAccountNumber().optional(),
  iban: iban().optional(),
  notes: text(2000).optional(),
  default_account_number: accountNumber().or(z.literal('')).optional().meta({
    description:
      'The expense account its received e-invoices\' lines are proposed to when this supplier\'s same item was never booked (an active expense account of the chart); "" (the default) for none',
    example: '2750',
  }),
};

export const supplierSchemas = masterDataSchemas('Supplier', fields, { payment_terms_days: paymentTermsDays() });

export type SupplierInput = z.output<typeof supplierSchemas.create>;
export type SupplierUpdate = z.output<typeof supplierSchemas.update>;
export type SupplierView = z.input<typeof supplierSchemas.resource>;
