// The application router: the public REST resources (mounted at /api/v1 by the server) and the
// internal procedures for the operator CLI and the admin app.
import { accountsRouter } from './routers/accounts.ts';
import { controlTrailRouter } from './routers/control-trail.ts';
import { bankAccountsRouter } from './routers/bank-accounts.ts';
import { bankLinesRouter } from './routers/bank-lines.ts';
import { bankStatementsRouter } from './routers/bank-statements.ts';
import { bankReconciliationRouter } from './routers/bank-reconciliation.ts';
import { customersRouter } from './routers/customers.ts';
import { einvoicesRouter } from './routers/einvoices.ts';
import { exchangeRatesRouter } from './routers/exchange-rates.ts';
import { exportsRouter } from './routers/exports.ts';
import { importsRouter } from './routers/imports.ts';
import { internalRouter } from './routers/internal.ts';
import { oauthRouter } from './routers/oauth.ts';
import { supportRouter } from './routers/support.ts';
import { invoicesRouter } from './routers/invoices.ts';
import { recurringInvoicesRouter } from './routers/recurring-invoices.ts';
import { settingsRouter } from './routers/settings.ts';
import { expensesRouter } from './routers/expenses.ts';
import { vouchersRouter } from './routers/vouchers.ts';
import { webhooksRouter } from './routers/webhooks.ts';
import { productsRouter } from './routers/products.ts';
import { reportsRouter } from './routers/reports.ts';
import { sandboxRouter } from './routers/sandbox.ts';
import { suppliersRouter } from './routers/suppliers.ts';
import { transactionsRouter } from './routers/transactions.ts';
import { vatRouter } from './routers/vat.ts';
import { euSalesRouter } from './routers/eu-sales.ts';
import { remindersRouter } from './routers/reminders.ts';
import { quotesRouter } from './routers/quotes.ts';
import { budgetsRouter, dimensionsRouter } from './routers/dimensions.ts';
import { assetsRouter } from './routers/assets.ts';
import { createCallerFactory, router } from './trpc.ts';

export const appRouter = router({
  invoices: invoicesRouter,
  recurringInvoices: recurringInvoicesRouter,
  // Named as its public path, GET /audit-trail (the OpenAPI operation ids are the procedure paths).
  auditTrail: controlTrailRouter,
  reminders: remindersRouter,
  quotes: quotesRouter,
  assets: assetsRouter,
  settings: settingsRouter,
  expenses: expensesRouter,
  vouchers: vouchersRouter,
  webhooks: webhooksRouter,
  einvoices: einvoicesRouter,
  customers: customersRouter,
  products: productsRouter,
  suppliers: suppliersRouter,
  accounts: accountsRouter,
  transactions: transactionsRouter,
  dimensions: dimensionsRouter,
  budgets: budgetsRouter,
  exchangeRates: exchangeRatesRouter,
  bankAccounts: bankAccountsRouter,
  bankLines: bankLinesRouter,
  bankStatements: bankStatementsRouter,
  bankReconciliation: bankReconciliationRouter,
  reports: reportsRouter,
  vat: vatRouter,
  euSales: euSalesRouter,
  exports: exportsRouter,
  imports: importsRouter,
  sandbox: sandboxRouter,
  internal: internalRouter,
  oauth: oauthRouter,
  support: supportRouter,
});

export type AppRouter = typeof appRouter;
export const createAppCaller = createCallerFactory(appRouter);
