// GET and POST /oauth/authorize (contract: OAuth 2.0, 4): the owner signs in, chooses the company and
// approves or denies. A bad client or redirect URI is a page and never a redirect (RFC 6749 4.1.2.1);
// every other fault goes back to the client. The POST checks the whole request again from the form: the
// hidden fields came back from the browser and prove nothing.
import type { Request, Response } from 'express';
import { createCaller } from '@tlr/api';
import { checkAuthorizationRequest, findActiveClient, redirectWith, SCOPE_WORDS, type AuthorizationRequest, type AuthorizeCheck } from '@tlr/domain';
import {
  errorPage,
  html,
  layout,
  signInPage,
  field,
  fieldsOf,
  securityHeaders,
  sendPage,
  sessionOf,
  ensureSession,
  type Fields,
  type PagesDeps,
} from '@tlr/web';
import { OWNER_SITE } from './site.ts';

/** The parameters the consent form carries back; others in the query mean nothing to us (RFC 6749 3.1). */
const PARAMS = ['response_type', 'client_id', 'redirect_uri', 'state', 'scope', 'code_challenge', 'code_challenge_method'] as const;

async function check(deps: PagesDeps, params: Fields): Promise<AuthorizeCheck> {
  const id = params.client_id;
  const client = typeof id === 'string' ? await findActiveClient(deps.db.prisma, id) : null;
  return checkAuthorizationRequest(params, () => client);
}

/** Answers a request that is not ok; returns the request when it is. */
function settle(res: Response, c: AuthorizeCheck): AuthorizationRequest | null {
  if (c.kind === 'page') {
    errorPage(res, OWNER_SITE, 400, 'This link cannot be used', c.message);
    return null;
  }
  if (c.kind === 'redirect') {
    res.redirect(303, redirectWith(c.redirectUri, { error: c.error, error_description: c.description, state: c.state }));
    return null;
  }
  return c.request;
}

export function authorizeRoutes(deps: PagesDeps) {
  return {
    async show(req: Request, res: Response) {
      const params = fieldsOf(req.query);
      const request = settle(res, await check(deps, params));
      if (!request) return;
      const session = await ensureSession(req, res, deps);
      if (!session.userId) {
        const intro = html`Sign in to tlr to connect <strong>${request.client.name}</strong> to your books.`;
        return sendPage(res, 200, signInPage(deps.site, { csrfToken: session.csrfToken, returnTo: req.originalUrl, intro }));
      }
      const companies = await createCaller(deps.db, { type: 'owner', userId: session.userId }, { requestId: res.locals.requestId }).oauth.myCompanies({});
      // Chromium applies form-action to where the POST's redirect leads: the client's own origin.
      securityHeaders(res, [new URL(request.redirectUri).origin]);
      const name = request.client.name;
      const body = html`<section>
        <h1>${name} wants to use your books</h1>
        <p>If you approve, ${name} may do the following for the company you choose, until you revoke it under Connected apps:</p>
        <ul class="scope-words">
          ${request.scopes.map((s) => html`<li>${SCOPE_WORDS[s]} <span class="muted">(<code>${s}</code>)</span></li>`)}
        </ul>
        <form method="post" action="/oauth/authorize">
          <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
          ${PARAMS.map((p) => html`<input type="hidden" name="${p}" value="${field(params, p)}" />`)}
          ${
            companies.length
              ? html`<label for="company">Company</label>
                  <select id="company" name="company">
                    ${companies.map((c) => html`<option value="${c.id}">${c.name}${c.cvr ? ` (CVR ${c.cvr})` : ''}</option>`)}
                  </select>`
              : html`<p class="warning">You own no company in tlr, so there is nothing to connect ${name} to.</p>`
          }
          <div class="actions">
            ${companies.length ? html`<button type="submit" name="decision" value="approve">Approve</button>` : ''}
            <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
          </div>
        </form>
      </section>`;
      sendPage(res, 200, layout(deps.site, `Connect ${name}`, body, { nav: { csrfToken: session.csrfToken } }));
    },

    async decide(req: Request, res: Response) {
      const userId = sessionOf(res)?.userId;
      if (!userId) return errorPage(res, deps.site, 403, 'Signed out', 'You are no longer signed in. Go back to the application and start again.');
      const body = fieldsOf(req.body);
      const request = settle(res, await check(deps, Object.fromEntries(PARAMS.map((p) => [p, body[p]]))));
      if (!request) return;
      const decision = field(body, 'decision');
      if (decision === 'deny') return res.redirect(303, redirectWith(request.redirectUri, { error: 'access_denied', state: request.state }));
      if (decision !== 'approve') return errorPage(res, deps.site, 400, 'No decision', 'Choose Approve or Deny.');
      const { code } = await createCaller(deps.db, { type: 'owner', userId }, { requestId: res.locals.requestId }).oauth.approve({
        companyId: field(body, 'company'),
        clientId: request.client.id,
        redirectUri: request.redirectUri,
        scopes: request.scopes,
        codeChallenge: request.codeChallenge,
      });
      res.redirect(303, redirectWith(request.redirectUri, { code, state: request.state }));
    },
  };
}
