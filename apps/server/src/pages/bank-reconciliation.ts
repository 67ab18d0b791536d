// The owner's bank reconciliation page: every bank account of the company against its
// ledger account at a date, with the unreconciled difference; the numbers of GET /bank-accounts/{id}/reconciliation.
import type { Request, Response } from 'express';
import { toProblem } from '@tlr/api';
import { checkDate, Decimal } from '@tlr/domain';
import { html, field, fieldsOf, type Html, type PagesDeps } from '@tlr/web';
import { companyPicker, owner, settingsPage, type Owner } from './settings.ts';

export const RECONCILIATION = '/settings/bank-reconciliation';

type Rows = Awaited<ReturnType<Owner['caller']['bankReconciliation']['forCompany']>>;
type Reconciled = Exclude<Rows[number]['reconciliation'], string>;

/**
 * An amount as the API answers it (a number, or a raw JSON number beyond double precision), written with
 * its exact digits, two decimals and thousands separated: 1,234.50.
 */
export function shownAmount(value: unknown): string {
  const [whole, decimals] = new Decimal(JSON.stringify(value)).toFixed(2).split('.') as [string, string];
  return `${whole.replace(/\B(?=(\d{3})+$)/g, ',')}.${decimals}`;
}

function row(r: Rows[number]): Html {
  const name = html`<td>${r.name}</td>
    <td>${r.account_number} ${r.account_name}</td>`;
  if (typeof r.reconciliation === 'string') {
    return html`<tr>
      ${name}
      <td colspan="6" class="muted">${r.reconciliation}</td>
    </tr>`;
  }
  const c: Reconciled = r.reconciliation;
  const money = (v: unknown) => `${shownAmount(v)} ${c.currency}`;
  const settled = new Decimal(JSON.stringify(c.difference)).isZero();
  return html`<tr data-bank-account="${r.id}">
    ${name}
    <td data-field="bank_balance">${money(c.bank_balance)}</td>
    <td data-field="ledger_balance">${money(c.ledger_balance)}</td>
    <td data-field="difference"><span class="badge ${settled ? 'ok' : 'bad'}">${money(c.difference)}</span></td>
    <td data-field="last_matched_date">${c.last_matched_date ?? 'none'}</td>
    <td data-field="unmatched_bank_lines">${c.unmatched_bank_lines.count}</td>
    <td data-field="unmatched_ledger_entries">${c.unmatched_ledger_entries.count}</td>
  </tr>`;
}

function table(rows: Rows): Html {
  if (!rows.length) return html`<p class="muted">The company has no bank account yet (POST /bank-accounts).</p>`;
  return html`<table>
    <thead>
      <tr>
        <th>Bank account</th>
        <th>Ledger account</th>
        <th>Bank balance</th>
        <th>Ledger balance</th>
        <th>Difference</th>
        <th>Last matched</th>
        <th>Unmatched bank lines</th>
        <th>Unmatched ledger entries</th>
      </tr>
    </thead>
    <tbody>
      ${rows.map(row)}
    </tbody>
  </table>`;
}

async function page(res: Response, o: Owner, asOf: string) {
  let content: Html;
  let status = 200;
  try {
    const rows = o.companyId ? await o.caller.bankReconciliation.forCompany({ companyId: o.companyId, ...(asOf ? { as_of: asOf } : {}) }) : [];
    const shownAsOf = rows.find((r) => typeof r.reconciliation !== 'string')?.reconciliation as Reconciled | undefined;
    content = html`<section>
      <h2>At the end of ${shownAsOf?.as_of ?? (asOf || 'today')}</h2>
      <p class="muted">
        Bank balance: the opening balance and the bank lines from each account's opening balance date. Ledger balance: its ledger account's postings. The
        difference, bank minus ledger, is the unreconciled difference; the unmatched lines on each side explain it.
      </p>
      ${table(rows)}
    </section>`;
  } catch (e) {
    // A date the procedure refuses is this page again with the refusal; anything else is the site's error page.
    if (toProblem(e).status !== 400) throw e;
    status = 400;
    content = html`<section><p class="error" role="alert">as_of: ${toProblem(e).detail.replace(/^as_of: /, '')}</p></section>`;
  }
  // A date input holds a valid date or nothing (Chromium warns of anything else); the refusal names what was sent.
  const dateField = html`<div>
    <label for="as_of">As of</label>
    <input type="date" id="as_of" name="as_of" value="${checkDate(asOf) ? '' : asOf}" />
  </div>`;
  settingsPage(
    res,
    status,
    RECONCILIATION,
    'Bank reconciliation',
    o,
    html`<section>${companyPicker(RECONCILIATION, o, dateField)}</section>
      ${content}`,
    false,
  );
}

export function bankReconciliationRoutes(deps: PagesDeps) {
  return {
    async show(req: Request, res: Response) {
      const query = fieldsOf(req.query);
      const o = await owner(deps, req, res, field(query, 'company'));
      if (o) await page(res, o, field(query, 'as_of'));
    },
  };
}
