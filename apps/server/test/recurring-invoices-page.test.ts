// The owner's recurring invoices pages in a real Chromium (docs/owner-pages.md): reached from the settings
// pages' header, one row per template with its customer, schedule, next date, status and invoices made as
// GET /recurring-invoices answers them; Pause and Resume buttons that do what POST /recurring-invoices/{id}/pause
// and /resume do (and are recorded as the owner's); the detail page listing the invoices the job made; a
// customer's name shown as text; another owner's template not found.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@tlr/db';
import { addDays, makeRecurringInvoices, today } from '@tlr/domain';
import { freshPage, launchBrowser, screenshot, type BrowserSession } from '../../../test/browser.ts';
import { api, created, idem, newCompany, ok, startTestService, testDb, type Api } from './helpers.ts';
import type { Service } from '../src/service.ts';

let svc: Service;
let browser: BrowserSession;
let owner: Awaited<ReturnType<typeof newCompany>>;
let c: Api;
const HOSTILE = '<b>Lejer</b> & "Søn"';
const LINES = [{ description: 'Husleje', quantity: 1, unit_price: 1000 }];
const ids = {} as Record<'monthly' | 'quarterly' | 'ended', string>;
const path = (id: string) => ({ params: { path: { id } } });

beforeAll(async () => {
  [svc, browser, owner] = await Promise.all([
    startTestService({ TRUST_PROXY: 'loopback' }),
    launchBrowser({ viewport: { width: 1280, height: 900 } }),
    newCompany('Abonnement Side ApS'),
  ]);
  c = api(svc.url, (await owner.key()).key);
  const customer = async (name: string) => (await created(c.POST('/customers', { params: idem(), body: { name } }))).data.id;
  const template = async (body: Record<string, unknown>) =>
    (await created(c.POST('/recurring-invoices', { params: idem(), body: { lines: LINES, ...body } as never }))).data.id;
  ids.monthly = await template({ customer_id: await customer(HOSTILE), interval: 'month', start_date: '2026-01-01', day_of_month: 1, action: 'approve' });
  ids.quarterly = await template({ customer_id: await customer('Kvartal ApS'), interval: 'month', every: 3, start_date: '2030-01-15' });
  ids.ended = await template({ customer_id: await customer('Slut ApS'), interval: 'year', start_date: '2026-02-01', count: 1 });
  // The hourly job, on the first of March: January, February and March for the monthly one, the one year of the ended one.
  const db = testDb();
  const run = <T>(fn: (tx: Db) => Promise<T>) => db.prisma.$transaction((tx) => fn(tx));
  await makeRecurringInvoices(run, '2026-03-01');
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

async function signedIn(): Promise<{ page: Page; problems: string[] }> {
  const p = await freshPage(browser.browser);
  await p.page.goto(`${svc.url}/signin`);
  await p.page.getByLabel('Email').fill(owner.email);
  await p.page.getByLabel('Password').fill('correct horse battery');
  await p.page.getByRole('button', { name: 'Sign in' }).click();
  await p.page.waitForURL(`${svc.url}/settings/api-keys`);
  return p;
}

/** A template's row, by the field each cell shows. */
async function shown(page: Page, id: string) {
  const row = page.locator(`tr[data-recurring-invoice="${id}"]`);
  const cell = (f: string) => row.locator(`td[data-field="${f}"]`).innerText();
  return {
    customer: await cell('customer'),
    every: await cell('every'),
    next_date: await cell('next_date'),
    status: await cell('status'),
    invoices_made: await cell('invoices_made'),
    buttons: await row.getByRole('button').allInnerTexts(),
  };
}

const get = async (id: string) => (await ok(c.GET('/recurring-invoices/{id}', path(id)))).data;

describe('the recurring invoices pages', () => {
  it('list each template as the API answers it, with Pause and Resume buttons that pause and resume it', async () => {
    const { page, problems } = await signedIn();
    await page.getByRole('link', { name: 'Recurring invoices' }).click();
    await page.waitForURL(`${svc.url}/settings/recurring-invoices`);
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Recurring invoices');

    const monthly = await get(ids.monthly);
    expect(monthly).toMatchObject({ status: 'active', next_date: '2026-04-01', invoices_made: 3 });
    expect(await shown(page, ids.monthly)).toEqual({
      customer: HOSTILE,
      every: 'Every month',
      next_date: '2026-04-01',
      status: 'Active',
      invoices_made: '3',
      buttons: ['Pause'],
    });
    expect(await shown(page, ids.quarterly)).toEqual({
      customer: 'Kvartal ApS',
      every: 'Every 3 months',
      next_date: '2030-01-15',
      status: 'Active',
      invoices_made: '0',
      buttons: ['Pause'],
    });
    expect(await get(ids.ended)).toMatchObject({ status: 'ended', next_date: null, invoices_made: 1 });
    // Ended: nothing to pause or resume.
    expect(await shown(page, ids.ended)).toEqual({
      customer: 'Slut ApS',
      every: 'Every year',
      next_date: '—',
      status: 'Ended',
      invoices_made: '1',
      buttons: [],
    });
    // The customer's name is text, never markup.
    await expect(page.locator(`tr[data-recurring-invoice="${ids.monthly}"] b`).count()).resolves.toBe(0);
    await screenshot(page, 'recurring-invoices');

    // Pause: back on the list, the template paused as the API shows it, with no next date.
    await page.getByRole('button', { name: 'Pause Kvartal ApS' }).click();
    await page.waitForURL(`${svc.url}/settings/recurring-invoices?company=${owner.companyId}`);
    expect(await get(ids.quarterly)).toMatchObject({ status: 'paused', next_date: null });
    expect(await shown(page, ids.quarterly)).toMatchObject({ status: 'Paused', next_date: '—', buttons: ['Resume'] });

    // Resume: active again from today on (decision 617), the next date as the API answers it.
    await page.getByRole('button', { name: 'Resume Kvartal ApS' }).click();
    await page.waitForURL(`${svc.url}/settings/recurring-invoices?company=${owner.companyId}`);
    const resumed = await get(ids.quarterly);
    expect(resumed).toMatchObject({ status: 'active', next_date: '2030-01-15' });
    expect(await shown(page, ids.quarterly)).toMatchObject({ status: 'Active', next_date: resumed.next_date, buttons: ['Pause'] });

    // Both were the owner's, in the control trail; and each was announced.
    const trail = (await ok(c.GET('/audit-trail', { params: { query: { resource_id: ids.quarterly, order: 'asc' } } }))).data;
    expect(trail.map((e) => [e.action, e.registered_by.type, e.registered_by.name])).toEqual([
      ['created', 'api_key', expect.any(String)],
      ['paused', 'owner', owner.email],
      ['resumed', 'owner', owner.email],
    ]);
    const events = await testDb().pool.query<{ type: string }>(`SELECT type FROM outbox_events WHERE data->>'id' = $1 ORDER BY sequence`, [ids.quarterly]);
    expect(events.rows.map((r) => r.type)).toEqual(['recurring_invoice.created', 'recurring_invoice.paused', 'recurring_invoice.resumed']);
    expect(problems).toEqual([]);
  });

  it('show a template with the invoices it made, each with its number, status and total, and pause it from there', async () => {
    const { page, problems } = await signedIn();
    await page.goto(`${svc.url}/settings/recurring-invoices`);
    await page.getByRole('link', { name: HOSTILE }).click();
    await page.waitForURL(`${svc.url}/settings/recurring-invoices/${ids.monthly}?company=${owner.companyId}`);
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe(`Recurring invoice: ${HOSTILE}`);
    const facts = await page.locator('dl.facts').innerText();
    expect(facts).toContain('Every month');
    expect(facts).toContain('2026-04-01');
    expect(facts).toContain('Approve');

    const made = (await get(ids.monthly)).invoices;
    expect(made.map((i) => i.period)).toEqual(['2026-01-01', '2026-02-01', '2026-03-01']);
    for (const m of made) {
      const inv = (await ok(c.GET('/invoices/{id}', path(m.invoice_id!)))).data;
      const cells = await page.locator(`tr[data-period="${m.period}"] td`).allInnerTexts();
      expect(cells).toEqual([m.period, inv.invoice_number, inv.status, '1,250.00 DKK']);
      expect(inv).toMatchObject({ status: 'approved', issue_date: m.period, total: 1250 });
    }
    await screenshot(page, 'recurring-invoice');

    await page.getByRole('button', { name: `Pause ${HOSTILE}` }).click();
    await page.waitForURL(`${svc.url}/settings/recurring-invoices/${ids.monthly}?company=${owner.companyId}`);
    expect(await get(ids.monthly)).toMatchObject({ status: 'paused', next_date: null });
    await expect(page.locator('dl.facts').innerText()).resolves.toContain('Paused');
    await expect(page.getByRole('button', { name: `Resume ${HOSTILE}` }).count()).resolves.toBe(1);
    expect(problems).toEqual([]);
  });

  it("answers another owner's template, or one of a company not owned, with a 400 page that shows nothing of it", async () => {
    const other = await newCompany('Fremmed Abonnement ApS');
    const oc = api(svc.url, (await other.key()).key);
    const customer_id = (await created(oc.POST('/customers', { params: idem(), body: { name: 'Hemmelig Kunde ApS' } }))).data.id;
    const theirs = (
      await created(
        oc.POST('/recurring-invoices', { params: idem(), body: { customer_id, lines: LINES, interval: 'month', start_date: addDays(today(), 30) } }),
      )
    ).data;
    const { page } = await signedIn();
    // Their template under our company: not found. Their company: not owned.
    for (const url of [
      `/settings/recurring-invoices/${theirs.id}?company=${owner.companyId}`,
      `/settings/recurring-invoices/${theirs.id}?company=${other.companyId}`,
      `/settings/recurring-invoices?company=${other.companyId}`,
    ]) {
      const answer = await page.goto(`${svc.url}${url}`);
      expect(answer?.status(), url).toBe(400);
      await expect(page.getByText('Hemmelig Kunde ApS').count()).resolves.toBe(0);
    }
    // Nor can a form of ours pause it: the procedure finds no such template in our company.
    await page.goto(`${svc.url}/settings/recurring-invoices`);
    const csrf_token = await page.locator('input[name="csrf_token"]').first().inputValue();
    const r = await page.request.post(`${svc.url}/settings/recurring-invoices/pause`, {
      form: { csrf_token, company: owner.companyId, id: theirs.id },
      headers: { Origin: new URL(svc.url).origin },
      maxRedirects: 0,
    });
    expect(r.status()).toBe(400);
    expect((await ok(oc.GET('/recurring-invoices/{id}', path(theirs.id)))).data.status).toBe('active');
  });

  it('sends a visitor without a session to sign in, with this page to return to', async () => {
    const { page } = await freshPage(browser.browser);
    await page.goto(`${svc.url}/settings/recurring-invoices/${ids.monthly}`);
    expect(page.url()).toBe(`${svc.url}/signin?return_to=${encodeURIComponent(`/settings/recurring-invoices/${ids.monthly}`)}`);
  });
});
