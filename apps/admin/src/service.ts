// The service-wide pages: a request by the X-Request-ID an integrator quotes, dead letters, the health of
// the queues and the database, OAuth clients (revoked by an admin), and the staff actions.
import type { Request, Response } from 'express';
import { field, fieldsOf, html, when } from '@tlr/web';
import { badge, postButton, staffOf, staffPage, table, type AdminDeps } from './staff.ts';

export function serviceRoutes(deps: AdminDeps) {
  const base = deps.site.base;

  return {
    async requests(req: Request, res: Response) {
      const s = await staffOf(deps, req, res);
      if (!s) return;
      const id = field(fieldsOf(req.query), 'id').trim();
      const rows = id ? await s.caller.support.request({ requestId: id.slice(0, 200) }) : [];
      staffPage(
        deps,
        res,
        s,
        `${base}/requests`,
        'Requests',
        html`<h1>Look up a request</h1>
          <section>
            <form method="get" action="${base}/requests" class="search" role="search">
              <input type="text" name="id" aria-label="X-Request-ID" placeholder="The X-Request-ID the integrator quotes" value="${id}" />
              <button type="submit">Look up</button>
            </form>
          </section>
          ${
            id
              ? html`<section>
                  ${table(
                    rows,
                    `No request ${id} is recorded (requests are kept for the audit retention period).`,
                    ['Time', 'Method', 'Path', 'Status', 'Problem', 'Duration', 'Credential', 'Company'],
                    (r) => {
                      return html`<tr>
                        <td class="when">${when(r.created_at)}</td>
                        <td>${r.method}</td>
                        <td><code>${r.path}</code></td>
                        <td>${badge(String(r.status), r.status >= 500 ? 'bad' : r.status >= 400 ? 'wait' : 'ok')}</td>
                        <td>${r.problem_code ?? '—'}</td>
                        <td>${r.duration_ms} ms</td>
                        <td><code>${r.credential ?? '—'}</code></td>
                        <td>
                          ${
                            r.company_id
                              ? html`<a href="${base}/companies/${r.company_id}">${r.company_name ?? r.company_id}</a
                                  >${r.livemode === false ? ' (sandbox)' : ''}`
                              : '—'
                          }
                        </td>
                      </tr>`;
                    },
                  )}
                </section>`
              : ''
          }`,
      );
    },

    async deadLetters(req: Request, res: Response) {
      const s = await staffOf(deps, req, res);
      if (!s) return;
      const rows = await s.caller.support.deadLetters({});
      staffPage(
        deps,
        res,
        s,
        `${base}/dead-letters`,
        'Dead letters',
        html`<h1>Dead letters</h1>
          <section>
            <p class="muted">Deliveries that used up every attempt, across the service, newest first. Replay one from its subscription's page.</p>
            ${table(rows, 'No dead letters.', ['Last attempt', 'Event', 'URL', 'Attempts', 'Last response', 'Last error', ''], (d) => {
              return html`<tr>
                <td>${when(d.last_attempt_at, '—')}</td>
                <td>${d.event_type}</td>
                <td><code>${d.url}</code></td>
                <td>${d.attempts}</td>
                <td>${d.last_response_status ?? '—'}</td>
                <td>${d.last_error || '—'}</td>
                <td><a href="${base}/companies/${d.live_company_id}/webhooks/${d.subscription_id}">Deliveries</a></td>
              </tr>`;
            })}
          </section>`,
      );
    },

    async health(req: Request, res: Response) {
      const s = await staffOf(deps, req, res);
      if (!s) return;
      const h = await s.caller.support.health({});
      const setup = await deps.backups?.();
      staffPage(
        deps,
        res,
        s,
        `${base}/health`,
        'Health',
        html`<h1>Health</h1>
          <section>
            <dl class="facts">
              <dt>Database</dt>
              <dd>${badge('reachable', 'ok')} round trip ${h.database.round_trip_ms} ms</dd>
              <dt>Deliveries waiting</dt>
              <dd>${h.deliveries.waiting}</dd>
              <dt>Oldest waiting delivery</dt>
              <dd>${when(h.deliveries.oldest_waiting_at, 'none')}</dd>
              <dt>Dead letters</dt>
              <dd>${h.deliveries.dead_letters}</dd>
              <dt>Events not yet dispatched</dt>
              <dd>${h.outbox_undispatched}</dd>
              <dt>Open sandbox resets</dt>
              <dd>${h.open_sandbox_resets}</dd>
              <dt>Last backup</dt>
              <dd>
                ${
                  setup?.set_up === false
                    ? html`${badge('not set up', 'bad')} ${setup.reason}`
                    : h.backup
                      ? html`${badge(h.backup.status, h.backup.status === 'failed' ? 'bad' : 'ok')} ${h.backup.type}, started
                        ${when(h.backup.started_at, '')}${h.backup.error ? html`: <code>${h.backup.error}</code>` : ''}`
                      : 'none yet'
                }
              </dd>
            </dl>
          </section>
          <section>
            <h2>Job queues</h2>
            ${table(h.queues, 'No jobs yet (no worker has started).', ['Queue', 'Queued', 'Active', 'Failed (24 h)'], (q) => {
              return html`<tr>
                <td><code>${q.name}</code></td>
                <td>${q.queued}</td>
                <td>${q.active}</td>
                <td>${q.failed ? badge(String(q.failed), 'bad') : '0'}</td>
              </tr>`;
            })}
          </section>`,
      );
    },

    async oauthClients(req: Request, res: Response) {
      const s = await staffOf(deps, req, res);
      if (!s) return;
      const clients = await s.caller.oauth.listClients({});
      staffPage(
        deps,
        res,
        s,
        `${base}/oauth-clients`,
        'OAuth clients',
        html`<h1>OAuth clients</h1>
          <section>
            ${table(clients, 'No OAuth clients.', ['Name', 'Client id', 'Contact', 'Redirect URIs', 'Created', 'Status', ''], (c) => {
              const revocable = s.isAdmin && !c.revoked_at;
              return html`<tr>
                <td>${c.name}</td>
                <td><code>${c.client_id}</code></td>
                <td>${c.contact || '—'}</td>
                <td>${c.redirect_uris.map((u) => html`<code>${u}</code><br />`)}</td>
                <td>${when(c.created_at)}</td>
                <td>${c.revoked_at ? badge('Revoked', 'bad') : badge('Active', 'ok')}</td>
                <td>
                  ${
                    revocable
                      ? postButton(s, `${base}/oauth-clients/revoke`, { client_id: c.client_id }, 'Revoke', {
                          danger: true,
                          ariaLabel: `Revoke client ${c.name}`,
                        })
                      : ''
                  }
                </td>
              </tr>`;
            })}
          </section>`,
      );
    },

    async revokeClient(req: Request, res: Response) {
      const s = await staffOf(deps, req, res);
      if (!s) return;
      await s.caller.oauth.revokeClient({ clientId: field(fieldsOf(req.body), 'client_id') });
      res.redirect(303, `${base}/oauth-clients`);
    },

    async staffActions(req: Request, res: Response) {
      const s = await staffOf(deps, req, res);
      if (!s) return;
      const company = field(fieldsOf(req.query), 'company').trim();
      const rows = await s.caller.support.staffActions({ companyId: company || undefined });
      staffPage(
        deps,
        res,
        s,
        `${base}/audit`,
        'Staff actions',
        html`<h1>Staff actions</h1>
          <section>
            <p class="muted">
              Every call a staff member made, newest first${company ? html`, for company <code>${company}</code>` : ''}. Nobody can change or delete it.
            </p>
            ${table(rows, 'Nothing recorded yet.', ['Time', 'Staff', 'Action', 'Company', 'Target', 'Outcome', 'Request'], (a) => {
              return html`<tr>
                <td class="when">${when(a.created_at)}</td>
                <td>${a.staff_email} (${a.role})</td>
                <td><code>${a.action}</code>${a.kind === 'mutation' ? ' (change)' : ''}</td>
                <td>${a.company_id ? html`<a href="${base}/companies/${a.company_id}">${a.company_id.slice(0, 8)}…</a>` : '—'}</td>
                <td><code>${a.target}</code></td>
                <td>${a.outcome === 'ok' ? badge('ok', 'ok') : badge(a.outcome, 'bad')}</td>
                <td>
                  <a href="${base}/requests?id=${a.request_id}"><code>${a.request_id.slice(0, 8)}…</code></a>
                </td>
              </tr>`;
            })}
          </section>`,
      );
    },
  };
}
