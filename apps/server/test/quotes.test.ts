// Quotes (tilbud) through HTTP against PostgreSQL: drafts with an invoice's lines and totals, the strict
// transitions, the quote's own gapless number series, acceptance into an invoice (also twice at once),
// declining, the daily expiry, the events of each move and the PDF's text.
import { beforeAll, describe, expect, it } from 'vitest';
import { extractText, getDocumentProxy } from 'unpdf';
import type { Db } from '@tlr/db';
import { addDays, asSystem, expireQuotes, today as businessDay } from '@tlr/domain';
import { created, idem, ok, testDb, useCompany, type Api, type RequestBody } from './helpers.ts';

const t = useCompany({ name: 'Tilbudsfirma ApS', cvr: '12345674' });
const today = businessDay();
const plus = (days: number) => addDays(today, days);
let customerId: string;

beforeAll(async () => {
  const customer = { name: 'Kunde A/S', address_line1: 'Vestergade 12', postal_code: '8000', city: 'Aarhus C', payment_terms_days: 8 };
  customerId = (await created(t.api.POST('/customers', { params: idem(), body: customer }))).data.id;
});

type QuoteInput = RequestBody<'/quotes', 'post'>;
// The invoices' hand-checked lines: 3 × 19.96 at 25 % + 1.5 × 10.10 at 0 %, and a discounted hour.
const LINES: QuoteInput['lines'] = [
  { description: 'Skruer', quantity: 3, unit_price: 19.96 },
  { description: 'Momsfri ydelse', quantity: 1.5, unit_price: 10.1, vat_rate: 0 },
  { description: 'Montage', quantity: 2, unit_price: 450, unit: 'HUR', discount_percent: 10 },
];
const path = (id: string) => ({ params: { path: { id } } });
const create = async (c: Api, extra: Partial<QuoteInput> = {}) =>
  (await created(c.POST('/quotes', { params: idem(), body: { customer_id: customerId, issue_date: today, valid_until: plus(30), lines: LINES, ...extra } })))
    .data;
const move = (c: Api, id: string, verb: 'send' | 'decline') => {
  const params = { params: { path: { id }, ...idem() } };
  return verb === 'send' ? c.POST('/quotes/{id}/send', { ...params, body: {} }) : c.POST('/quotes/{id}/decline', params);
};
const accept = (c: Api, id: string, body: RequestBody<'/quotes/{id}/accept', 'post'> = {}) =>
  c.POST('/quotes/{id}/accept', { params: { path: { id }, ...idem() }, body });
const events = async (id: string) =>
  (await testDb().pool.query<{ type: string }>(`SELECT type FROM outbox_events WHERE data->>'id' = $1 ORDER BY sequence`, [id])).rows.map((r) => r.type);

describe('quotes', () => {
  it('drafts with invoice totals; send numbers them gaplessly; strict transitions; decline', async () => {
    const c = (await t.newKey()).api;
    const draft = await create(c);
    // 59.88 + 15.15 + 810.00 (900 less 10 %); VAT 25 % of 869.88 = 217.47.
    expect(draft).toMatchObject({ status: 'draft', quote_number: '', subtotal: 885.03, vat_amount: 217.47, total: 1102.5, invoice_id: null });
    expect(draft.lines.map((l) => [l.amount, l.vat_code, l.unit])).toEqual([
      [59.88, 'S25', 'C62'],
      [15.15, 'S0', 'C62'],
      [810, 'S25', 'HUR'],
    ]);
    const bad = await t.raw.post('/quotes', { customer_id: customerId, issue_date: today, valid_until: plus(-1), lines: LINES }, idem().header);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ field: 'valid_until' });

    const updated = (await ok(c.PUT('/quotes/{id}', { ...path(draft.id), body: { notes: 'Pris inkl. levering', lines: [LINES[0]!] } }))).data;
    expect(updated).toMatchObject({ notes: 'Pris inkl. levering', total: 74.85 });
    // A deleted draft takes no number: the series stays gapless.
    const gone = await create(c);
    expect((await ok(c.DELETE('/quotes/{id}', path(gone.id)))).data).toEqual({ id: gone.id, deleted: true });
    expect((await c.GET('/quotes/{id}', path(gone.id))).response.status).toBe(404);

    const noCustomer = await create(c, { customer_id: null });
    const incomplete = await move(c, noCustomer.id, 'send');
    expect(incomplete.response.status).toBe(422);
    expect(incomplete.error).toMatchObject({ code: 'quote_incomplete', field: 'customer_id' });
    // A draft is sent before it is accepted or declined.
    const early = await accept(c, draft.id);
    expect(early.response.status).toBe(409);
    expect(early.error).toMatchObject({ code: 'invalid_transition', current_status: 'draft', allowed_statuses: ['sent'] });

    const first = (await ok(move(c, draft.id, 'send'))).data;
    const other = await create(c);
    const second = (await ok(move(c, other.id, 'send'))).data;
    expect(first).toMatchObject({ status: 'sent' });
    expect(Number(second.quote_number)).toBe(Number(first.quote_number) + 1);
    // Sending again changes nothing; a sent quote is no longer edited or deleted.
    expect((await ok(move(c, draft.id, 'send'))).data.quote_number).toBe(first.quote_number);
    const edit = await c.PUT('/quotes/{id}', { ...path(draft.id), body: { notes: 'x' } });
    expect(edit.response.status).toBe(409);
    expect(edit.error).toMatchObject({ code: 'quote_not_draft' });

    expect((await ok(move(c, other.id, 'decline'))).data).toMatchObject({ status: 'declined', invoice_id: null });
    const late = await accept(c, other.id);
    expect(late.response.status).toBe(409);
    expect(late.error).toMatchObject({ code: 'invalid_transition', current_status: 'declined', allowed_statuses: [] });
    expect(await events(other.id)).toEqual(['quote.created', 'quote.sent', 'quote.declined']);

    const list = await ok(c.GET('/quotes', { params: { query: { status: 'sent', sort: 'quote_number', order: 'asc' } } }));
    expect(list.data.map((q) => q.id)).toContain(draft.id);
    expect(list.data.every((q) => q.status === 'sent')).toBe(true);
    // Another company sees none of it.
    const stranger = await t.another();
    expect((await stranger.api.GET('/quotes/{id}', path(draft.id))).response.status).toBe(404);
    expect((await ok(stranger.api.GET('/quotes'))).meta.total).toBe(0);
  });

  it('accept makes one invoice with the same lines, linked both ways, even when two accept at once', async () => {
    const c = (await t.newKey()).api;
    const quote = await create(c);
    await ok(move(c, quote.id, 'send'));
    const [a, b] = await Promise.all([accept(c, quote.id), accept(c, quote.id)]);
    expect([a.response.status, b.response.status]).toEqual([200, 200]);
    const invoiceId = a.data!.data.invoice_id!;
    expect(invoiceId).toBeTruthy();
    expect(b.data!.data).toMatchObject({ status: 'accepted', invoice_id: invoiceId });
    const links = await testDb().pool.query(`SELECT id FROM invoices WHERE quote_id = $1`, [quote.id]);
    expect(links.rows).toEqual([{ id: invoiceId }]);

    const invoice = (await ok(c.GET('/invoices/{id}', path(invoiceId)))).data;
    const strip = (lines: typeof quote.lines) =>
      lines.map(({ line_number, product_id, description, quantity, unit_price, vat_code, unit, discount_percent, amount }) => ({
        line_number,
        product_id,
        description,
        quantity,
        unit_price,
        vat_code,
        unit,
        discount_percent,
        amount,
      }));
    expect(strip(invoice.lines)).toEqual(strip(quote.lines));
    // The customer's 8 days of payment terms from today.
    expect(invoice).toMatchObject({ status: 'draft', quote_id: quote.id, customer_id: customerId, issue_date: today, due_date: plus(8), total: quote.total });
    expect(await events(quote.id)).toEqual(['quote.created', 'quote.sent', 'quote.accepted']);

    // With approve, the invoice is numbered and posted at once.
    const approved = await create(c);
    await ok(move(c, approved.id, 'send'));
    const made = (await ok(accept(c, approved.id, { approve: true }))).data;
    const inv = (await ok(c.GET('/invoices/{id}', path(made.invoice_id!)))).data;
    expect(inv).toMatchObject({ status: 'approved', total: approved.total });
    expect(inv.invoice_number).not.toBe('');
  });

  it('the daily sweep expires sent quotes past valid_until, once each; an expired quote is not accepted', async () => {
    const c = (await t.newKey()).api;
    const past = await create(c, { issue_date: plus(-20), valid_until: plus(-1) });
    const current = await create(c, { valid_until: today });
    const draft = await create(c, { issue_date: plus(-20), valid_until: plus(-1) });
    await ok(move(c, past.id, 'send'));
    await ok(move(c, current.id, 'send'));
    // Past valid_until, before the sweep has run: refused.
    const late = await accept(c, past.id);
    expect(late.response.status).toBe(409);
    expect(late.error).toMatchObject({ code: 'invalid_transition', field: 'status' });

    const db = testDb();
    const run = <T>(fn: (tx: Db) => Promise<T>) => db.prisma.$transaction((tx) => fn(tx));
    const [m1, m2] = await Promise.all([expireQuotes(run, today, 1), expireQuotes(run, today, 1)]);
    expect(m1 + m2).toBeGreaterThanOrEqual(1);
    await expireQuotes(run, today);
    const status = async (id: string) => (await ok(c.GET('/quotes/{id}', path(id)))).data.status;
    expect([await status(past.id), await status(current.id), await status(draft.id)]).toEqual(['expired', 'sent', 'draft']);
    expect(await events(past.id)).toEqual(['quote.created', 'quote.sent', 'quote.expired']);
  });

  it('the PDF is a Danish tilbud', async () => {
    const c = (await t.newKey()).api;
    const quote = await create(c, { notes: 'Montage udføres i uge 50' });
    const sent = (await ok(move(c, quote.id, 'send'))).data;
    const r = await c.GET('/quotes/{id}/pdf', { ...path(quote.id), parseAs: 'arrayBuffer' });
    expect(r.response.status).toBe(200);
    expect(r.response.headers.get('content-disposition')).toBe(`inline; filename="tilbud-${sent.quote_number}.pdf"`);
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(r.data!)), { mergePages: true });
    const flat = text.replace(/\s+/g, ' ');
    for (const expected of [
      'TILBUD',
      `Tilbudsnr. ${sent.quote_number}`,
      'Tilbud til',
      'Kunde A/S',
      'Tilbudsfirma ApS',
      'Montage',
      '1.102,50',
      `Tilbuddet er gældende til og med ${plus(30).split('-').reverse().join('.')}`,
      'Montage udføres i uge 50',
    ]) {
      expect(flat).toContain(expected);
    }
    expect(flat).not.toContain('FAKTURA');
  });
});

describe('quotes in the control trail', () => {
  // Decision 800: a quote is recorded as an invoice is, who and when on the resource, and each move in GET /audit-trail.
  it('records who made each quote and every move: created, updated, sent, accepted, declined, expired by the job, deleted', async () => {
    const { api: c } = await t.newKey();
    const trail = async (id: string) =>
      (await ok(t.api.GET('/audit-trail', { params: { query: { resource_id: id, order: 'asc' } } }))).data.map((e) => [
        e.resource_type,
        e.action,
        e.registered_by.type,
      ]);
    const q = await create(c);
    expect(q.registered_by).toMatchObject({ type: 'api_key', id: expect.any(String), name: expect.any(String) });
    expect(Date.parse(q.registered_at)).toBeGreaterThan(0);
    await ok(c.PUT('/quotes/{id}', { ...path(q.id), body: { notes: 'Ændret' } }));
    await ok(move(c, q.id, 'send'));
    await ok(accept(c, q.id));
    // Who registered it stays, whatever changed since.
    expect((await ok(t.api.GET('/quotes/{id}', path(q.id)))).data.registered_by).toEqual(q.registered_by);
    expect(await trail(q.id)).toEqual([
      ['quote', 'created', 'api_key'],
      ['quote', 'updated', 'api_key'],
      ['quote', 'sent', 'api_key'],
      ['quote', 'accepted', 'api_key'],
    ]);
    const [updated] = (await ok(t.api.GET('/audit-trail', { params: { query: { resource_id: q.id, action: 'updated' } } }))).data;
    expect(updated!.changes).toMatchObject({ notes: ['', 'Ændret'] });

    const declined = await create(c);
    await ok(move(c, declined.id, 'send'));
    await ok(move(c, declined.id, 'decline'));
    expect((await trail(declined.id)).map((e) => e[1])).toEqual(['created', 'sent', 'declined']);

    const gone = await create(c);
    await ok(c.DELETE('/quotes/{id}', path(gone.id)));
    expect((await trail(gone.id)).map((e) => e[1])).toEqual(['created', 'deleted']);

    const late = await create(c, { issue_date: plus(-20), valid_until: plus(-1) });
    await ok(move(c, late.id, 'send'));
    const db = testDb();
    // As the worker runs it: the job's transactions are tlr's own (system).
    await expireQuotes(
      asSystem((fn) => db.prisma.$transaction((tx) => fn(tx)), 'expire-quotes', 'tlr: quote expiry'),
      today,
    );
    expect((await trail(late.id)).at(-1)).toEqual(['quote', 'expired', 'system']);
    expect((await ok(t.api.GET('/audit-trail', { params: { query: { type: 'quote', action: 'expired' } } }))).data.map((e) => e.resource_id)).toContain(
      late.id,
    );
  });
});
