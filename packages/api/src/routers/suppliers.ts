// /suppliers: CRUD of who a company buys from.
import { supplierSchemas, suppliers } from '@tlr/domain';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoint, updateEndpoint } from '../crud.ts';
import { router } from '../trpc.ts';

const tag = 'Suppliers';
export const suppliersRouter = router({
  list: listEndpoint({
    path: '/suppliers',
    tag,
    summary: 'List suppliers',
    scope: 'suppliers:read',
    spec: suppliers.listSpec,
    searchDescription: 'Case-insensitive search in name, email, CVR, VAT number and Peppol id',
    resource: supplierSchemas.resource,
    run: suppliers.list,
  }),
  get: getEndpoint({
    path: '/suppliers/{id}',
    tag,
    summary: 'Get a supplier',
    scope: 'suppliers:read',
    resource: supplierSchemas.resource,
    run: suppliers.get,
    byId: suppliers.byId,
  }),
  create: createEndpoint({
    path: '/suppliers',
    tag,
    summary: 'Create a supplier',
    scope: 'suppliers:write',
    body: supplierSchemas.create,
    resource: supplierSchemas.resource,
    run: suppliers.create,
  }),
  update: updateEndpoint({
    path: '/suppliers/{id}',
    tag,
    summary: 'Update a supplier',
    scope: 'suppliers:write',
    body: supplierSchemas.update,
    resource: supplierSchemas.resource,
    run: suppliers.update,
  }),
  delete: deleteEndpoint({ path: '/suppliers/{id}', tag, summary: 'Delete a supplier', scope: 'suppliers:write', run: suppliers.remove }),
});
