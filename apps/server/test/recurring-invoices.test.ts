// Recurring invoices through HTTP against PostgreSQL: the templates' refusals by field, a monthly and a
// yearly schedule across month ends, the job (called with the day it runs on, no waiting) catching up a
// downtime in order, two runs at once making each period once, an end after n invoices, pause and resume,
// a price change from the next period, a refused period waiting in order, approval and e-invoice sending
// through the invoice commands, and the events.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@tlr/db';
import { addDays, asSystem, makeRecurringInvoices, today as businessDay } from '@tlr/domain';
import { countRows, created, idem, ok, testDb, useCompany, type Api, type RequestBody } from './helpers.ts';

const t = useCompany({ name: 'Abonnement Udlejning ApS' });
const path = (id: string) => ({ params: { path: { id } } });
const db = testDb();
const run = <T>(fn: (tx: Db) => Promise<T>) => db.prisma.$transaction((tx) => fn(tx));
/** The hourly job as it would run on `day`. */
const job = (day: string) => makeRecurringInvoices(run, day);

type Body = RequestBody<'/recurring-invoices', 'post'>;
const LINES: Body['lines'] = [{ description: 'Husleje', quantity: 1, unit_price: 1000 }];

async function customer(c: Api, extra: Record<string, string> = {}) {
  const body = { name: 'Lejer A/S', cvr: '12345674', address_line1: 'Vestergade 12', postal_code: '8000', city: 'Aarhus C', ...extra };
  return (await created(c.POST('/customers', { params: idem(), body }))).data.id;
}
const template = async (body: Omit<Body, 'customer_id' | 'lines'> & Partial<Body>, c: Api = t.api) =>
  (await created(c.POST('/recurring-invoices', { params: idem(), body: { customer_id: await customer(c), lines: LINES, ...body } }))).data;
const get = async (id: string, c: Api = t.api) => (await ok(c.GET('/recurring-invoices/{id}', path(id)))).data;
const periods = async (id: string, c: Api = t.api) => (await get(id, c)).invoices.map((i) => i.period);
const invoice = async (id: string, c: Api = t.api) => (await ok(c.GET('/invoices/{id}', path(id)))).data;
const remove = (id: string, c: Api = t.api) => ok(c.DELETE('/recurring-invoices/{id}', path(id)));

describe('recurring invoice templates', () => {
  it('refuse what an invoice would refuse, and a schedule that cannot be, naming the field', async () => {
    const customer_id = await customer(t.api);
    const base = { customer_id, lines: LINES, interval: 'month', start_date: '2026-01-01' };
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ end_date: '2026-12-31', count: 3 }, 400, 'invalid_request', 'count'],
      [{ end_date: '2025-12-31' }, 400, 'invalid_request', 'end_date'],
      [{ day_of_month: 32 }, 400, 'invalid_request', 'day_of_month'],
      [{ day_of_month: 'first' }, 400, 'invalid_request', 'day_of_month'],
      [{ interval: 'week' }, 400, 'invalid_request', 'interval'],
      [{ every: 0 }, 400, 'invalid_request', 'every'],
      [{ lines: [] }, 400, 'invalid_request', 'lines'],
      [{ customer_id: '00000000-0000-4000-8000-000000000000' }, 400, 'invalid_request', 'customer_id'],
      [{ action: 'send' }, 422, 'peppol_id_required', 'customer_id'],
    ];
    for (const [over, status, code, field] of cases) {
      const r = await t.raw.post('/recurring-invoices', { ...base, ...over });
      expect([r.status, r.body], JSON.stringify(over)).toMatchObject([status, { code, field }]);
    }
    const r = await t.raw.post('/recurring-invoices', base, {});
    expect([r.status, r.body]).toMatchObject([400, { code: 'invalid_request' }]);
    expect((await ok(t.api.GET('/recurring-invoices'))).meta.total).toBe(0);
  });

  it("are the company's own, listed with the list parameters, and deleted", async () => {
    const a = await template({ interval: 'month', start_date: '2030-01-01', notes: 'Liste abonnement' });
    const b = await template({ interval: 'quarter', start_date: '2030-01-01', notes: 'Liste kvartal' });
    await ok(t.api.POST('/recurring-invoices/{id}/pause', path(b.id)));
    const paused = await ok(t.api.GET('/recurring-invoices', { params: { query: { status: 'paused' } } }));
    expect(paused.data.map((r) => r.id)).toEqual([b.id]);
    const search = await ok(t.api.GET('/recurring-invoices', { params: { query: { search: 'liste', sort: 'next_date', order: 'asc', per_page: 1 } } }));
    expect(search.meta).toMatchObject({ total: 2, per_page: 1, total_pages: 2 });

    const other = await t.another('Fremmed Abonnement ApS');
    expect((await other.raw.get(`/recurring-invoices/${a.id}`)).status).toBe(404);
    expect((await other.raw.del(`/recurring-invoices/${a.id}`)).status).toBe(404);
    expect((await ok(other.api.GET('/recurring-invoices'))).meta.total).toBe(0);

    await remove(a.id);
    await remove(b.id);
    expect((await t.raw.get(`/recurring-invoices/${a.id}`)).status).toBe(404);
  });
});

describe('the recurring-invoices job', () => {
  it('makes a monthly invoice across a month boundary once per period, dated the period, a draft with the lines', async () => {
    const r = await template({ interval: 'month', start_date: '2026-01-31', payment_terms_days: 8, notes: 'Husleje januar og frem' });
    expect(r).toMatchObject({ status: 'active', day_of_month: 31, every: 1, next_date: '2026-01-31', invoices: [], invoices_made: 0 });
    expect(r.lines).toEqual([
      { product_id: null, description: 'Husleje', quantity: 1, unit_price: 1000, vat_rate: null, vat_code: null, unit: null, discount_percent: null },
    ]);
    expect(await countRows(`SELECT count(*)::int AS n FROM outbox_events WHERE type = 'recurring_invoice.created' AND data->>'id' = $1`, [r.id])).toBe(1);

    await job('2026-01-30');
    expect(await periods(r.id)).toEqual([]);
    await job('2026-01-31');
    await job('2026-01-31');
    await job('2026-02-27');
    expect(await periods(r.id)).toEqual(['2026-01-31']);
    await job('2026-02-28');
    const after = await get(r.id);
    expect(after).toMatchObject({ invoices_made: 2, next_date: '2026-03-31' });
    expect(after.invoices.map((i) => i.period)).toEqual(['2026-01-31', '2026-02-28']);

    const feb = await invoice(after.invoices[1]!.invoice_id!);
    expect(feb).toMatchObject({
      status: 'draft',
      issue_date: '2026-02-28',
      due_date: '2026-03-08',
      notes: 'Husleje januar og frem',
      subtotal: 1000,
      total: 1250,
    });
    expect(feb.lines).toMatchObject([{ description: 'Husleje', quantity: 1, unit_price: 1000, vat_rate: 25 }]);
    expect(await countRows(`SELECT count(*)::int AS n FROM outbox_events WHERE type = 'invoice.created' AND data->>'id' = $1`, [feb.id])).toBe(1);
    await remove(r.id);
  });

  it('catches up three months of downtime in order, and a yearly template on the last day of February', async () => {
    const m = await template({ interval: 'month', start_date: '2026-03-01', day_of_month: 1 });
    await job('2026-03-02');
    await job('2026-06-15');
    const made = await get(m.id);
    expect(made.invoices.map((i) => i.period)).toEqual(['2026-03-01', '2026-04-01', '2026-05-01', '2026-06-01']);
    // Made in period order: each invoice created after the one before.
    const stamps = made.invoices.map((i) => i.created_at);
    expect([...stamps].sort()).toEqual(stamps);
    expect((await invoice(made.invoices[3]!.invoice_id!)).issue_date).toBe('2026-06-01');

    const y = await template({ interval: 'year', start_date: '2024-02-29', day_of_month: 'last' });
    expect(y.next_date).toBe('2024-02-29');
    await job('2026-03-01');
    expect(await get(y.id)).toMatchObject({ next_date: '2027-02-28', invoices_made: 3 });
    expect(await periods(y.id)).toEqual(['2024-02-29', '2025-02-28', '2026-02-28']);
    await remove(m.id);
    await remove(y.id);
  });

  it('makes each period once with two runs at once, and ends after count invoices', async () => {
    const a = await template({ interval: 'month', start_date: '2026-01-01', day_of_month: 1, count: 3, notes: 'Samtidig' });
    const b = await template({ interval: 'quarter', start_date: '2026-01-15', count: 3, notes: 'Samtidig' });
    const [r1, r2] = await Promise.all([job('2026-12-01'), job('2026-12-01')]);
    expect(r1.failed.concat(r2.failed)).toEqual([]);
    expect(await periods(a.id)).toEqual(['2026-01-01', '2026-02-01', '2026-03-01']);
    expect(await periods(b.id)).toEqual(['2026-01-15', '2026-04-15', '2026-07-15']);
    expect(await countRows(`SELECT count(*)::int AS n FROM invoices WHERE company_id = $1 AND notes = 'Samtidig'`, [t.company.companyId])).toBe(6);
    for (const id of [a.id, b.id]) expect(await get(id)).toMatchObject({ status: 'ended', next_date: null, invoices_made: 3 });
    await job('2027-12-01');
    expect(await countRows(`SELECT count(*)::int AS n FROM invoices WHERE company_id = $1 AND notes = 'Samtidig'`, [t.company.companyId])).toBe(6);
    // An end extended by an update makes it active again, from the period after the last made.
    const longer = (await ok(t.api.PUT('/recurring-invoices/{id}', { ...path(a.id), body: { count: 4 } }))).data;
    expect(longer).toMatchObject({ status: 'active', next_date: '2026-04-01' });
    await remove(a.id);
    await remove(b.id);
  });

  it('makes nothing while paused, and after resume only the periods from the resumption on', async () => {
    const r = await template({ interval: 'month', start_date: '2026-01-01', day_of_month: 1 });
    await job('2026-01-15');
    const paused = (await ok(t.api.POST('/recurring-invoices/{id}/pause', path(r.id)))).data;
    expect(paused).toMatchObject({ status: 'paused', next_date: null });
    expect((await ok(t.api.POST('/recurring-invoices/{id}/pause', path(r.id)))).data).toMatchObject({ status: 'paused' });
    await job('2026-04-15');
    expect(await periods(r.id)).toEqual(['2026-01-01']);

    const resumed = (await ok(t.api.POST('/recurring-invoices/{id}/resume', path(r.id)))).data;
    // The first 1st of a month on or after the day of resumption (today in Denmark).
    const day = businessDay();
    const first = day.endsWith('-01') ? day : addDays(`${day.slice(0, 8)}01`, 40).slice(0, 8) + '01';
    expect(resumed).toMatchObject({ status: 'active', next_date: first });
    await job(first);
    expect(await periods(r.id)).toEqual(['2026-01-01', first]);
    await remove(r.id);
  });

  it('applies a price change from the next period not yet made', async () => {
    const r = await template({ interval: 'month', start_date: '2026-01-10', count: 2 });
    await job('2026-01-10');
    const lines = [{ description: 'Husleje', quantity: 1, unit_price: 1200 }];
    const changed = (await ok(t.api.PUT('/recurring-invoices/{id}', { ...path(r.id), body: { lines } }))).data;
    expect(changed).toMatchObject({ next_date: '2026-02-10', lines: [{ unit_price: 1200 }] });
    await job('2026-02-10');
    const [jan, feb] = (await get(r.id)).invoices;
    expect((await invoice(jan!.invoice_id!)).lines[0]).toMatchObject({ unit_price: 1000 });
    expect((await invoice(feb!.invoice_id!)).lines[0]).toMatchObject({ unit_price: 1200 });
    await remove(r.id);
  });

  it('reports a period an invoice rule refuses, and makes it and the next in order once it can', async () => {
    const r = await template({ interval: 'month', start_date: '2026-01-05', count: 2 });
    await ok(t.api.DELETE('/customers/{id}', path(r.customer_id)));
    const { failed } = await job('2026-02-05');
    expect(failed.filter((f) => f.recurring_invoice_id === r.id)).toEqual([
      { recurring_invoice_id: r.id, period: '2026-01-05', code: 'invalid_request', detail: expect.stringContaining('customer') },
    ]);
    expect(await periods(r.id)).toEqual([]);
    await ok(t.api.PUT('/recurring-invoices/{id}', { ...path(r.id), body: { customer_id: await customer(t.api) } }));
    await job('2026-02-05');
    expect(await periods(r.id)).toEqual(['2026-01-05', '2026-02-05']);
  });

  it('rolls a refused period back alone: the other templates of its batch are made, their numbers without a gap', async () => {
    // A key of its own: the file's requests would pass the rate limit of one key in a minute.
    const { api: c } = await t.newKey();
    const day = businessDay();
    const body = { interval: 'month', start_date: day, action: 'approve', count: 1, notes: 'Samme parti' } as const;
    const [x, y, z] = [await template(body, c), await template(body, c), await template(body, c)];
    // The refused one is in the middle of the batch (one transaction for the company's templates, in id order).
    const [first, middle, last] = [x, y, z].sort((p, q) => (p.id < q.id ? -1 : 1));
    await ok(c.DELETE('/customers/{id}', path(middle!.customer_id)));
    const { failed } = await job(day);
    expect(failed.filter((f) => [x.id, y.id, z.id].includes(f.recurring_invoice_id))).toEqual([
      { recurring_invoice_id: middle!.id, period: day, code: 'invalid_request', detail: expect.stringContaining('customer') },
    ]);
    expect(await periods(middle!.id, c)).toEqual([]);
    const numbers = [];
    for (const r of [first!, last!]) {
      const [made] = (await get(r.id, c)).invoices;
      numbers.push(Number((await invoice(made!.invoice_id!, c)).invoice_number));
    }
    // The refused invoice's number was rolled back with it: the next one took it.
    expect(numbers[1]! - numbers[0]!).toBe(1);
    expect(await countRows(`SELECT count(*)::int AS n FROM invoices WHERE company_id = $1 AND notes = 'Samme parti'`, [t.company.companyId])).toBe(2);
    // Nor was its invoice announced: the batch's events are written at its end, the refused period's forgotten.
    const orphans = `SELECT count(*)::int AS n FROM outbox_events e WHERE e.company_id = $1 AND e.type IN ('invoice.created', 'invoice.approved')
                       AND NOT EXISTS (SELECT 1 FROM invoices i WHERE i.id = (e.data->>'id')::uuid)`;
    expect(await countRows(orphans, [t.company.companyId])).toBe(0);
    await remove(middle!.id, c);
  });

  it('approves each invoice through the invoice approval when asked: numbered, posted, announced', async () => {
    const day = businessDay();
    const r = await template({ interval: 'month', start_date: day, action: 'approve', count: 1 });
    const { failed } = await job(day);
    expect(failed).toEqual([]);
    const [made] = (await get(r.id)).invoices;
    const inv = await invoice(made!.invoice_id!);
    expect(inv).toMatchObject({ status: 'approved', issue_date: day, due_date: addDays(day, 14) });
    expect(inv.invoice_number).not.toBe('');
    expect(inv.posted_transaction_id).toBeTruthy();
    expect(await countRows(`SELECT count(*)::int AS n FROM outbox_events WHERE type = 'invoice.approved' AND data->>'id' = $1`, [inv.id])).toBe(1);
  });
  it('sends each invoice as an e-invoice with action send (a sandbox: nothing leaves), through the send command', async () => {
    const sandbox = await t.newKey(undefined, 'test');
    const day = businessDay();
    // The seller is addressed by its CVR in the e-invoice.
    await ok(sandbox.api.PUT('/settings/company', { body: { cvr: '31415926' } }));
    const customer_id = (await created(sandbox.api.POST('/customers', { params: idem(), body: { name: 'Peppol Lejer ApS', peppol_id: '0088:5790000436101' } })))
      .data.id;
    const r = (
      await created(
        sandbox.api.POST('/recurring-invoices', {
          params: idem(),
          body: { customer_id, lines: LINES, interval: 'month', start_date: day, action: 'send', count: 1 },
        }),
      )
    ).data;
    expect((await job(day)).failed.filter((f) => f.recurring_invoice_id === r.id)).toEqual([]);
    const [made] = (await ok(sandbox.api.GET('/recurring-invoices/{id}', path(r.id)))).data.invoices;
    const inv = (await ok(sandbox.api.GET('/invoices/{id}', path(made!.invoice_id!)))).data;
    expect(['approved', 'sent']).toContain(inv.status);
    expect(await countRows(`SELECT count(*)::int AS n FROM einvoice_messages WHERE invoice_id = $1 AND document_kind = 'invoice'`, [inv.id])).toBe(1);
  });
});

describe('recurring invoice events and the control trail', () => {
  // A key of its own: the file's requests would pass the rate limit of one key in a minute.
  let c: Api;
  beforeAll(async () => {
    c = (await t.newKey()).api;
  });
  const outbox = async (id: string) =>
    (
      await testDb().pool.query<{ type: string; data: Record<string, unknown>; livemode: boolean }>(
        `SELECT type, data, livemode FROM outbox_events WHERE company_id = $1 AND data->>'id' = $2 AND type LIKE 'recurring_invoice.%' ORDER BY sequence`,
        [t.company.companyId, id],
      )
    ).rows;
  const trail = async (id: string) =>
    (await ok(c.GET('/audit-trail', { params: { query: { resource_id: id, order: 'asc' } } }))).data.map((e) => [e.action, e.registered_by.type]);

  // Decision 802: each change is announced with the resource as the request answers it; a change of nothing is no event.
  it('announces created, updated, paused, resumed and deleted once each, with the resource as the request answers it', async () => {
    const r = await template({ interval: 'month', start_date: '2030-01-01', notes: 'Begivenheder' }, c);
    const changed = (await ok(c.PUT('/recurring-invoices/{id}', { ...path(r.id), body: { every: 2, notes: 'Hver anden måned' } }))).data;
    const paused = (await ok(c.POST('/recurring-invoices/{id}/pause', { params: { path: { id: r.id }, ...idem() } }))).data;
    // A repeat changes nothing, and announces nothing.
    await ok(c.POST('/recurring-invoices/{id}/pause', path(r.id)));
    const resumed = (await ok(c.POST('/recurring-invoices/{id}/resume', path(r.id)))).data;
    await ok(c.POST('/recurring-invoices/{id}/resume', path(r.id)));
    await remove(r.id, c);

    const events = await outbox(r.id);
    expect(events.map((e) => e.type)).toEqual([
      'recurring_invoice.created',
      'recurring_invoice.updated',
      'recurring_invoice.paused',
      'recurring_invoice.resumed',
      'recurring_invoice.deleted',
    ]);
    expect(events.every((e) => e.livemode)).toBe(true);
    expect(events[1]!.data).toEqual(JSON.parse(JSON.stringify(changed)));
    expect(events[1]!.data).toMatchObject({ every: 2, notes: 'Hver anden måned' });
    expect(events[2]!.data).toEqual(JSON.parse(JSON.stringify(paused)));
    expect(events[2]!.data).toMatchObject({ status: 'paused', next_date: null });
    expect(events[3]!.data).toEqual(JSON.parse(JSON.stringify(resumed)));
    expect(events[3]!.data).toMatchObject({ status: 'active' });
    expect(events[4]!.data).toEqual({ id: r.id });
  });

  // Decision 800: a template is recorded as an invoice is: who made it, and each change, by whom.
  it('records who made the template and each change, the job moving it on and ending it as the system', async () => {
    const r = await template({ interval: 'month', start_date: '2026-01-01', day_of_month: 1, count: 2, notes: 'Kontrolspor' }, c);
    expect(r.registered_by).toMatchObject({ type: 'api_key' });
    await ok(c.POST('/recurring-invoices/{id}/pause', path(r.id)));
    await ok(c.POST('/recurring-invoices/{id}/resume', path(r.id)));
    await ok(c.PUT('/recurring-invoices/{id}', { ...path(r.id), body: { start_date: '2026-01-01', notes: 'Kontrolspor ændret' } }));
    // Two periods due: the job (as the worker runs it, tlr's own) makes the first and ends the template with the second.
    const asJob = asSystem(run, 'make-recurring-invoices', 'tlr: recurring invoices');
    const from = (await get(r.id, c)).next_date!;
    await makeRecurringInvoices(asJob, addDays(from, 40));
    const after = await get(r.id, c);
    expect(after).toMatchObject({ status: 'ended', invoices_made: 2 });
    expect(after.registered_by).toEqual(r.registered_by);
    await remove(r.id, c);
    expect(await trail(r.id)).toEqual([
      ['created', 'api_key'],
      ['paused', 'api_key'],
      ['resumed', 'api_key'],
      ['updated', 'api_key'],
      ['updated', 'system'],
      ['ended', 'system'],
      ['deleted', 'api_key'],
    ]);
    const entries = (await ok(c.GET('/audit-trail', { params: { query: { type: 'recurring_invoice', resource_id: r.id, action: 'updated' } } }))).data;
    expect(entries.map((e) => e.changes)).toEqual(
      expect.arrayContaining([expect.objectContaining({ notes: ['Kontrolspor', 'Kontrolspor ændret'] }), expect.objectContaining({ made: [0, 1] })]),
    );
    // The invoices the job made are the system's too.
    for (const made of after.invoices) {
      expect((await invoice(made.invoice_id!, c)).registered_by).toMatchObject({
        type: 'system',
        id: 'make-recurring-invoices',
        name: 'tlr: recurring invoices',
      });
    }
  });
});
