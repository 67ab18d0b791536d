// /products: CRUD of what a company sells.
import { productSchemas, products } from '@tlr/domain';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoint, updateEndpoint } from '../crud.ts';
import { router } from '../trpc.ts';

const tag = 'Products';
export const productsRouter = router({
  list: listEndpoint({
    path: '/products',
    tag,
    summary: 'List products',
    scope: 'products:read',
    spec: products.listSpec,
    searchDescription: 'Case-insensitive search in name, product number and description',
    resource: productSchemas.resource,
    run: products.list,
  }),
  get: getEndpoint({
    path: '/products/{id}',
    tag,
    summary: 'Get a product',
    scope: 'products:read',
    resource: productSchemas.resource,
    run: products.get,
    byId: products.byId,
  }),
  create: createEndpoint({
    path: '/products',
    tag,
    summary: 'Create a product',
    scope: 'products:write',
    body: productSchemas.create,
    resource: productSchemas.resource,
    run: products.create,
  }),
  update: updateEndpoint({
    path: '/products/{id}',
    tag,
    summary: 'Update a product',
    scope: 'products:write',
    body: productSchemas.update,
    resource: productSchemas.resource,
    run: products.update,
  }),
  delete: deleteEndpoint({ path: '/products/{id}', tag, summary: 'Delete a product', scope: 'products:write', run: products.remove }),
});
