// The owner pages (docs/owner-pages.md): sign-in, the OAuth authorization page, API keys, connected apps
// the company (the seller its invoices print), the bank reconciliation and the recurring invoices. Server-rendered HTML (@tlr/web) over the same tRPC
// procedures as the CLI, called in process as the owner.
import type { Logger } from 'pino';
import { signInRoutes, siteRouter, type PagesDeps } from '@tlr/web';
import { OWNER_SITE } from './site.ts';
import { authorizeRoutes } from './authorize.ts';
import { settingsRoutes } from './settings.ts';
import { bankReconciliationRoutes, RECONCILIATION } from './bank-reconciliation.ts';
import { RECURRING, recurringInvoiceRoutes } from './recurring-invoices.ts';

export function ownerPages(deps: Omit<PagesDeps, 'site'> & { logger: Logger }) {
  const d = { ...deps, site: OWNER_SITE };
  return siteRouter(d, ['/signin', '/signout', '/oauth/authorize', '/settings'], (router) => {
    const signIn = signInRoutes(d, ['/settings/', '/oauth/authorize?']);
    const authorize = authorizeRoutes(d);
    const settings = settingsRoutes(d);
    router.get('/signin', signIn.show);
    router.post('/signin', signIn.submit);
    router.post('/signout', signIn.signOut);
    router.get('/oauth/authorize', authorize.show);
    router.post('/oauth/authorize', authorize.decide);
    router.get('/settings/api-keys', settings.keys);
    router.post('/settings/api-keys', settings.createKey);
    router.post('/settings/api-keys/revoke', settings.revokeKey);
    router.get('/settings/connected-apps', settings.apps);
    router.post('/settings/connected-apps/revoke', settings.revokeApp);
    router.get('/settings/company', settings.company);
    router.post('/settings/company', settings.saveCompany);
    router.get('/settings/email-templates', settings.emailTemplates);
    router.post('/settings/email-templates', settings.saveEmailTemplate);
    router.get(RECONCILIATION, bankReconciliationRoutes(d).show);
    const recurring = recurringInvoiceRoutes(d);
    router.get(RECURRING, recurring.list);
    router.post(`${RECURRING}/pause`, recurring.pause);
    router.post(`${RECURRING}/resume`, recurring.resume);
    router.get(`${RECURRING}/:id`, recurring.detail);
  });
}
