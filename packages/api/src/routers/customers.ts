// /customers: CRUD and lookup by CVR, e-mail or telephone number.
import { z } from 'zod';
import { customers, invalidRequest, lookupCustomer } from '@tlr/domain';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoint, updateEndpoint } from '../crud.ts';
import { single } from '../schemas/envelopes.ts';
import { country, cvr, ean, email, integer, phone, requiredText, text, timestamp } from '@tlr/domain/fields';
import { authedProcedure, router } from '../trpc.ts';

const fields = {
  name: requiredText(200).meta({ example: 'Nordisk Tømrer ApS' }),
  email: email().optional().meta({ example: 'bogholderi@nordisktomrer.dk' }),
  phone: phone().optional().meta({ example: '+45 12 34 56 78' }),
  cvr: cvr().optional(),
  ean: ean().optional(),
  contact_person: text(200).optional(),
  address_line1: text(200).optional().meta({ example: 'Vestergade 12' }),
  address_line2: text(200).optional(),
  postal_code: text(20).optional().meta({ example: '8000' }),
  city: text(100).optional().meta({ example: 'Aarhus C' }),
  country: country().optional().meta({ description: 'ISO 3166-1 alpha-2; default DK' }),
  payment_terms_days: integer(0, 365).optional().meta({ description: 'Days from issue to due date; default 14', example: 14 }),
  notes: text(2000).optional(),
};

export const customerCreate = z.strictObject(fields);
export const customerUpdate = z.strictObject({ ...fields, name: fields.name.optional() });

export const customerResource = z
  .object({
    id: z.guid(),
    name: z.string(),
    email: z.string(),
    phone: z.string(),
    cvr: z.string(),
    ean: z.string(),
    contact_person: z.string(),
    address_line1: z.string(),
    address_line2: z.string(),
    postal_code: z.string(),
    city: z.string(),
    country: z.string(),
    payment_terms_days: z.int(),
    notes: z.string(),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .meta({ id: 'Customer' });

const tag = 'Customers';
export const customersRouter = router({
  list: listEndpoint({
    path: '/customers',
    tag,
    summary: 'List customers',
    scope: 'customers:read',
    spec: customers.listSpec,
    searchDescription: 'Case-insensitive search in name and email',
    resource: customerResource,
    run: customers.list,
  }),
  // Registered before /customers/{id}: the adapter's first matching pattern wins.
  lookup: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/customers/lookup',
        tags: [tag],
        summary: 'Find a customer by CVR, e-mail or telephone number',
        description:
          'Give exactly one of cvr, email (case-insensitive), phone (alias telephone; digits compared, +45 ignored) or q (any of the three). Answers the oldest matching customer, or 404 not_found.',
      },
      scopes: ['customers:read'],
    })
    .input(
      z.strictObject({
        cvr: z
          .string()
          .regex(/^\d{8}$/, 'must be a Danish CVR number of exactly 8 digits')
          .optional(),
        email: z.string().max(254).optional(),
        phone: z.string().max(40).optional(),
        telephone: z.string().max(40).optional().meta({ description: 'Same as phone' }),
        q: z.string().max(254).optional().meta({ description: 'Matches a CVR number, an e-mail address or a telephone number' }),
      }),
    )
    .output(single(customerResource))
    .query(async ({ ctx, input: { telephone, ...input } }) => {
      if (telephone !== undefined && input.phone !== undefined) throw invalidRequest('Give phone or telephone, not both.', 'telephone');
      return { data: await lookupCustomer(ctx.tx, ctx.scope, { ...input, phone: input.phone ?? telephone }) };
    }),
  get: getEndpoint({
    path: '/customers/{id}',
    tag,
    summary: 'Get a customer',
    scope: 'customers:read',
    resource: customerResource,
    run: customers.get,
    byId: customers.byId,
  }),
  create: createEndpoint({
    path: '/customers',
    tag,
    summary: 'Create a customer',
    scope: 'customers:write',
    body: customerCreate,
    resource: customerResource,
    run: customers.create,
  }),
  update: updateEndpoint({
    path: '/customers/{id}',
    tag,
    summary: 'Update a customer',
    description: 'Fields left out keep their value; null clears an optional text field.',
    scope: 'customers:write',
    body: customerUpdate,
    resource: customerResource,
    run: customers.update,
  }),
  delete: deleteEndpoint({ path: '/customers/{id}', tag, summary: 'Delete a customer', scope: 'customers:write', run: customers.remove }),
});
