// The control trail (kontrolspor) through HTTP against PostgreSQL: "Every registration
// (posting, invoice and its state changes, expense, voucher, payment, VAT settlement, bank match) records who
// made it ... when, by the database clock; from which request id", "the database refuses UPDATE and DELETE on
// them", and GET /audit-trail lists them with filters, staff actions joined in.
import { createCaller, type Actor } from '@tlr/api';
import { actingAs } from '@tlr/domain';
import { describe, expect, it } from 'vitest';
import { bankLines } from './bank-lines.ts';
import { api, bodyOf, connectedApp, created, idem, newStaff, ok, requestIdOf, testDb, useCompany } from './helpers.ts';

const t = useCompany({ name: 'Kontrolspor ApS' });
const entries = async (query: Record<string, string | number>) => {
  const k = await t.newKey(['reports:read']);
  return ok(k.api.GET('/audit-trail', { params: { query } }));
};

describe('the control trail', () => {
  let keyId: string;
  let keyName: string;
  let invoiceId: string;

  it('stamps every registration an API key makes with the key, the database time and the request id', async () => {
    const key = await t.company.key(undefined, 'live');
    keyId = key.id;
    keyName = key.name;
    const c = api(t.svc.url, key.key);
    const byKey = { type: 'api_key', id: keyId, name: keyName };
    const before = Date.now();
    const near = (at: string) => expect(Math.abs(Date.parse(at) - before)).toBeLessThan(60_000);

    // A posting.
    const posting = await c.POST('/transactions', {
      params: idem(),
      body: {
        date: '2026-07-01',
        description: 'Husleje',
        lines: [
          { account_number: '2030', debit: 1000 },
          { account_number: '6470', credit: 1000 },
        ],
      },
    });
    const tx = bodyOf(201, posting).data;
    expect(tx.registered_by).toEqual(byKey);
    near(tx.registered_at);
    const read = (await ok(c.GET('/transactions/{id}', { params: { path: { id: tx.id } } }))).data;
    expect(read).toMatchObject({ registered_by: byKey, registered_at: tx.registered_at });

    // An invoice, approved then cancelled by a credit note; another approved and paid.
    const customer = (await created(c.POST('/customers', { params: idem(), body: { name: 'Kunde A/S' } }))).data.id;
    const invoiceOf = (unit_price: number) =>
      c.POST('/invoices', {
        params: idem(),
        body: {
          customer_id: customer,
          issue_date: '2026-07-10',
          due_date: '2026-07-20',
          auto_approve: true,
          lines: [{ description: 'Vare', quantity: 1, unit_price }],
        },
      });
    invoiceId = bodyOf(201, await invoiceOf(800)).data.id;
    const cancel = await c.PUT('/invoices/{id}/status', { params: { path: { id: invoiceId } }, body: { status: 'cancelled' } });
    const invoice = (await ok(c.GET('/invoices/{id}', { params: { path: { id: invoiceId } } }))).data;
    expect(invoice.registered_by).toEqual(byKey);
    expect(invoice.credit_note!.registered_by).toEqual(byKey);
    const paid = bodyOf(201, await invoiceOf(80)).data.id;
    await ok(c.POST('/invoices/{id}/payments', { params: { path: { id: paid }, ...idem() }, body: { amount: 100, date: '2026-07-11' } }));
    expect((await ok(c.GET('/invoices/{id}', { params: { path: { id: paid } } }))).data.payments[0]!.registered_by).toEqual(byKey);

    // An expense and a voucher.
    const expense = (await created(c.POST('/expenses', { params: idem(), body: { date: '2026-07-05', amount: 125, description: 'Papir', book: true } }))).data;
    expect((await ok(c.GET('/expenses/{id}', { params: { path: { id: expense.id } } }))).data.registered_by).toEqual(byKey);
    const voucher = (
      await created(
        c.POST('/vouchers', {
          params: idem(),
          body: { filename: 'kvittering.pdf', mime_type: 'application/pdf', content_base64: Buffer.from('%PDF-1.4 bilag').toString('base64') },
        }),
      )
    ).data;
    expect((await ok(c.GET('/vouchers/{id}', { params: { path: { id: voucher.id } } }))).data.registered_by).toEqual(byKey);

    // A bank match (posting a bank line to an account).
    const bank = (await created(c.POST('/bank-accounts', { params: idem(), body: { name: 'Driftskonto' } }))).data;
    const [line] = await bankLines(t.company.companyId, bank, [{ date: '2026-07-15', amount: '-50.00', text: 'Gebyr' }]);
    await ok(c.POST('/bank-lines/{id}/post', { params: { path: { id: line! }, ...idem() }, body: { account_number: '2390' } }));

    // The VAT settlement of the quarter.
    const settled = bodyOf(201, await c.POST('/vat-returns/{period}/settle', { params: { path: { period: '2026-Q3' }, ...idem() }, body: {} })).data;
    expect(settled.versions[0]!.registered_by).toEqual(byKey);

    // Every one of them is in the trail, by the key, with the request it came from.
    const trail = await entries({ actor_id: keyId, per_page: 200, order: 'asc' });
    const kinds = new Set(trail.data.map((e) => `${e.resource_type} ${e.action}`));
    for (const k of [
      'transaction posted',
      'customer created',
      'invoice created',
      'invoice_payment registered',
      'invoice cancelled',
      'credit_note created',
      'expense created',
      'voucher uploaded',
      'bank_account created',
      'bank_line matched',
      'vat_return settled',
    ]) {
      expect(kinds, k).toContain(k);
    }
    expect(trail.data.every((e) => e.registered_by.id === keyId && e.registered_by.type === 'api_key')).toBe(true);
    const posted = trail.data.find((e) => e.resource_type === 'transaction' && e.resource_id === tx.id)!;
    expect(posted).toMatchObject({ request_id: requestIdOf(posting.response), registered_at: tx.registered_at, changes: null });
    const cancelled = trail.data.find((e) => e.resource_id === invoiceId && e.action === 'cancelled')!;
    expect(cancelled.request_id).toBe(requestIdOf(cancel.response));
    expect(cancelled.changes).toMatchObject({ status: ['approved', 'cancelled'] });
    // Entries are numbered in the order they were made.
    const ids = trail.data.map((e) => Number(e.id));
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });

  it('filters by resource, type, action and date, with the list meta', async () => {
    const one = await entries({ resource_id: invoiceId, order: 'asc' });
    expect(one.data.map((e) => e.action)).toEqual(expect.arrayContaining(['created', 'cancelled']));
    expect(one.data.every((e) => e.resource_id === invoiceId)).toBe(true);
    expect(one.meta).toMatchObject({ page: 1, total: one.data.length });
    const paged = await entries({ type: 'invoice', per_page: 1 });
    expect(paged.data).toHaveLength(1);
    expect(paged.meta.total_pages).toBe(paged.meta.total);
    expect((await entries({ action: 'settled' })).data.map((e) => e.resource_type)).toEqual(['vat_return']);
    expect((await entries({ since: '2000-01-01', until: '2000-12-31' })).meta.total).toBe(0);
    const bad = await t.raw.get('/audit-trail?type=nonsense');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('type');
    const noScope = await t.newKey(['invoices:read']);
    expect((await noScope.raw.get('/audit-trail')).status).toBe(403);
  });

  it("names the actor on the transaction's BEGIN; the transaction may still set its isolation level, and the setting ends with it", async () => {
    const seen = await actingAs({ type: 'system', id: 'trail-test', name: "tlr: a job's 'name' \\ with quotes" }, 'req-begin', () =>
      testDb().prisma.$transaction(
        async (tx) =>
          (
            await tx.$queryRaw<{ actor: string; isolation: string }[]>`
              SELECT current_setting('tlr.actor') AS actor, current_setting('transaction_isolation') AS isolation`
          )[0]!,
        { isolationLevel: 'Serializable' },
      ),
    );
    expect(JSON.parse(seen.actor)).toEqual({ type: 'system', id: 'trail-test', name: "tlr: a job's 'name' \\ with quotes", request_id: 'req-begin' });
    expect(seen.isolation).toBe('serializable');
    // Outside actingAs a transaction names nobody: the pooled connections carry nothing over.
    const after = await testDb().prisma.$transaction((tx) => tx.$queryRaw<{ actor: string | null }[]>`SELECT current_setting('tlr.actor', true) AS actor`);
    expect(after[0]!.actor ?? '').toBe('');
  });

  it("names the operator CLI, which made the company's chart", async () => {
    const accounts = await entries({ type: 'account', actor_type: 'operator', per_page: 1 });
    expect(accounts.meta.total).toBeGreaterThan(50);
    expect(accounts.data[0]!.registered_by.name).toMatch(/^operator CLI \(.+\)$/);
  });

  it("keeps one company's trail from another", async () => {
    const other = await t.another();
    const theirs = await ok(other.api.GET('/audit-trail', { params: { query: { resource_id: invoiceId } } }));
    expect(theirs.meta.total).toBe(0);
  });

  it('names the OAuth application and the owner who approved it', async () => {
    const { app, tokens } = await connectedApp(t.svc.url, t.company, ['customers:write', 'customers:read']);
    const c = api(t.svc.url, tokens.access_token);
    const customer = (await created(c.POST('/customers', { params: idem(), body: { name: 'Via partner ApS' } }))).data;
    const [entry] = (await entries({ resource_id: customer.id })).data;
    expect(entry).toMatchObject({
      action: 'created',
      registered_by: { type: 'oauth_application', id: app.clientId, user: { type: 'user', id: t.company.userId, name: t.company.email } },
    });
  });

  it("joins support staff's actions on the company, and stamps what staff change", async () => {
    const staff = await newStaff('admin');
    const actor: Actor = { type: 'staff', userId: staff.id, role: 'admin' };
    const caller = createCaller(testDb(), actor);
    const key = await t.company.key(['customers:read']);
    await caller.internal.revokeApiKey({ id: key.id, companyId: t.company.companyId });
    const staffEntries = (await entries({ type: 'staff_action' })).data;
    expect(staffEntries).toContainEqual(
      expect.objectContaining({
        action: 'internal.revokeApiKey',
        resource_type: 'staff_action',
        registered_by: { type: 'staff', id: staff.id, name: staff.email },
      }),
    );
  });

  it('is refused UPDATE, DELETE and TRUNCATE by the database, and registrations keep who made them', async () => {
    const pool = testDb().pool;
    for (const sql of [`UPDATE control_trail SET action = 'forged' WHERE company_id = $1`, `DELETE FROM control_trail WHERE company_id = $1`]) {
      await expect(pool.query(sql, [t.company.companyId])).rejects.toThrow(/append-only/);
    }
    await expect(pool.query('TRUNCATE control_trail')).rejects.toThrow(/append-only/);
    await expect(pool.query(`UPDATE ledger_transactions SET registered_by = '{}' WHERE company_id = $1`, [t.company.companyId])).rejects.toThrow(/immutable/);
    await pool.query(`UPDATE invoices SET registered_by = '{"type":"system"}', registered_at = now() - interval '1 year' WHERE id = $1`, [invoiceId]);
    const invoice = (await ok(t.api.GET('/invoices/{id}', { params: { path: { id: invoiceId } } }))).data;
    expect(invoice.registered_by).toEqual({ type: 'api_key', id: keyId, name: keyName });
  });
});
