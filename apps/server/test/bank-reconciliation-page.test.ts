// The owner's bank reconciliation page in a real Chromium (docs/owner-pages.md): reached from the settings
// pages' header, one row per bank account whose numbers are those of GET /bank-accounts/{id}/reconciliation,
// the difference marked when it is not zero, the as_of date of its GET form, a refused date, a bank account
// name shown as text, another owner's company not found. Bank lines are written with SQL until the import lands (bank-lines.ts).
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPage, launchBrowser, screenshot, type BrowserSession } from '../../../test/browser.ts';
import { bankLines } from './bank-lines.ts';
import { api, created, idem, newCompany, ok, startTestService, twoLinePosting, type Api } from './helpers.ts';
import type { Service } from '../src/service.ts';

let svc: Service;
let browser: BrowserSession;
let owner: Awaited<ReturnType<typeof newCompany>>;
let c: Api;
const accounts: Record<'drift' | 'savings' | 'late', { id: string; currency: string }> = {} as never;
const HOSTILE = '<b>Drift</b> & "konto"';

beforeAll(async () => {
  [svc, browser, owner] = await Promise.all([
    startTestService({ TRUST_PROXY: 'loopback' }),
    launchBrowser({ viewport: { width: 1280, height: 800 } }),
    newCompany('Afstemt Side ApS'),
  ]);
  c = api(svc.url, (await owner.key()).key);
  const bankAccount = async (body: { name: string; account_number?: string; opening_balance_date?: string }) =>
    (await created(c.POST('/bank-accounts', { params: idem(), body }))).data;
  const post = async (date: string, debit: string, credit: string, amount: string) =>
    (await created(c.POST('/transactions', { params: idem(), body: twoLinePosting(date, debit, credit, amount) }))).data;
  await created(c.POST('/accounts', { params: idem(), body: { account_number: '6479', name: 'Opsparing', type: 'asset' } }));
  await created(c.POST('/accounts', { params: idem(), body: { account_number: '6478', name: 'Ny bank', type: 'asset' } }));
  accounts.drift = await bankAccount({ name: HOSTILE, opening_balance_date: '2026-03-01' });
  accounts.savings = await bankAccount({ name: 'Opsparingskonto', account_number: '6479' });
  accounts.late = await bankAccount({ name: 'Ny konto', account_number: '6478', opening_balance_date: '2026-05-01' });
  // Drift: bank 1000.00 + 1234.50 − 45.50 = 2189.00; ledger 1000.00 + 1234.50 + 300.00 = 2534.50; difference −345.50.
  await post('2026-02-10', '6470', '6520', '1000.00');
  const paid = await post('2026-03-05', '6470', '1010', '1234.50');
  await post('2026-03-20', '6470', '1010', '300.00');
  await bankLines(owner.companyId, accounts.drift, [
    { date: '2026-03-06', amount: '1234.50', matched: paid.id },
    { date: '2026-03-15', amount: '-45.50', text: 'Gebyr' },
  ]);
  // Savings: everything matched, so no difference.
  const saved = await post('2026-03-10', '6479', '6520', '5000.00');
  await bankLines(owner.companyId, accounts.savings, [{ date: '2026-03-10', amount: '5000.00', matched: saved.id }]);
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

/** The cells of a bank account's row, by the reconciliation field each shows. */
async function shown(page: Page, id: string) {
  const row = page.locator(`tr[data-bank-account="${id}"]`);
  const cell = (f: string) => row.locator(`td[data-field="${f}"]`).innerText();
  return {
    bank_balance: await cell('bank_balance'),
    ledger_balance: await cell('ledger_balance'),
    difference: await cell('difference'),
    badge: await row.locator('td[data-field="difference"] .badge').getAttribute('class'),
    last_matched_date: await cell('last_matched_date'),
    unmatched_bank_lines: await cell('unmatched_bank_lines'),
    unmatched_ledger_entries: await cell('unmatched_ledger_entries'),
  };
}

const reconciliation = async (id: string, as_of: string) =>
  (await ok(c.GET('/bank-accounts/{id}/reconciliation', { params: { path: { id }, query: { as_of } } }))).data;

describe('the bank reconciliation page', () => {
  it("is linked from the settings pages and shows each bank account's reconciliation at the date of its form, as the API answers it", async () => {
    const { page, problems } = await signedIn();
    await page.getByRole('link', { name: 'Bank reconciliation' }).click();
    await page.waitForURL(`${svc.url}/settings/bank-reconciliation`);
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Bank reconciliation');
    await page.getByLabel('As of').fill('2026-03-31');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(`${svc.url}/settings/bank-reconciliation?company=${owner.companyId}&as_of=2026-03-31`);
    await expect(page.getByLabel('As of').inputValue()).resolves.toBe('2026-03-31');

    const drift = await reconciliation(accounts.drift.id, '2026-03-31');
    expect(drift).toMatchObject({ bank_balance: 2189, ledger_balance: 2534.5, difference: -345.5, last_matched_date: '2026-03-06' });
    expect(await shown(page, accounts.drift.id)).toEqual({
      bank_balance: '2,189.00 DKK',
      ledger_balance: '2,534.50 DKK',
      difference: '-345.50 DKK',
      badge: 'badge bad',
      last_matched_date: drift.last_matched_date,
      unmatched_bank_lines: String(drift.unmatched_bank_lines.count),
      unmatched_ledger_entries: String(drift.unmatched_ledger_entries.count),
    });
    expect([drift.unmatched_bank_lines.count, drift.unmatched_ledger_entries.count]).toEqual([1, 1]);

    const savings = await reconciliation(accounts.savings.id, '2026-03-31');
    expect(savings).toMatchObject({ bank_balance: 5000, ledger_balance: 5000, difference: 0 });
    expect(await shown(page, accounts.savings.id)).toEqual({
      bank_balance: '5,000.00 DKK',
      ledger_balance: '5,000.00 DKK',
      difference: '0.00 DKK',
      badge: 'badge ok',
      last_matched_date: '2026-03-10',
      unmatched_bank_lines: '0',
      unmatched_ledger_entries: '0',
    });

    // The name is text, never markup; the ledger account is named by its number and name.
    const driftRow = page.locator(`tr[data-bank-account="${accounts.drift.id}"]`);
    await expect(driftRow.locator('td').first().innerText()).resolves.toBe(HOSTILE);
    await expect(driftRow.locator('b').count()).resolves.toBe(0);
    await expect(driftRow.locator('td').nth(1).innerText()).resolves.toMatch(/^6470 /);
    // Opened after the date asked: its row says why, the others stand.
    await expect(page.getByRole('row', { name: /Ny konto/ }).innerText()).resolves.toContain("before the bank account's opening_balance_date (2026-05-01)");
    await screenshot(page, 'bank-reconciliation');
    expect(problems).toEqual([]);
  });

  it('refuses a date that is not one with a 400 page naming as_of, with the form again', async () => {
    const { page, problems } = await signedIn();
    const answer = await page.goto(`${svc.url}/settings/bank-reconciliation?as_of=2026-02-30`);
    expect(answer?.status()).toBe(400);
    await expect(page.getByRole('alert').innerText()).resolves.toMatch(/^as_of: must be a valid calendar date/);
    await expect(page.getByLabel('As of').inputValue()).resolves.toBe('');
    expect(problems).toEqual([]);
  });

  it("answers a company the owner does not own, another owner's included, with a 400 page that shows none of its accounts", async () => {
    const other = await newCompany('Fremmed ApS');
    const { page } = await signedIn();
    const answer = await page.goto(`${svc.url}/settings/bank-reconciliation?company=${other.companyId}&as_of=2026-03-31`);
    // As on the company page: the site's refusal page, naming the company not found.
    expect(answer?.status()).toBe(400);
    await expect(page.getByText(`No company with id ${other.companyId}`).count()).resolves.toBe(1);
    await expect(page.locator('tr[data-bank-account]').count()).resolves.toBe(0);
  });

  it('sends a visitor without a session to sign in, with this page to return to', async () => {
    const { page } = await freshPage(browser.browser);
    await page.goto(`${svc.url}/settings/bank-reconciliation?as_of=2026-03-31`);
    expect(page.url()).toBe(`${svc.url}/signin?return_to=${encodeURIComponent('/settings/bank-reconciliation?as_of=2026-03-31')}`);
  });
});
