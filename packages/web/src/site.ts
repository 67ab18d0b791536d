// One site of pages as an Express router: the stylesheet, the form parser, sessions, CSRF and headers on
// the site's paths, its routes, and an HTML page for every failure (never the API's JSON).
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { BUSY_RETRY_AFTER, toProblem } from '@tlr/api';
import { STYLE_BODY, STYLE_PATH } from './html.ts';
import { errorPage, pagesMiddleware, problemText, securityHeaders, type PagesDeps } from './session.ts';

/** Form bodies are small: 19 scope checkboxes and a name. */
const FORM_LIMIT = '16kb';

export interface SiteDeps extends PagesDeps {
  logger: { error(obj: object, msg: string): void };
}

/**
 * `paths`: where the site's pages live (relative to the router's mount); only these get the form
 * parser, the session and the page headers. '/' for all of them: Express's router matches nothing with
 * an array that holds '/'. `routes` adds the pages.
 */
export function siteRouter(deps: SiteDeps, paths: string | string[], routes: (router: Router) => void): Router {
  const router = express.Router();
  router.get(STYLE_PATH, (_req, res) => {
    // The name carries the content's hash, so the file never changes under it.
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.type('css').send(STYLE_BODY);
  });
  router.use(paths, express.urlencoded({ extended: false, limit: FORM_LIMIT }), pagesMiddleware(deps));
  routes(router);

  // A refused input names what is wrong (400); only our own faults are 5xx.
  router.use(paths, (err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    securityHeaders(res);
    const { site } = deps;
    const { type, status, message } = err as { type?: unknown; status?: unknown; message?: unknown };
    if (typeof type === 'string' && typeof status === 'number' && status < 500) {
      // body-parser's refusals (too large, too many fields, unsupported charset).
      if (type === 'entity.too.large') return errorPage(res, site, 413, 'The form is too large', `A form may carry at most ${FORM_LIMIT}.`);
      return errorPage(res, site, 400, 'The form could not be read', String(message));
    }
    const p = toProblem(err);
    // A role or owner refusal says so (403); every other refusal is the form's fault (400).
    if (p.status === 403) return errorPage(res, site, 403, 'Not allowed', problemText(err));
    if (p.status < 500) return errorPage(res, site, 400, 'That did not work', problemText(err));
    if (p.status === 503) res.setHeader('Retry-After', String(BUSY_RETRY_AFTER));
    else deps.logger.error({ err, request_id: res.locals.requestId }, `${site.brand} page failed`);
    errorPage(res, site, p.status, 'Something went wrong', p.detail);
  });
  return router;
}
