// The signed-in staff member of a page request: their role read fresh from the database on every request
// (a disabled account or a changed role takes effect at once), and a caller of the tRPC procedures as
// that staff member. The procedures decide what the role allows and record every call in the trail.
import type { Request, Response } from 'express';
import { createCaller, type BackgroundJobs, type Caller } from '@tlr/api';
import type { BackupSetup } from '@tlr/db/backup';
import { getStaffUser, type StaffUserView, type VoucherStore } from '@tlr/domain';
import { endSession, html, layout, sendPage, sessionOf, type Html, type PagesDeps } from '@tlr/web';

export interface AdminDeps extends PagesDeps {
  /** Where the sandbox reset job is sent (the same queue as POST /sandbox/reset). */
  jobs?: BackgroundJobs | undefined;
  /** The voucher store, for a reset run in process when no queue is configured. */
  store?: VoucherStore | undefined;
  /** Whether backups are set up, for the health page (the server's; unknown without). */
  backups?: (() => Promise<BackupSetup>) | undefined;
}

export interface Staff {
  user: StaffUserView;
  caller: Caller;
  csrfToken: string;
  isAdmin: boolean;
}

/** The staff member signed in, or a redirect to the sign-in page that comes back here. */
export async function staffOf(deps: AdminDeps, req: Request, res: Response): Promise<Staff | null> {
  const session = sessionOf(res);
  const user = session?.userId ? await getStaffUser(deps.db.prisma, session.userId) : null;
  if (!session || !user) {
    if (session?.userId) await endSession(req, res, deps);
    res.redirect(303, `${deps.site.base}/signin?return_to=${encodeURIComponent(req.originalUrl)}`);
    return null;
  }
  const caller = createCaller(
    deps.db,
    { type: 'staff', userId: user.id, role: user.role },
    { requestId: res.locals.requestId, jobs: deps.jobs, store: deps.store },
  );
  return { user, caller, csrfToken: session.csrfToken, isAdmin: user.role === 'admin' };
}

/** A page of the admin app, with the header naming the staff member and their role. */
export function staffPage(
  deps: AdminDeps,
  res: Response,
  s: Staff,
  current: string,
  title: string,
  body: Html,
  opts: { refresh?: number; status?: number } = {},
): void {
  const page = layout(deps.site, title, body, { nav: { csrfToken: s.csrfToken, current, who: `${s.user.email} (${s.user.role})` } });
  // A progress page reloads itself without script (the CSP allows none): Refresh is a header browsers honour.
  if (opts.refresh) res.setHeader('Refresh', String(opts.refresh));
  sendPage(res, opts.status ?? 200, page);
}

/** A one-button form that POSTs to `action` with the CSRF token and the given fields. */
export function postButton(s: Staff, action: string, fields: Record<string, string>, label: string, opts: { danger?: boolean; ariaLabel?: string } = {}): Html {
  return html`<form method="post" action="${action}">
    <input type="hidden" name="csrf_token" value="${s.csrfToken}" />
    ${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}
    <button type="submit" ${opts.danger ? html`class="danger"` : ''} aria-label="${opts.ariaLabel ?? label}">${label}</button>
  </form>`;
}

/** A status as a coloured badge: good, bad, waiting or neutral. */
export function badge(text: string, tone: 'ok' | 'bad' | 'wait' | '' = ''): Html {
  return html`<span class="badge ${tone}">${text}</span>`;
}

/** A table, or a muted line when there are no rows. */
export function table<T>(rows: readonly T[], empty: string, head: readonly string[], row: (r: T) => Html): Html {
  if (!rows.length) return html`<p class="muted">${empty}</p>`;
  return html`<table>
    <thead>
      <tr>
        ${head.map((h) => html`<th>${h}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows.map(row)}
    </tbody>
  </table>`;
}
