// A company as support sees it: search (name, CVR, owner e-mail, company id, API key prefix), the
// overview (settings, sandbox, keys, connected apps, webhooks), the sandbox reset with its progress,
// a subscription's deliveries with replay, and the admin's revocations. Every read and change is a
// procedure call as the signed-in staff member.
import type { Request, Response } from 'express';
import type { ApiKeyView, DeliveryView, OAuthGrantView, SandboxResetView } from '@tlr/domain';
import { field, fieldsOf, html, when, type Html } from '@tlr/web';
import { badge, postButton, staffOf, staffPage, table, type AdminDeps, type Staff } from './staff.ts';

type Overview = Awaited<ReturnType<Staff['caller']['support']['company']>>;

const resetTone = (s: SandboxResetView['status']) => (s === 'done' ? 'ok' : s === 'failed' ? 'bad' : 'wait');
const deliveryTone = (s: DeliveryView['status']) => (s === 'succeeded' ? 'ok' : s === 'dead_letter' ? 'bad' : 'wait');

function keyState(k: ApiKeyView): Html {
  if (k.revoked_at) return badge('Revoked', 'bad');
  if (k.expires_at && Date.parse(k.expires_at) <= Date.now()) return badge('Expired', 'bad');
  return badge('Active', 'ok');
}

export function companyRoutes(deps: AdminDeps) {
  const base = deps.site.base;
  const companyPath = (id: string) => `${base}/companies/${encodeURIComponent(id)}`;

  function keysTable(s: Staff, o: Overview): Html {
    return table(o.api_keys, 'No API keys.', ['Name', 'Mode', 'Key', 'Scopes', 'Last used', 'Status', ''], (k) => {
      const revocable = s.isAdmin && !k.revoked_at;
      return html`<tr>
        <td>${k.name}</td>
        <td>${k.live_mode ? 'Live' : 'Test'}</td>
        <td><code>${k.key_prefix}…</code></td>
        <td>${k.scopes.join(', ')}</td>
        <td>${when(k.last_used_at)}</td>
        <td>${keyState(k)}</td>
        <td>
          ${revocable ? postButton(s, `${companyPath(o.company.id)}/keys/revoke`, { id: k.id }, 'Revoke', { danger: true, ariaLabel: `Revoke key ${k.key_prefix}` }) : ''}
        </td>
      </tr>`;
    });
  }

  function grantsTable(s: Staff, o: Overview): Html {
    return table(o.oauth_grants, 'No connected apps.', ['Application', 'Scopes', 'Connected', 'Last used', 'Status', ''], (g: OAuthGrantView) => {
      const revocable = s.isAdmin && !g.revoked_at;
      return html`<tr>
        <td>${g.client_name} <code class="muted">${g.client_id}</code></td>
        <td>${g.scopes.join(', ')}</td>
        <td>${when(g.created_at)}</td>
        <td>${when(g.last_used_at)}</td>
        <td>${g.revoked_at ? badge('Revoked', 'bad') : badge('Active', 'ok')}</td>
        <td>
          ${revocable ? postButton(s, `${companyPath(o.company.id)}/grants/revoke`, { id: g.id }, 'Revoke', { danger: true, ariaLabel: `Revoke grant of ${g.client_name}` }) : ''}
        </td>
      </tr>`;
    });
  }

  const resetsTable = (o: Overview): Html =>
    table(o.sandbox_resets, 'No resets yet.', ['Requested', 'By', 'Status', 'Finished', ''], (r) => {
      return html`<tr>
        <td>${when(r.requested_at)}</td>
        <td>${r.requested_by}</td>
        <td>${badge(r.status, resetTone(r.status))}</td>
        <td>${when(r.finished_at, '—')}</td>
        <td><a href="${companyPath(o.company.id)}/sandbox/resets/${r.id}">Progress</a></td>
      </tr>`;
    });

  const webhooksTable = (o: Overview): Html =>
    table(o.webhooks, 'No webhook subscriptions.', ['URL', 'Mode', 'Events', 'Created', ''], (w) => {
      return html`<tr>
        <td><code>${w.url}</code></td>
        <td>${w.livemode ? 'Live' : 'Test'}</td>
        <td>${w.events.join(', ')}</td>
        <td>${when(w.created_at)}</td>
        <td><a href="${companyPath(o.company.id)}/webhooks/${w.id}">Deliveries</a></td>
      </tr>`;
    });

  /** After a change: back to the page it was made on (a GET, so a reload does not repeat it). */
  const back = (res: Response, path: string) => res.redirect(303, path);
  const id = (req: Request) => String(req.params.id);

  return {
    async search(req: Request, res: Response) {
      const s = await staffOf(deps, req, res);
      if (!s) return;
      const q = field(fieldsOf(req.query), 'q').trim();
      const companies = await s.caller.internal.listCompanies({ search: q.slice(0, 200) || undefined });
      staffPage(
        deps,
        res,
        s,
        `${base}/companies`,
        'Companies',
        html`<h1>Companies</h1>
          <section>
            <form method="get" action="${base}/companies" class="search" role="search">
              <input type="text" name="q" aria-label="Search" placeholder="Name, CVR, owner e-mail, company id or key prefix (tlr_live_ab12…)" value="${q}" />
              <button type="submit">Search</button>
            </form>
          </section>
          <section>
            ${table(companies, q ? `No company matches “${q}”.` : 'No companies yet.', ['Name', 'CVR', 'Owner', 'Created'], (c) => {
              return html`<tr>
                <td><a href="${companyPath(c.id)}">${c.name}</a></td>
                <td>${c.cvr ?? '—'}</td>
                <td>${c.owner_email}</td>
                <td>${when(c.created_at)}</td>
              </tr>`;
            })}
          </section>`,
      );
    },

    async overview(req: Request, res: Response) {
      const s = await staffOf(deps, req, res);
      if (!s) return;
      const o = await s.caller.support.company({ companyId: id(req) });
      const c = o.company;
      staffPage(
        deps,
        res,
        s,
        `${base}/companies`,
        c.name,
        html`<h1>${c.name}</h1>
          <section>
            <dl class="facts">
              <dt>Company id</dt>
              <dd><code>${c.id}</code></dd>
              <dt>CVR</dt>
              <dd>${c.cvr || '—'}</dd>
              <dt>Owner</dt>
              <dd>${c.owner_email}</dd>
              <dt>Created</dt>
              <dd>${when(c.created_at)}</dd>
              <dt>Currency</dt>
              <dd>${c.currency}</dd>
              <dt>VAT</dt>
              <dd>${c.vat_registered ? `registered, ${c.vat_period_frequency} returns` : 'not registered'}</dd>
              <dt>Fiscal year starts</dt>
              <dd>month ${c.fiscal_year_start_month}</dd>
              <dt>Lock date</dt>
              <dd>${c.lock_date ?? 'none'}</dd>
              <dt>Sandbox</dt>
              <dd>${o.sandbox_id ? html`<code>${o.sandbox_id}</code>` : 'none yet (made with the first test key)'}</dd>
              <dt>Trail</dt>
              <dd><a href="${base}/audit?company=${c.id}">Staff actions on this company</a></dd>
            </dl>
          </section>
          <section>
            <h2>Sandbox</h2>
            <p class="muted">
              A reset empties the sandbox's books, vouchers and counters; its API keys, webhook subscriptions and audit records stay. Reset only when the owner
              asked.
            </p>
            ${o.sandbox_id ? postButton(s, `${companyPath(c.id)}/sandbox/reset`, {}, 'Reset sandbox') : ''} ${resetsTable(o)}
          </section>
          <section>
            <h2>API keys</h2>
            ${keysTable(s, o)}
          </section>
          <section>
            <h2>Connected apps</h2>
            ${grantsTable(s, o)}
          </section>
          <section>
            <h2>Webhook subscriptions</h2>
            ${webhooksTable(o)}
          </section>`,
      );
    },

    async revokeKey(req: Request, res: Response) {
      const s = await staffOf(deps, req, res);
      if (!s) return;
      await s.caller.internal.revokeApiKey({ id: field(fieldsOf(req.body), 'id'), companyId: id(req) });
      back(res, companyPath(id(req)));
    },

    async revokeGrant(req: Request, res: Response) {
      const s = await staffOf(deps, req, res);
      if (!s) return;
      await s.caller.oauth.revokeGrant({ companyId: id(req), id: field(fieldsOf(req.body), 'id') });
      back(res, companyPath(id(req)));
    },

    /** Enqueues the reset job (or joins the open one) and shows its progress. */
    async resetSandbox(req: Request, res: Response) {
      const s = await staffOf(deps, req, res);
      if (!s) return;
      const { reset } = await s.caller.support.resetSandbox({ companyId: id(req) });
      back(res, `${companyPath(id(req))}/sandbox/resets/${reset.id}`);
    },

    async resetProgress(req: Request, res: Response) {
      const s = await staffOf(deps, req, res);
      if (!s) return;
      const r = await s.caller.support.sandboxReset({ companyId: id(req), id: String(req.params.resetId) });
      const open = r.status === 'pending' || r.status === 'running';
      staffPage(
        deps,
        res,
        s,
        `${base}/companies`,
        'Sandbox reset',
        html`<h1>Sandbox reset</h1>
          <section>
            <dl class="facts">
              <dt>Status</dt>
              <dd>${badge(r.status, resetTone(r.status))}</dd>
              <dt>Sandbox</dt>
              <dd><code>${r.company_id}</code></dd>
              <dt>Requested</dt>
              <dd>${when(r.requested_at)} by ${r.requested_by}</dd>
              <dt>Started</dt>
              <dd>${when(r.started_at, '—')}</dd>
              <dt>Finished</dt>
              <dd>${when(r.finished_at, '—')}</dd>
              <dt>Attempts</dt>
              <dd>${r.attempts}</dd>
              ${
                r.error
                  ? html`<dt>Error</dt>
                      <dd class="error">${r.error}</dd>`
                  : ''
              }
            </dl>
            ${open ? html`<p class="muted" role="status">The reset job is ${r.status}; this page refreshes every second.</p>` : ''}
            <p><a href="${companyPath(id(req))}">Back to the company</a></p>
          </section>`,
        { refresh: open ? 1 : undefined },
      );
    },

    async deliveries(req: Request, res: Response) {
      const s = await staffOf(deps, req, res);
      if (!s) return;
      const subscriptionId = String(req.params.subId);
      const rows = await s.caller.support.deliveries({ companyId: id(req), subscriptionId });
      const replay = `${companyPath(id(req))}/webhooks/${subscriptionId}/replay`;
      staffPage(
        deps,
        res,
        s,
        `${base}/companies`,
        'Webhook deliveries',
        html`<h1>Webhook deliveries</h1>
          <section>
            <p>Subscription <code>${subscriptionId}</code> · <a href="${companyPath(id(req))}">back to the company</a></p>
            ${table(rows, 'No deliveries yet.', ['Event', 'Status', 'Attempts', 'Last response', 'Last error', 'Last attempt', 'Next attempt', ''], (d) => {
              return html`<tr>
                <td>${d.event_type} <code class="muted">${d.event_id}</code></td>
                <td>${badge(d.status, deliveryTone(d.status))}</td>
                <td>${d.attempts}</td>
                <td>${d.last_response_status ?? '—'}</td>
                <td>${d.last_error || '—'}</td>
                <td>${when(d.last_attempt_at, '—')}</td>
                <td>${when(d.next_attempt_at, '—')}</td>
                <td>${postButton(s, replay, { delivery_id: d.id }, 'Replay', { ariaLabel: `Replay delivery ${d.id}` })}</td>
              </tr>`;
            })}
          </section>`,
      );
    },

    async replay(req: Request, res: Response) {
      const s = await staffOf(deps, req, res);
      if (!s) return;
      const subscriptionId = String(req.params.subId);
      await s.caller.support.replayDelivery({ companyId: id(req), subscriptionId, deliveryId: field(fieldsOf(req.body), 'delivery_id') });
      back(res, `${companyPath(id(req))}/webhooks/${subscriptionId}`);
    },
  };
}
