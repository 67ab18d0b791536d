// A customer's fields, once: the create and update bodies, the resource the API answers with (its
// OpenAPI component), and the domain's input and view types derived from them.
import { z } from 'zod';
import { country, cvr, ean, email, exact, peppolId, phone, requiredText, text, vatNumber } from '../fields.ts';
import { paymentTermsDays } from '../integers.ts';
import { masterDataSchemas } from '../master-data.ts';

/** The format of the e-invoices sent to a customer: Peppol BIS Billing 3.0, OIOUBL 2.1, or the transport's choice. */
export const CUSTOMER_EINVOICE_FORMATS = ['peppol', 'oioubl', 'auto'] as const;
export type CustomerEinvoiceFormat = (typeof CUSTOMER_EINVOICE_FORMATS)[number];
const einvoiceFormat = () => z.enum(CUSTOMER_EINVOICE_FORMATS, { error: `must be one of ${CUSTOMER_EINVOICE_FORMATS.join(', ')}` });

const fields = {
  name: requiredText(200).meta({ example: 'Nordisk Tømrer ApS' }),
  email: email().optional().meta({ example: 'bogholderi@nordisktomrer.dk' }),
  phone: phone().optional().meta({ example: '+45 12 34 56 78' }),
  cvr: cvr().optional(),
  vat_number: vatNumber().optional(),
  ean: ean().optional(),
  peppol_id: peppolId().optional(),
  einvoice_format: einvoiceFormat().optional().meta({
    description:
      "The format of the e-invoices sent to the customer (POST /invoices/{id}/send, sending on approval): peppol (Peppol BIS Billing 3.0, the default), oioubl (OIOUBL 2.1, NemHandel; the customer's payment reminders then go as OIOUBL Reminders too), or auto: what the access point's receiver registry says the customer's peppol_id takes: the one format it takes; of both, oioubl to a Danish receiver (CVR, SE, P-number, Danish VAT number or a GS1 Denmark GLN) and peppol to any other; neither: sending is 422 einvoice_receiver_unsupported (sending on approval passes it by); peppol when the transport reports nothing of receivers (no registry; the http transport)",
    example: 'peppol',
  }),
  contact_person: text(200).optional(),
  address_line1: text(200).optional().meta({ example: 'Vestergade 12' }),
  address_line2: text(200).optional(),
  postal_code: text(20).optional().meta({ example: '8000' }),
  city: text(100).optional().meta({ example: 'Aarhus C' }),
  country: country().optional().meta({ description: 'ISO 3166-1 alpha-2; default DK' }),
  payment_terms_days: exact(paymentTermsDays()).optional().meta({ description: 'Days from issue to due date; default 14', example: 14 }),
  notes: text(2000).optional(),
};

export const customerSchemas = masterDataSchemas('Customer', fields, { payment_terms_days: paymentTermsDays(), einvoice_format: einvoiceFormat() });

export type CustomerInput = z.output<typeof customerSchemas.create>;
export type CustomerUpdate = z.output<typeof customerSchemas.update>;
export type CustomerView = z.input<typeof customerSchemas.resource>;
