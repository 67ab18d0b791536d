// Browser sessions and the protections every page shares (the owner pages and the admin app): the
// session cookie of the site's realm, the CSRF token of every form, the Origin check of every POST, and
// the response headers (a strict Content-Security-Policy, no framing, no caching, no referrer).
import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { toProblem } from '@tlr/api';
import type { Database } from '@tlr/db';
import { createWebSession, deleteWebSession, findWebSession, type WebSession } from '@tlr/domain';
import { html, layout, type Html, type Site } from './html.ts';

export interface PagesDeps {
  db: Database;
  site: Site;
  /** PUBLIC_BASE_URL: an https one makes the cookie Secure even behind a proxy that does not say so. */
  publicBaseUrl?: string | undefined;
}

/** The parsed form fields (express.urlencoded, extended: false): a string, or an array when repeated. */
export type Fields = Record<string, string | string[] | undefined>;

/** A request's query or form body with anything but strings and string arrays dropped. */
export function fieldsOf(source: unknown): Fields {
  const out: Fields = {};
  if (source && typeof source === 'object') {
    for (const [k, v] of Object.entries(source)) {
      if (typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'string'))) out[k] = v;
    }
  }
  return out;
}

/** One field as text; '' when absent or repeated. */
export const field = (f: Fields, name: string): string => {
  const v = f[name];
  return typeof v === 'string' ? v : '';
};

/** A field that may repeat (checkboxes). */
export const fieldList = (f: Fields, name: string): string[] => {
  const v = f[name];
  return v === undefined ? [] : typeof v === 'string' ? [v] : v;
};

/** The value of the request's cookie `name`. */
export function cookieValue(req: Request, name: string): string | undefined {
  for (const part of (req.get('Cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export const sessionOf = (res: Response): WebSession | null => (res.locals.webSession as WebSession | undefined) ?? null;

/** Secure outside development: over https, or when the service's public address is https. */
const secure = (req: Request, deps: PagesDeps) => req.secure || (deps.publicBaseUrl?.startsWith('https:') ?? false);

/**
 * Sets cookie `name` of the site (replacing an earlier Set-Cookie of the same name in this answer): no
 * `maxAge` ends it with the browser, 0 clears it.
 */
export function setCookie(req: Request, res: Response, deps: PagesDeps, name: string, value: string, maxAge?: number) {
  const attrs = [
    `Path=${deps.site.base || '/'}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(secure(req, deps) ? ['Secure'] : []),
    ...(maxAge === undefined ? [] : [`Max-Age=${maxAge}`]),
  ];
  const set = res.getHeader('Set-Cookie');
  const others = (Array.isArray(set) ? set : typeof set === 'string' ? [set] : []).filter((c) => !c.startsWith(`${name}=`));
  res.setHeader('Set-Cookie', [...others, `${name}=${value}; ${attrs.join('; ')}`]);
}

/** A new session for the browser (anonymous for a form, or signed in), replacing the cookie. */
export async function startSession(req: Request, res: Response, deps: PagesDeps, userId: string | null): Promise<WebSession> {
  const session = await createWebSession(deps.db.prisma, userId, deps.site.realm);
  res.locals.webSession = session;
  setCookie(req, res, deps, deps.site.cookie, session.token);
  return session;
}

/** The session a form page needs (its CSRF token): the browser's, or a new anonymous one. */
export const ensureSession = async (req: Request, res: Response, deps: PagesDeps): Promise<WebSession> => sessionOf(res) ?? startSession(req, res, deps, null);

export async function endSession(req: Request, res: Response, deps: PagesDeps): Promise<void> {
  const session = sessionOf(res);
  if (session) await deleteWebSession(deps.db.prisma, session.token);
  res.locals.webSession = undefined;
  setCookie(req, res, deps, deps.site.cookie, '', 0);
}

/**
 * The page headers. `formTargets`: origins beyond 'self' that a form may lead to; Chromium applies
 * form-action to the redirect that answers a POST, so the consent form names the client's origin.
 */
export function securityHeaders(res: Response, formTargets: string[] = []): void {
  res.setHeader(
    'Content-Security-Policy',
    [
      "default-src 'none'",
      "style-src 'self'",
      "img-src 'self' data:",
      "form-action 'self'" + formTargets.map((o) => ` ${o}`).join(''),
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
  );
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cache-Control', 'no-store');
  // Not no-referrer: under it a browser sends `Origin: null` with the pages' own form POSTs (Fetch
  // standard), and the Origin check would have to let `null`, which any sandboxed page can send, through.
  // same-origin sends no referrer to any other site either (the partner's callback gets none).
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // The API's CORS header has no business on pages that act on the signed-in owner's behalf.
  res.removeHeader('Access-Control-Allow-Origin');
  res.removeHeader('Access-Control-Expose-Headers');
}

export function sendPage(res: Response, status: number, page: Html): void {
  res.status(status).type('html').send(page.text);
}

export function errorPage(res: Response, site: Site, status: number, title: string, message: string): void {
  sendPage(
    res,
    status,
    layout(
      site,
      title,
      html`<section>
        <h1>${title}</h1>
        <p class="error" role="alert">${message}</p>
      </section>`,
      { narrow: true },
    ),
  );
}

/** A procedure's refusal as the page says it: its detail, and the field at fault. */
export function problemText(e: unknown): string {
  const p = toProblem(e);
  return p.field ? `${p.detail} (field: ${p.field})` : p.detail;
}

const sameBytes = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** Every request of the pages: headers, and the session of the cookie (if it is still valid). */
export function pagesMiddleware(deps: PagesDeps) {
  return async (req: Request, res: Response, next: NextFunction) => {
    securityHeaders(res);
    res.locals.webSession = await findWebSession(deps.db.prisma, cookieValue(req, deps.site.cookie), deps.site.realm);
    if (req.method !== 'POST') return next();
    // Defence in depth behind the token: a browser names the page a form was posted from.
    const origin = req.get('Origin');
    const own = [`${req.protocol}://${req.get('host')}`, ...(deps.publicBaseUrl ? [new URL(deps.publicBaseUrl).origin] : [])];
    const session = sessionOf(res);
    const token = field(fieldsOf(req.body), 'csrf_token');
    if ((origin !== undefined && !own.includes(origin)) || !session || !token || !sameBytes(session.csrfToken, token)) {
      return errorPage(res, deps.site, 403, 'The form has expired', 'This form has expired or did not come from this site. Reload the page and try again.');
    }
    next();
  };
}
