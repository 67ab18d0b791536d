// The admin app for support staff (docs/admin.md), mounted at /admin by the server: server-rendered
// pages (@tlr/web, the owner pages' machinery with the staff realm) over the tRPC procedures, called in
// process as the signed-in staff member. The procedures decide what each role may do and record every
// call among the append-only staff actions; these pages only show and ask.
import type { Request, Response } from 'express';
import { errorPage, signInRoutes, siteRouter, type Site, type SiteDeps } from '@tlr/web';
import { companyRoutes } from './companies.ts';
import { serviceRoutes } from './service.ts';
import type { AdminDeps } from './staff.ts';

export const ADMIN_BASE = '/admin';

const ADMIN_SITE: Site = {
  realm: 'staff',
  // Its own cookies, sent only under /admin: an owner's session is never a staff session, and the reverse.
  cookie: 'tlr_admin_session',
  deviceCookie: 'tlr_admin_device',
  base: ADMIN_BASE,
  brand: 'tlr admin',
  home: `${ADMIN_BASE}/companies`,
  links: [
    [`${ADMIN_BASE}/companies`, 'Companies'],
    [`${ADMIN_BASE}/requests`, 'Requests'],
    [`${ADMIN_BASE}/dead-letters`, 'Dead letters'],
    [`${ADMIN_BASE}/health`, 'Health'],
    [`${ADMIN_BASE}/oauth-clients`, 'OAuth clients'],
    [`${ADMIN_BASE}/audit`, 'Staff actions'],
  ],
};

/** The router to mount at ADMIN_BASE. */
export function adminPages(deps: Omit<AdminDeps, 'site'> & Pick<SiteDeps, 'logger'>) {
  const d = { ...deps, site: ADMIN_SITE };
  // Paths relative to the mount; every page of the app gets the session, CSRF and header machinery.
  return siteRouter(d, '/', (router) => {
    const signIn = signInRoutes(d, [`${ADMIN_BASE}/`]);
    const companies = companyRoutes(d);
    const service = serviceRoutes(d);
    router.get('/', (_req: Request, res: Response) => res.redirect(303, ADMIN_SITE.home));
    router.get('/signin', signIn.show);
    router.post('/signin', signIn.submit);
    router.post('/signout', signIn.signOut);
    router.get('/companies', companies.search);
    router.get('/companies/:id', companies.overview);
    router.post('/companies/:id/keys/revoke', companies.revokeKey);
    router.post('/companies/:id/grants/revoke', companies.revokeGrant);
    router.post('/companies/:id/sandbox/reset', companies.resetSandbox);
    router.get('/companies/:id/sandbox/resets/:resetId', companies.resetProgress);
    router.get('/companies/:id/webhooks/:subId', companies.deliveries);
    router.post('/companies/:id/webhooks/:subId/replay', companies.replay);
    router.get('/requests', service.requests);
    router.get('/dead-letters', service.deadLetters);
    router.get('/health', service.health);
    router.get('/oauth-clients', service.oauthClients);
    router.post('/oauth-clients/revoke', service.revokeClient);
    router.get('/audit', service.staffActions);
    router.use((_req: Request, res: Response) => errorPage(res, ADMIN_SITE, 404, 'No such page', 'The admin app has no page at this address.'));
  });
}
