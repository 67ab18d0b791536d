// The application router: the public REST resources (mounted at /api/v1 by the server) and the
// internal procedures for the operator CLI and the admin app.
import { customersRouter } from './routers/customers.ts';
import { internalRouter } from './routers/internal.ts';
import { productsRouter } from './routers/products.ts';
import { suppliersRouter } from './routers/suppliers.ts';
import { router } from './trpc.ts';

export const appRouter = router({
  customers: customersRouter,
  products: productsRouter,
  suppliers: suppliersRouter,
  internal: internalRouter,
});

export type AppRouter = typeof appRouter;
