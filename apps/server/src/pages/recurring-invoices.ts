// The owner's recurring invoices (docs/owner-pages.md): the company's templates with their customer,
// schedule, next date, status and invoices made, a Pause or Resume button on each, and a page per template
// listing the invoices it made. The same domain functions as /recurring-invoices, called as the owner.
import type { Request, Response } from 'express';
import type { RecurringInvoiceDetail, RecurringInvoiceRow } from '@tlr/domain';
import { errorPage, field, fieldsOf, html, type Html, type PagesDeps } from '@tlr/web';
import { shownAmount } from './bank-reconciliation.ts';
import { owner, settingsPage, type Owner } from './settings.ts';

export const RECURRING = '/settings/recurring-invoices';

const STATUS_BADGE: Record<string, [label: string, badge: string]> = {
  active: ['Active', 'ok'],
  paused: ['Paused', 'wait'],
  ended: ['Ended', ''],
};
const INTERVAL_WORDS: Record<string, [one: string, many: string]> = { month: ['month', 'months'], quarter: ['quarter', 'quarters'], year: ['year', 'years'] };
const ACTION_WORDS: Record<string, string> = { draft: 'Draft', approve: 'Approve', send: 'Approve and send (e-invoice)' };

/** "Every month", "Every 3 months", "Every quarter". */
export function everyText(r: Pick<RecurringInvoiceRow, 'interval' | 'every'>): string {
  const [one, many] = INTERVAL_WORDS[r.interval] ?? [r.interval, r.interval];
  return r.every === 1 ? `Every ${one}` : `Every ${r.every} ${many}`;
}

const dayText = (d: RecurringInvoiceRow['day_of_month']) => (d === 'last' ? 'the last day of the month' : `day ${d} (the month's last day when shorter)`);

function statusBadge(status: string): Html {
  const [label, badge] = STATUS_BADGE[status] ?? [status, ''];
  return html`<span class="badge ${badge}">${label}</span>`;
}

const detailPath = (o: Owner, id: string) => `${RECURRING}/${encodeURIComponent(id)}?company=${encodeURIComponent(o.companyId ?? '')}`;

/** Pause on an active template, Resume on a paused one; an ended one has neither. `back`: the page the button returns to. */
function pauseButton(o: Owner, r: Pick<RecurringInvoiceRow, 'id' | 'status' | 'customer_name'>, back: 'list' | 'detail'): Html | '' {
  if (r.status !== 'active' && r.status !== 'paused') return '';
  const pause = r.status === 'active';
  return html`<form method="post" action="${RECURRING}/${pause ? 'pause' : 'resume'}">
    <input type="hidden" name="csrf_token" value="${o.csrfToken}" />
    <input type="hidden" name="company" value="${o.companyId}" />
    <input type="hidden" name="id" value="${r.id}" />
    <input type="hidden" name="back" value="${back}" />
    <button type="submit" class="secondary" aria-label="${pause ? 'Pause' : 'Resume'} ${r.customer_name}">${pause ? 'Pause' : 'Resume'}</button>
  </form>`;
}

function listTable(o: Owner, rows: RecurringInvoiceRow[]): Html {
  if (!rows.length) return html`<p class="muted">The company has no recurring invoices (POST /recurring-invoices makes one).</p>`;
  return html`<table>
    <thead>
      <tr>
        <th>Customer</th>
        <th>Every</th>
        <th>Next invoice</th>
        <th>Status</th>
        <th>Invoices made</th>
        <th>Each invoice</th>
        <th></th>
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (r) =>
          html`<tr data-recurring-invoice="${r.id}">
            <td data-field="customer"><a href="${detailPath(o, r.id)}">${r.customer_name || r.customer_id}</a></td>
            <td data-field="every">${everyText(r)}</td>
            <td data-field="next_date">${r.next_date ?? '—'}</td>
            <td data-field="status">${statusBadge(r.status)}</td>
            <td data-field="invoices_made">${String(r.invoices_made)}</td>
            <td data-field="action">${ACTION_WORDS[r.action] ?? r.action}</td>
            <td>${pauseButton(o, r, 'list')}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

async function listPage(res: Response, o: Owner, pageNo: number) {
  const page = o.companyId ? await o.caller.recurringInvoices.forCompany({ companyId: o.companyId, page: pageNo }) : null;
  const pager =
    page && page.meta.total_pages > 1
      ? html`<p class="muted">
          Page ${String(page.meta.page)} of ${String(page.meta.total_pages)} (${String(page.meta.total)} recurring invoices).
          ${page.meta.page > 1 ? html`<a href="${RECURRING}?company=${o.companyId}&page=${String(page.meta.page - 1)}">Previous</a>` : ''}
          ${page.meta.page < page.meta.total_pages ? html`<a href="${RECURRING}?company=${o.companyId}&page=${String(page.meta.page + 1)}">Next</a>` : ''}
        </p>`
      : '';
  settingsPage(
    res,
    200,
    RECURRING,
    'Recurring invoices',
    o,
    html`<section>
      <h2>Subscriptions</h2>
      <p class="muted">
        Each makes an invoice on its schedule (the hourly job). A paused one makes none until it is resumed, and does not catch up the periods that passed while
        it was paused.
      </p>
      ${listTable(o, page?.data ?? [])} ${pager}
    </section>`,
  );
}

function invoicesTable(r: RecurringInvoiceDetail): Html {
  if (!r.invoices.length) return html`<p class="muted">No invoice made yet.</p>`;
  return html`<table>
    <thead>
      <tr>
        <th>Period</th>
        <th>Invoice</th>
        <th>Status</th>
        <th>Total</th>
      </tr>
    </thead>
    <tbody>
      ${r.invoices.map((p) =>
        p.invoice
          ? html`<tr data-period="${p.period}">
              <td>${p.period}</td>
              <td>${p.invoice.invoice_number || 'draft'}</td>
              <td>${p.invoice.status}</td>
              <td>${shownAmount(p.invoice.total)} ${p.invoice.currency}</td>
            </tr>`
          : html`<tr data-period="${p.period}">
              <td>${p.period}</td>
              <td colspan="3" class="muted">deleted (a draft); not made again</td>
            </tr>`,
      )}
    </tbody>
  </table>`;
}

async function detailPage(res: Response, o: Owner, id: string) {
  const r = await o.caller.recurringInvoices.detailForCompany({ companyId: o.companyId!, id });
  const fact = (label: string, value: Html | string) =>
    html`<dt>${label}</dt>
      <dd>${value}</dd>`;
  settingsPage(
    res,
    200,
    RECURRING,
    `Recurring invoice: ${r.customer_name || r.customer_id}`,
    o,
    html`<section>
        <dl class="facts">
          ${fact('Customer', r.customer_name || r.customer_id)} ${fact('Status', statusBadge(r.status))} ${fact('Every', everyText(r))}
          ${fact('On', dayText(r.day_of_month))} ${fact('Starts', r.start_date)}
          ${fact('Ends', r.end_date ?? (r.count ? `after ${r.count} invoices` : 'never'))} ${fact('Next invoice', r.next_date ?? '—')}
          ${fact('Each invoice', ACTION_WORDS[r.action] ?? r.action)}
          ${fact('Payment terms', r.payment_terms_days === null ? "the customer's" : `${r.payment_terms_days} days`)}
          ${fact('Invoices made', String(r.invoices_made))}
        </dl>
        <div class="actions">${pauseButton(o, r, 'detail')}</div>
      </section>
      <section>
        <h2>Invoices made</h2>
        ${invoicesTable(r)}
      </section>
      <p><a href="${RECURRING}?company=${encodeURIComponent(o.companyId!)}">All recurring invoices</a></p>`,
    false,
  );
}

export function recurringInvoiceRoutes(deps: PagesDeps) {
  /** Pause or Resume: the procedure as the owner, then back (303: a reload does not post again). */
  const change = (paused: boolean) => async (req: Request, res: Response) => {
    const body = fieldsOf(req.body);
    const o = await owner(deps, req, res, field(body, 'company'));
    if (!o) return;
    if (!o.companyId) return errorPage(res, deps.site, 400, 'No company', 'You own no company.');
    const id = field(body, 'id');
    const input = { companyId: o.companyId, id };
    await (paused ? o.caller.recurringInvoices.pauseForCompany(input) : o.caller.recurringInvoices.resumeForCompany(input));
    res.redirect(303, field(body, 'back') === 'detail' ? detailPath(o, id) : `${RECURRING}?company=${encodeURIComponent(o.companyId)}`);
  };
  return {
    async list(req: Request, res: Response) {
      const query = fieldsOf(req.query);
      const o = await owner(deps, req, res, field(query, 'company'));
      const n = Number(field(query, 'page') || '1');
      if (o) await listPage(res, o, Number.isInteger(n) && n >= 1 ? n : 1);
    },
    async detail(req: Request, res: Response) {
      const o = await owner(deps, req, res, field(fieldsOf(req.query), 'company'));
      if (!o) return;
      if (!o.companyId) return errorPage(res, deps.site, 400, 'No company', 'You own no company.');
      await detailPage(res, o, String(req.params.id));
    },
    pause: change(true),
    resume: change(false),
  };
}
