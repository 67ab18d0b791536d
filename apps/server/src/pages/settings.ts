// The signed-in owner's settings: API keys (create, shown once; revoke), connected apps (revoke) and the
// company, the seller its invoices print (CVR included). Everything goes through the same procedures as
// the CLI, as the owner: a company they do not own is "not found" there, whatever the form says.
import type { Request, Response } from 'express';
import { createCaller, toProblem, type Caller } from '@tlr/api';
import { EMAIL_KINDS, readDateOrDateTime, SCOPE_WORDS, SCOPES, type ApiKeyView, type EmailKind, type EmailTemplateView, type Scope } from '@tlr/domain';
import { errorPage, html, layout, when, type Html, field, fieldList, fieldsOf, problemText, sendPage, sessionOf, type Fields, type PagesDeps } from '@tlr/web';
import { OWNER_SITE } from './site.ts';

const KEYS = '/settings/api-keys';
const APPS = '/settings/connected-apps';
const COMPANY = '/settings/company';
const TEMPLATES = '/settings/email-templates';

export interface Owner {
  caller: Caller;
  csrfToken: string;
  companies: { id: string; name: string }[];
  /** The company shown: the one asked for (the procedures refuse one not owned), else the first. */
  companyId: string | undefined;
}

/** The signed-in owner, or a redirect to the sign-in page that comes back here. */
export async function owner(deps: PagesDeps, req: Request, res: Response, companyParam: string): Promise<Owner | null> {
  const session = sessionOf(res);
  if (!session?.userId) {
    res.redirect(303, `/signin?return_to=${encodeURIComponent(req.originalUrl)}`);
    return null;
  }
  const caller = createCaller(deps.db, { type: 'owner', userId: session.userId }, { requestId: res.locals.requestId });
  const companies = await caller.oauth.myCompanies({});
  return { caller, csrfToken: session.csrfToken, companies, companyId: companyParam || companies[0]?.id };
}

/** The company select (a GET form), with `extra` fields of the page's own (the reconciliation's date). */
export function companyPicker(path: string, o: Owner, extra: Html | '' = ''): Html {
  return html`<form method="get" action="${path}" class="inline">
    <div>
      <label for="company">Company</label>
      <select id="company" name="company">
        ${o.companies.map((c) => html`<option value="${c.id}" ${c.id === o.companyId ? html`selected` : ''}>${c.name}</option>`)}
      </select>
    </div>
    ${extra}
    <button type="submit" class="secondary">Show</button>
  </form>`;
}

export function settingsPage(res: Response, status: number, path: string, title: string, o: Owner, content: Html, picker = true) {
  const body = o.companyId
    ? html`<h1>${title}</h1>
        ${picker ? html`<section>${companyPicker(path, o)}</section>` : ''}${content}`
    : html`<h1>${title}</h1>
        <section><p>You own no company in tlr yet.</p></section>`;
  sendPage(res, status, layout(OWNER_SITE, title, body, { nav: { csrfToken: o.csrfToken, current: path } }));
}

const revokeButton = (action: string, o: Owner, id: string, label: string) =>
  html`<form method="post" action="${action}">
    <input type="hidden" name="csrf_token" value="${o.csrfToken}" />
    <input type="hidden" name="company" value="${o.companyId}" />
    <input type="hidden" name="id" value="${id}" />
    <button type="submit" class="danger" aria-label="Revoke ${label}">Revoke</button>
  </form>`;

// ---- API keys ----

function keyStatus(k: ApiKeyView): string {
  if (k.revoked_at) return 'Revoked';
  if (k.expires_at && Date.parse(k.expires_at) <= Date.now()) return 'Expired';
  return 'Active';
}

function keyTable(o: Owner, keys: ApiKeyView[]): Html {
  if (!keys.length) return html`<p class="muted">No API keys yet.</p>`;
  return html`<table>
    <thead>
      <tr>
        <th>Name</th>
        <th>Mode</th>
        <th>Key</th>
        <th>Scopes</th>
        <th>Last used</th>
        <th>Expires</th>
        <th>Status</th>
        <th></th>
      </tr>
    </thead>
    <tbody>
      ${keys.map(
        (k) =>
          html`<tr>
            <td>${k.name}</td>
            <td>${k.live_mode ? 'Live' : 'Test'}</td>
            <td><code>${k.key_prefix}…</code></td>
            <td>${k.scopes.join(', ')}</td>
            <td>${when(k.last_used_at)}</td>
            <td>${when(k.expires_at, 'no expiry')}</td>
            <td>${keyStatus(k)}</td>
            <td>${keyStatus(k) === 'Active' ? revokeButton(`${KEYS}/revoke`, o, k.id, k.name) : ''}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The create form; after a refusal it keeps what was typed, above the procedure's message. */
function createForm(o: Owner, draft: Fields, error?: string): Html {
  const chosen = new Set(fieldList(draft, 'scopes'));
  const mode = field(draft, 'mode') || 'live';
  return html`<section>
    <h2>Create an API key</h2>
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    <form method="post" action="${KEYS}">
      <input type="hidden" name="csrf_token" value="${o.csrfToken}" />
      <input type="hidden" name="company" value="${o.companyId}" />
      <label for="name">Name</label>
      <input type="text" id="name" name="name" maxlength="100" required value="${field(draft, 'name')}" />
      <fieldset>
        <legend>Scopes</legend>
        <div class="scopes">
          ${SCOPES.map(
            (s) =>
              html`<div>
                <input type="checkbox" id="scope-${s}" name="scopes" value="${s}" ${chosen.has(s) ? html`checked` : ''} /> <label for="scope-${s}">${s}</label>
              </div>`,
          )}
        </div>
      </fieldset>
      <fieldset>
        <legend>Mode</legend>
        <input type="radio" id="mode-live" name="mode" value="live" ${mode === 'live' ? html`checked` : ''} /> <label for="mode-live">Live</label>
        <input type="radio" id="mode-test" name="mode" value="test" ${mode === 'test' ? html`checked` : ''} /> <label for="mode-test">Test</label>
        <span class="muted">— a test key works on the company's sandbox, never on its real books.</span>
      </fieldset>
      <label for="expires">Expires</label>
      <input type="date" id="expires" name="expires" value="${field(draft, 'expires')}" />
      <button type="submit">Create key</button>
    </form>
  </section>`;
}

async function keysPage(res: Response, o: Owner, status = 200, draft: Fields = {}, error?: string) {
  const keys = o.companyId ? await o.caller.internal.listApiKeys({ companyId: o.companyId }) : [];
  settingsPage(
    res,
    status,
    KEYS,
    'API keys',
    o,
    html`<section>
        <h2>Keys</h2>
        ${keyTable(o, keys)}
      </section>
      ${createForm(o, draft, error)}`,
  );
}

/**
 * A date alone is the end of that day, UTC; anything else must be a full date and time. The day is
 * checked by calendar.ts first: JavaScript would read 2026-02-31 as 3 March.
 */
function expiry(text: string): Date | undefined | 'invalid' {
  if (!text) return undefined;
  const read = readDateOrDateTime(text);
  if ('problem' in read) return 'invalid';
  const d = new Date(read.date === text ? `${text}T23:59:59.999Z` : text);
  return Number.isNaN(d.getTime()) ? 'invalid' : d;
}

// ---- Connected apps ----

async function appsPage(res: Response, o: Owner) {
  const grants = o.companyId ? await o.caller.oauth.listGrants({ companyId: o.companyId }) : [];
  const table = grants.length
    ? html`<table>
        <thead>
          <tr>
            <th>Application</th>
            <th>May</th>
            <th>Connected</th>
            <th>Last used</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          ${grants.map(
            (g) =>
              html`<tr>
                <td>${g.client_name}</td>
                <td>
                  <ul class="scope-words">
                    ${g.scopes.map((s) => html`<li>${SCOPE_WORDS[s as Scope] ?? s}</li>`)}
                  </ul>
                </td>
                <td>${when(g.created_at)}</td>
                <td>${when(g.last_used_at)}</td>
                <td>${revokeButton(`${APPS}/revoke`, o, g.id, g.client_name)}</td>
              </tr>`,
          )}
        </tbody>
      </table>`
    : html`<p class="muted">No application is connected to this company.</p>`;
  settingsPage(
    res,
    200,
    APPS,
    'Connected apps',
    o,
    html`<section>
      <h2>Applications with access</h2>
      ${table}
    </section>`,
  );
}

// ---- Company ----

type Seller = Omit<Parameters<Caller['internal']['updateSeller']>[0], 'companyId'>;
/** Every field of the seller (PUT /settings/company's schema), in the form's order, with its label. */
const SELLER_LABELS: Record<keyof Seller, string> = {
  name: 'Name',
  cvr: 'CVR number',
  address_line1: 'Address',
  address_line2: 'Address, second line',
  postal_code: 'Postal code',
  city: 'City',
  country: 'Country',
  email: 'Invoice e-mail',
  phone: 'Phone',
  bank_reg_number: 'Bank registration number',
  bank_account_number: 'Bank account number',
  iban: 'IBAN',
  peppol_id: 'Peppol id',
  fi_creditor_number: 'FI creditor number',
  se_number: 'SE number (VAT filing)',
  eu_sales_frequency: 'EU sales list period',
};
const SELLER_FIELDS = Object.keys(SELLER_LABELS) as (keyof Seller)[];
const SELLER_HINTS: Partial<Record<keyof Seller, string>> = {
  cvr: '8 digits, checked by the CVR modulus 11 rule; empty for none',
  country: 'two letters, such as DK',
  iban: 'checked by its check digits',
  peppol_id: 'scheme:id, such as 0184:12345674; left empty, e-invoices use 0184 and the CVR',
  fi_creditor_number: 'kreditornummer for FI card +71: 8 digits, the first 8; invoices approved while it is set get a payment id',
  eu_sales_frequency: 'quarterly or monthly: how often the company reports EU-salg uden moms',
  se_number:
    'the SE-nr. tlr files the VAT return under (empty: the CVR). Once, before the first filing: on skat.dk (TastSelv Erhverv, Profil, Rettigheder) delegate "Nemvirksomhed-adgang for systemudbyderne" to the provider of this tlr',
};

/** The e-mail texts' fields, as their forms name them. */
const OTHER_LABELS: Record<string, string> = { subject: 'Subject', body: 'Text' };

interface Refusal {
  text: string;
  fields: Set<string>;
}

/** A refusal of the procedure as the form shows it: each field by its label, with the rule it broke. */
function refusal(e: unknown): Refusal {
  const p = toProblem(e);
  // A single refusal's detail starts with its field ("name: must not ..."), which the label replaces.
  const errors = p.errors ?? (p.field ? [{ field: p.field, message: p.detail.replace(`${p.field}: `, '') }] : []);
  const label = (f: string) => SELLER_LABELS[f as keyof Seller] ?? OTHER_LABELS[f] ?? f;
  return {
    text: errors.length ? errors.map((x) => `${label(x.field)}: ${x.message}`).join('; ') : p.detail,
    fields: new Set(errors.map((x) => x.field)),
  };
}

async function companyPage(res: Response, o: Owner, status = 200, draft?: Fields, refused?: Refusal, saved = false) {
  const values: Record<string, unknown> = draft ?? (o.companyId ? await o.caller.internal.companySettings({ companyId: o.companyId }) : {});
  const input = (f: keyof Seller) => {
    const bad = refused?.fields.has(f);
    return html`<label for="${f}">${SELLER_LABELS[f]}${SELLER_HINTS[f] ? html` <span class="muted">(${SELLER_HINTS[f]})</span>` : ''}</label>
      <input type="text" id="${f}" name="${f}" value="${String(values[f] ?? '')}" ${bad ? html`aria-invalid="true" aria-describedby="refusal"` : ''} />`;
  };
  settingsPage(
    res,
    status,
    COMPANY,
    'Company',
    o,
    html`<section>
      <h2>The seller on your invoices</h2>
      <p class="muted">Every invoice PDF prints these; the CVR number also identifies the company in its SAF-T exports. The company's sandbox gets the same.</p>
      ${saved ? html`<p role="status"><span class="badge ok">Saved</span></p>` : ''}
      ${refused ? html`<p class="error" role="alert" id="refusal">${refused.text}</p>` : ''}
      <form method="post" action="${COMPANY}">
        <input type="hidden" name="csrf_token" value="${o.csrfToken}" />
        <input type="hidden" name="company" value="${o.companyId}" />
        ${SELLER_FIELDS.map(input)}
        <button type="submit">Save</button>
      </form>
    </section>`,
  );
}

// ---- E-mail texts ----

const KIND_NAMES: Record<EmailKind, string> = {
  invoice: 'Invoice',
  credit_note: 'Credit note',
  reminder: 'Reminder',
  quote: 'Quote',
  statement: 'Customer statement',
};

/** One form per kind of document: its subject and body, the placeholders it fills in, back to the built-in text. */
async function templatesPage(res: Response, o: Owner, status = 200, draft?: { kind: string; fields: Fields; refused: Refusal }, saved = '') {
  const templates: EmailTemplateView[] = o.companyId ? await o.caller.internal.emailTemplates({ companyId: o.companyId }) : [];
  const form = (t: EmailTemplateView) => {
    const mine = draft?.kind === t.kind ? draft : undefined;
    const value = (f: 'subject' | 'body') => (mine ? field(mine.fields, f) : t[f]);
    const bad = (f: string) => (mine?.refused.fields.has(f) ? html`aria-invalid="true" aria-describedby="refusal-${t.kind}"` : '');
    return html`<section aria-labelledby="kind-${t.kind}">
      <h2 id="kind-${t.kind}">${KIND_NAMES[t.kind]} ${t.default ? html`<span class="muted">(built-in text)</span>` : ''}</h2>
      ${saved === t.kind ? html`<p role="status"><span class="badge ok">Saved</span></p>` : ''}
      ${mine ? html`<p class="error" role="alert" id="refusal-${t.kind}">${mine.refused.text}</p>` : ''}
      <p class="muted">Placeholders: ${t.placeholders.map((p) => `{{${p}}}`).join(', ')}</p>
      <form method="post" action="${TEMPLATES}">
        <input type="hidden" name="csrf_token" value="${o.csrfToken}" />
        <input type="hidden" name="company" value="${o.companyId}" />
        <input type="hidden" name="kind" value="${t.kind}" />
        <label for="${t.kind}-subject">Subject</label>
        <input type="text" id="${t.kind}-subject" name="subject" maxlength="200" value="${value('subject')}" ${bad('subject')} />
        <label for="${t.kind}-body">Text</label>
        <textarea id="${t.kind}-body" name="body" rows="8" ${bad('body')}>${value('body')}</textarea>
        <button type="submit" name="action" value="save" aria-label="Save the ${KIND_NAMES[t.kind].toLowerCase()} text">Save</button>
        ${t.default ? '' : html`<button type="submit" name="action" value="default" class="secondary" aria-label="Use the built-in ${KIND_NAMES[t.kind].toLowerCase()} text">Use the built-in text</button>`}
      </form>
    </section>`;
  };
  settingsPage(
    res,
    status,
    TEMPLATES,
    'E-mail texts',
    o,
    html`<section>
        <p class="muted">
          The subject and text of the e-mails tlr sends with your documents attached (POST /invoices/{id}/send with channel email, and the like). Each
          {{placeholder}} is filled in from the document; replies go to the company's invoice e-mail.
        </p>
      </section>
      ${templates.map(form)}`,
  );
}

// ---- Routes ----

export function settingsRoutes(deps: PagesDeps) {
  const get = (render: (res: Response, o: Owner) => Promise<void>) => async (req: Request, res: Response) => {
    const o = await owner(deps, req, res, field(fieldsOf(req.query), 'company'));
    if (o) await render(res, o);
  };
  /** A revoke button: the procedure, then back to the list (303: a reload does not post again). */
  const revoke = (path: string, run: (caller: Caller, companyId: string, id: string) => Promise<unknown>) => async (req: Request, res: Response) => {
    const o = await owner(deps, req, res, field(fieldsOf(req.body), 'company'));
    if (!o?.companyId) return o && errorPage(res, deps.site, 400, 'Nothing to revoke', 'You own no company.');
    await run(o.caller, o.companyId, field(fieldsOf(req.body), 'id'));
    res.redirect(303, `${path}?company=${encodeURIComponent(o.companyId)}`);
  };

  return {
    keys: get((res, o) => keysPage(res, o)),
    apps: get(appsPage),
    revokeKey: revoke(KEYS, (caller, companyId, id) => caller.internal.revokeApiKey({ id, companyId })),
    revokeApp: revoke(APPS, (caller, companyId, id) => caller.oauth.revokeGrant({ id, companyId })),
    company: get((res, o) => companyPage(res, o, 200, undefined, undefined, field(fieldsOf(res.req.query), 'saved') === '1')),

    /** The seller form: the procedure's rules; a refusal keeps what was typed, naming each field and its rule. */
    async saveCompany(req: Request, res: Response) {
      const body = fieldsOf(req.body);
      const o = await owner(deps, req, res, field(body, 'company'));
      if (!o) return;
      if (!o.companyId) return errorPage(res, deps.site, 400, 'No company', 'You own no company.');
      // Only the fields sent: one left out keeps its value, as in PUT /settings/company.
      const seller = Object.fromEntries(SELLER_FIELDS.filter((f) => typeof body[f] === 'string').map((f) => [f, field(body, f)]));
      try {
        await o.caller.internal.updateSeller({ companyId: o.companyId, ...seller });
      } catch (e) {
        // A company not owned (404) is the site's error page; a refused field is this form again.
        if (toProblem(e).status !== 400) throw e;
        return companyPage(res, o, 400, body, refusal(e));
      }
      res.redirect(303, `${COMPANY}?company=${encodeURIComponent(o.companyId)}&saved=1`);
    },

    emailTemplates: get((res, o) => templatesPage(res, o, 200, undefined, field(fieldsOf(res.req.query), 'saved'))),

    /** One kind's text, with the rules of PUT /settings/email-templates/{kind}; a refusal keeps what was typed. */
    async saveEmailTemplate(req: Request, res: Response) {
      const body = fieldsOf(req.body);
      const o = await owner(deps, req, res, field(body, 'company'));
      if (!o) return;
      if (!o.companyId) return errorPage(res, deps.site, 400, 'No company', 'You own no company.');
      const kind = field(body, 'kind') as EmailKind;
      if (!EMAIL_KINDS.includes(kind)) return errorPage(res, deps.site, 400, 'No such e-mail', 'The form names no kind of e-mail.');
      const text =
        field(body, 'action') === 'default'
          ? { default: true as const }
          : { subject: field(body, 'subject'), body: field(body, 'body').replace(/\r\n?/g, '\n') };
      try {
        await o.caller.internal.updateEmailTemplate({ companyId: o.companyId, kind, ...text });
      } catch (e) {
        if (toProblem(e).status !== 400) throw e;
        return templatesPage(res, o, 400, { kind, fields: body, refused: refusal(e) });
      }
      res.redirect(303, `${TEMPLATES}?company=${encodeURIComponent(o.companyId)}&saved=${kind}#kind-${kind}`);
    },

    async createKey(req: Request, res: Response) {
      const body = fieldsOf(req.body);
      const o = await owner(deps, req, res, field(body, 'company'));
      if (!o) return;
      if (!o.companyId) return errorPage(res, deps.site, 400, 'No company', 'You own no company.');
      const expiresAt = expiry(field(body, 'expires'));
      if (expiresAt === 'invalid') return keysPage(res, o, 400, body, 'Expires is not a date (YYYY-MM-DD) or a date and time.');
      let created;
      try {
        created = await o.caller.internal.createApiKey({
          companyId: o.companyId,
          name: field(body, 'name'),
          // The procedure's schema checks both: an unknown scope or mode is refused there, with its message.
          scopes: fieldList(body, 'scopes') as Scope[],
          mode: field(body, 'mode') as 'live' | 'test',
          ...(expiresAt ? { expiresAt } : {}),
        });
      } catch (e) {
        if (toProblem(e).status >= 500) throw e;
        return keysPage(res, o, 400, body, problemText(e));
      }
      const back = `${KEYS}?company=${encodeURIComponent(o.companyId)}`;
      const content = html`<section>
        <h2>Your new ${created.live_mode ? 'live' : 'test'} key “${created.name}”</h2>
        <p class="warning" role="alert"><strong>Copy this key now. It will not be shown again</strong>: tlr keeps only a digest of it.</p>
        <label for="new-key">API key</label>
        <code class="key" id="new-key">${created.key}</code>
        <p>Scopes: ${created.scopes.join(', ')}. Expires: ${when(created.expires_at, 'never')}.</p>
        <p><a href="${back}">Back to API keys</a></p>
      </section>`;
      // A page and not a redirect: the key exists in this response only (Cache-Control: no-store).
      settingsPage(res, 200, KEYS, 'API key created', o, content, false);
    },
  };
}
