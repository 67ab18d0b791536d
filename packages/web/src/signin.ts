// Sign-in and sign-out of a site (the owner pages with the owners' realm, the admin app with the staff
// realm; signIn keeps the two apart and throttles both by account and address, decision 174). A sign-in
// replaces the form's anonymous session with a new signed-in one (a session id fixed before sign-in is
// worth nothing after it), renews the browser's device cookie, and goes back only to a page of ours.
import type { Request, Response } from 'express';
import { inTransaction } from '@tlr/db';
import { DEVICE_COOKIE_SECONDS, signIn, waitWords } from '@tlr/domain';
import { html, layout, type Html, type Site } from './html.ts';
import { cookieValue, endSession, ensureSession, field, fieldsOf, sendPage, sessionOf, setCookie, startSession, type PagesDeps } from './session.ts';

/**
 * Only the site's own pages (paths under one of `prefixes`): a relative path, never `//host` or a
 * scheme, and printable ASCII only.
 */
function safeReturnTo(value: unknown, prefixes: readonly string[]): string | null {
  if (typeof value !== 'string' || !/^[\x21-\x7e]+$/.test(value) || value.includes('\\')) return null;
  return prefixes.some((p) => value.startsWith(p)) ? value : null;
}

export interface SignInForm {
  csrfToken: string;
  returnTo: string | null;
  email?: string;
  error?: string;
  /** What the page says above the form (the authorization page names the application). */
  intro?: Html | string;
}

export function signInPage(site: Site, form: SignInForm): Html {
  return layout(
    site,
    'Sign in',
    html`<section>
      <h1>Sign in</h1>
      ${form.intro ? html`<p>${form.intro}</p>` : ''} ${form.error ? html`<p class="error" role="alert">${form.error}</p>` : ''}
      <form method="post" action="${site.base}/signin">
        <input type="hidden" name="csrf_token" value="${form.csrfToken}" />
        ${form.returnTo ? html`<input type="hidden" name="return_to" value="${form.returnTo}" />` : ''}
        <label for="email">Email</label>
        <input type="email" id="email" name="email" autocomplete="username" required value="${form.email ?? ''}" />
        <label for="password">Password</label>
        <input type="password" id="password" name="password" autocomplete="current-password" required />
        <button type="submit">Sign in</button>
      </form>
    </section>`,
    { narrow: true },
  );
}

/** `returnPrefixes`: where a sign-in may lead back to (safeReturnTo). */
export function signInRoutes(deps: PagesDeps, returnPrefixes: readonly string[]) {
  const { site } = deps;
  return {
    async show(req: Request, res: Response) {
      const session = await ensureSession(req, res, deps);
      const returnTo = safeReturnTo(req.query.return_to, returnPrefixes);
      if (session.userId) return res.redirect(303, returnTo ?? site.home);
      sendPage(res, 200, signInPage(site, { csrfToken: session.csrfToken, returnTo }));
    },

    async submit(req: Request, res: Response) {
      const body = fieldsOf(req.body);
      const returnTo = safeReturnTo(body.return_to, returnPrefixes);
      const email = field(body, 'email');
      const again = (status: number, error: string) =>
        sendPage(res, status, signInPage(site, { csrfToken: sessionOf(res)!.csrfToken, returnTo, email, error }));
      if (!email || !field(body, 'password')) return again(400, 'Enter your e-mail and password.');
      const { db } = deps;
      const result = await signIn(db.prisma, inTransaction(db), {
        email,
        password: field(body, 'password'),
        ip: req.ip ?? '',
        realm: site.realm,
        device: cookieValue(req, site.deviceCookie),
      });
      if (!result.ok) {
        if (result.reason === 'invalid') return again(401, 'The e-mail or password is not right.');
        res.setHeader('Retry-After', String(result.retryAfter));
        return again(429, `Too many sign-in attempts. Try again in ${waitWords(result.retryAfter)}.`);
      }
      await endSession(req, res, deps);
      await startSession(req, res, deps, result.userId);
      setCookie(req, res, deps, site.deviceCookie, result.device, DEVICE_COOKIE_SECONDS);
      res.redirect(303, returnTo ?? site.home);
    },

    async signOut(req: Request, res: Response) {
      await endSession(req, res, deps);
      res.redirect(303, `${site.base}/signin`);
    },
  };
}
