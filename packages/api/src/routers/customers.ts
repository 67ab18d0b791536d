// /customers: CRUD and lookup by CVR, Peppol id, e-mail or telephone number.
import { z } from 'zod';
import { customerSchemas, customers, invalidRequest, lookupCustomer } from '@tlr/domain';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoint, updateEndpoint } from '../crud.ts';
import { cvrNumber, peppolParticipantId } from '@tlr/domain/fields';
import { single } from '../schemas/envelopes.ts';
import { authedProcedure, router } from '../trpc.ts';

const tag = 'Customers';
export const customersRouter = router({
  list: listEndpoint({
    path: '/customers',
    tag,
    summary: 'List customers',
    scope: 'customers:read',
    spec: customers.listSpec,
    searchDescription: 'Case-insensitive search in name and email',
    resource: customerSchemas.resource,
    run: customers.list,
  }),
  // Registered before /customers/{id}: the adapter's first matching pattern wins.
  lookup: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/customers/lookup',
        tags: [tag],
        summary: 'Find a customer by CVR, Peppol id, e-mail or telephone number',
        description:
          'Give exactly one of cvr, peppol_id (checked as on the customer, compared normalised: case and spaces ignored), email (case-insensitive), phone (alias telephone; digits compared, +45 ignored) or q (any of the four). Answers the oldest matching customer, or 404 not_found.',
      },
      scopes: ['customers:read'],
    })
    .input(
      z.strictObject({
        cvr: cvrNumber().optional(),
        peppol_id: peppolParticipantId().optional(),
        email: z.string().max(254).optional(),
        phone: z.string().max(40).optional(),
        telephone: z.string().max(40).optional().meta({ description: 'Same as phone' }),
        q: z.string().max(254).optional().meta({ description: 'Matches a CVR number, a Peppol id, an e-mail address or a telephone number' }),
      }),
    )
    .output(single(customerSchemas.resource))
    .query(async ({ ctx, input: { telephone, ...input } }) => {
      if (telephone !== undefined && input.phone !== undefined) throw invalidRequest('Give phone or telephone, not both.', 'telephone');
      return { data: await lookupCustomer(ctx.tx, ctx.scope, { ...input, phone: input.phone ?? telephone }) };
    }),
  get: getEndpoint({
    path: '/customers/{id}',
    tag,
    summary: 'Get a customer',
    scope: 'customers:read',
    resource: customerSchemas.resource,
    run: customers.get,
    byId: customers.byId,
  }),
  create: createEndpoint({
    path: '/customers',
    tag,
    summary: 'Create a customer',
    scope: 'customers:write',
    body: customerSchemas.create,
    resource: customerSchemas.resource,
    run: customers.create,
  }),
  update: updateEndpoint({
    path: '/customers/{id}',
    tag,
    summary: 'Update a customer',
    scope: 'customers:write',
    body: customerSchemas.update,
    resource: customerSchemas.resource,
    run: customers.update,
  }),
  delete: deleteEndpoint({ path: '/customers/{id}', tag, summary: 'Delete a customer', scope: 'customers:write', run: customers.remove }),
});
