// The owner pages (docs/owner-pages.md): sign-in, the OAuth authorization page, API keys and connected
// apps. Server-rendered HTML over the same tRPC procedures as the CLI, called in process as the owner.
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { BUSY_RETRY_AFTER, toProblem } from '@tlr/api';
import { authorizeRoutes } from './authorize.ts';
import { STYLE_BODY, STYLE_PATH } from './html.ts';
import { errorPage, pagesMiddleware, problemText, securityHeaders, type PagesDeps } from './session.ts';
import { settingsRoutes } from './settings.ts';
import { signInRoutes } from './signin.ts';

/** Form bodies are small: 19 scope checkboxes and a name. */
const FORM_LIMIT = '16kb';

/** Where the pages live: only these get the form parser, the session and the page headers. */
const PATHS = ['/signin', '/signout', '/oauth/authorize', '/settings'];

export function ownerPages(deps: PagesDeps & { logger: Logger }) {
  const router = express.Router();
  router.get(STYLE_PATH, (_req, res) => {
    // The name carries the content's hash, so the file never changes under it.
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.type('css').send(STYLE_BODY);
  });
  router.use(PATHS, express.urlencoded({ extended: false, limit: FORM_LIMIT }), pagesMiddleware(deps));

  const signIn = signInRoutes(deps);
  const authorize = authorizeRoutes(deps);
  const settings = settingsRoutes(deps);
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

  // An HTML page for every failure, never the API's JSON: a refused input names what is wrong (400),
  // only our own faults are 5xx.
  router.use(PATHS, (err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    securityHeaders(res);
    const { type, status, message } = err as { type?: unknown; status?: unknown; message?: unknown };
    if (typeof type === 'string' && typeof status === 'number' && status < 500) {
      // body-parser's refusals (too large, too many fields, unsupported charset).
      if (type === 'entity.too.large') return errorPage(res, 413, 'The form is too large', `A form may carry at most ${FORM_LIMIT}.`);
      return errorPage(res, 400, 'The form could not be read', String(message));
    }
    const p = toProblem(err);
    if (p.status < 500) return errorPage(res, 400, 'That did not work', problemText(err));
    if (p.status === 503) res.setHeader('Retry-After', String(BUSY_RETRY_AFTER));
    else deps.logger.error({ err, request_id: res.locals.requestId }, 'owner page failed');
    errorPage(res, p.status, 'Something went wrong', p.detail);
  });
  return router;
}
