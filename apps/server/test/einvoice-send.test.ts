// Sending e-invoices through the directory transport, through HTTP against
// PostgreSQL: the document appears in the outbox whole, the access point's receipts and
// ApplicationResponses in the inbox are recorded against it, approval sends when the company asks,
// and what cannot be sent is refused by name. On a database of its own: its worker's transport writes
// into this file's folders, so it must not take other files' jobs, nor they its.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderInvoiceUbl, useUblRenderer, type RenderUbl } from '@tlr/domain';
import { applicationResponse, dropFile, fixtureUbl, invoiceFor, peppolCustomer, sendInvoice } from './einvoice-helpers.ts';
import { api, bodyOf, client, idem, newCompany, ok, ownDatabase, startTestService, waitFor, type Api } from './helpers.ts';
import type { Service } from '../src/service.ts';

let own: Awaited<ReturnType<typeof ownDatabase>>;
let svc: Service;
let c: Api;
let key: string;
let company: Awaited<ReturnType<typeof newCompany>>;
let folder: string;
let outbox: string;
let inbox: string;
let renderer: RenderUbl;
const EAN = '0088:5790000436101';

beforeAll(async () => {
  own = await ownDatabase('einvoice_send');
  folder = await mkdtemp(join(tmpdir(), 'tlr-einvoice-'));
  [outbox, inbox] = [join(folder, 'outbox'), join(folder, 'inbox')];
  renderer = useUblRenderer(fixtureUbl);
  svc = await startTestService({
    DATABASE_URL: own.url,
    RUN_WORKER: 'true',
    EINVOICE_TRANSPORT: 'directory',
    EINVOICE_OUTBOX_DIR: outbox,
    EINVOICE_INBOX_DIR: inbox,
    EINVOICE_INBOX_POLL_MS: '200',
  });
  company = await newCompany('Peppol Afsender ApS', undefined, own.db);
  key = (await company.key()).key;
  c = api(svc.url, key);
});
afterAll(async () => {
  await svc?.stop();
  useUblRenderer(renderer);
  await own?.drop();
  if (folder) await rm(folder, { recursive: true, force: true });
});

const message = async (id: string) =>
  (
    await own.db.pool.query<{ status: string; attempts: number; document_xml: string; document_uuid: string; last_response: Record<string, unknown> | null }>(
      `SELECT status, attempts, document_xml, document_uuid, last_response FROM einvoice_messages WHERE id = $1`,
      [id],
    )
  ).rows[0]!;
const statusOf = async (id: string, status: string) => waitFor(async () => (await message(id)).status === status && message(id));
const getInvoice = async (id: string) => (await ok(c.GET('/invoices/{id}', { params: { path: { id } } }))).data;
const eventsOf = async (type: string, id: string) =>
  (await own.db.pool.query(`SELECT 1 FROM outbox_events WHERE company_id = $1 AND type = $2 AND data->>'id' = $3`, [company.companyId, type, id])).rowCount;

/** A sent invoice: queued, written into the outbox and recorded as sent. */
async function sentInvoice(name: string) {
  const invoice = await invoiceFor(c, await peppolCustomer(c, own.db, name, EAN));
  const queued = bodyOf(202, await sendInvoice(c, invoice.id)).data;
  await statusOf(queued.id, 'sent');
  return { invoice, messageId: queued.id, uuid: (await message(queued.id)).document_uuid };
}

describe('the directory transport', () => {
  it('writes the queued document into the outbox whole, and the acceptance makes an approved invoice sent (invoice.sent)', async () => {
    const customerId = await peppolCustomer(c, own.db, 'Region Midtjylland', EAN);
    const invoice = await invoiceFor(c, customerId);
    const key = `send-${invoice.id}`;
    const res = await sendInvoice(c, invoice.id, key);
    const queued = bodyOf(202, res).data;
    expect(queued).toMatchObject({
      invoice_id: invoice.id,
      direction: 'outbound',
      document_kind: 'invoice',
      document_number: invoice.invoice_number,
      channel: 'peppol',
      receiver: EAN,
      status: 'queued',
      attempts: 0,
      last_error: '',
      last_response: null,
    });
    // The same key again is the stored answer, not a second message.
    const again = await sendInvoice(c, invoice.id, key);
    expect(again.response.status).toBe(202);
    expect(again.response.headers.get('X-Idempotency-Replayed')).toBe('true');
    expect(bodyOf(202, again).data.id).toBe(queued.id);

    // Every look at the outbox while it is written sees the document whole or not at all.
    const name = `${queued.id}.xml`;
    const seen: string[] = [];
    await waitFor(async () => {
      const names = await readdir(outbox).catch(() => [] as string[]);
      for (const n of names.filter((n) => n.endsWith('.xml'))) seen.push(await readFile(join(outbox, n), 'utf8'));
      return names.includes(name);
    });
    const sent = await statusOf(queued.id, 'sent');
    expect(new Set(seen)).toEqual(new Set([sent.document_xml]));
    expect(await readFile(join(outbox, name), 'utf8')).toBe(sent.document_xml);
    expect(sent.document_xml).toContain(`<cbc:UUID>${queued.document_uuid}</cbc:UUID>`);
    expect((await readdir(outbox)).filter((n) => !n.startsWith('.'))).toEqual([name]);
    expect(sent).toMatchObject({ attempts: 1, last_response: { source: 'directory', file: name } });

    const shown = await getInvoice(invoice.id);
    expect(shown.status).toBe('sent');
    expect(shown.einvoice).toEqual({ status: 'sent', message_id: queued.id, last_response: { source: 'directory', file: name } });
    expect(await eventsOf('invoice.sent', invoice.id)).toBe(1);
    // The trail names the delivery worker, as it names every job.
    const trail = await svc.db.pool.query(`SELECT actor FROM control_trail WHERE resource_type = 'invoice' AND resource_id = $1 AND action = 'sent'`, [
      invoice.id,
    ]);
    expect(trail.rows).toEqual([{ actor: { type: 'system', id: 'deliver-einvoice', name: 'tlr: e-invoice delivery' } }]);
    const listed = (await ok(c.GET('/invoices', { params: { query: { search: invoice.invoice_number } } }))).data;
    expect(listed.find((i) => i.id === invoice.id)?.einvoice).toMatchObject({ status: 'sent', message_id: queued.id });

    // Sent once: again with another key is refused, naming the message.
    const twice = await sendInvoice(c, invoice.id);
    expect(twice.response.status).toBe(409);
    expect(twice.error).toMatchObject({ code: 'einvoice_exists', message_id: queued.id, current_status: 'sent' });
  });

  it('makes one message of two sends of one invoice at once', async () => {
    const invoice = await invoiceFor(c, await peppolCustomer(c, own.db, 'Samtidig ApS', EAN));
    const answers = await Promise.all([sendInvoice(c, invoice.id), sendInvoice(c, invoice.id)]);
    expect(answers.map((a) => a.response.status).sort()).toEqual([202, 409]);
    expect(answers.find((a) => a.response.status === 409)!.error).toMatchObject({ code: 'einvoice_exists' });
    const { rows } = await own.db.pool.query(`SELECT count(*)::int AS n FROM einvoice_messages WHERE invoice_id = $1`, [invoice.id]);
    expect(rows[0].n).toBe(1);
  });

  it("records the access point's receipt: delivered, with what it said; the file moves to processed/", async () => {
    const { invoice, messageId } = await sentInvoice('Kvittering A/S');
    await dropFile(
      inbox,
      `${messageId}.receipt.json`,
      JSON.stringify({ status: 'delivered', response: { transmission_id: 'oxalis-42', receiver_ap: 'POP000001' } }),
    );
    const delivered = await statusOf(messageId, 'delivered');
    expect(delivered.last_response).toEqual({ source: 'receipt', file: `${messageId}.receipt.json`, transmission_id: 'oxalis-42', receiver_ap: 'POP000001' });
    await waitFor(async () => (await readdir(join(inbox, 'processed')).catch(() => [] as string[])).includes(`${messageId}.receipt.json`));
    expect(await readdir(inbox)).not.toContain(`${messageId}.receipt.json`);
    expect((await getInvoice(invoice.id)).einvoice).toMatchObject({ status: 'delivered', last_response: { transmission_id: 'oxalis-42' } });
  });

  it('records a rejecting ApplicationResponse that names the document UUID; the rejected message can be replayed', async () => {
    const { invoice, messageId, uuid } = await sentInvoice('Afvisning ApS');
    await dropFile(inbox, `response-${uuid}.xml`, applicationResponse(uuid, 'RE', 'Ukendt ordrereference'));
    const rejected = await statusOf(messageId, 'rejected');
    expect(rejected.last_response).toMatchObject({
      source: 'application_response',
      code: 'RE',
      description: 'Ukendt ordrereference',
      issue_date: '2026-11-21',
    });
    const shown = await getInvoice(invoice.id);
    // The invoice was sent all the same: the access point took it, its receiver refused it.
    expect(shown.status).toBe('sent');
    expect(shown.einvoice).toMatchObject({ status: 'rejected', message_id: messageId, last_response: { code: 'RE' } });

    // Replayed: the same document again, from the start of the schedule.
    const replayed = bodyOf(202, await c.POST('/einvoices/{id}/replay', { params: { path: { id: messageId }, ...idem() } })).data;
    expect(replayed).toMatchObject({ id: messageId, status: 'queued', attempts: 0 });
    const again = await statusOf(messageId, 'sent');
    expect(again.document_uuid).toBe(uuid);
    const acknowledged = applicationResponse(uuid, 'AP', 'Godkendt');
    await dropFile(inbox, `response-${uuid}-2.xml`, acknowledged);
    expect((await statusOf(messageId, 'delivered')).last_response).toMatchObject({ code: 'AP' });
  });

  it('moves an answer it cannot use, and an incoming document the import refuses, to refused/', async () => {
    const stranger = '11111111-2222-4333-8444-555555555555';
    await dropFile(inbox, `${stranger}.receipt.json`, JSON.stringify({ status: 'delivered' }));
    await dropFile(inbox, 'garbled.receipt.json', '{"status": "maybe"}');
    // Not an e-invoice the import takes (no CustomizationID): einvoice-inbox.test.ts imports real ones.
    await dropFile(inbox, 'incoming-invoice.xml', '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><ID>1</ID></Invoice>');
    await waitFor(async () => (await readdir(join(inbox, 'refused')).catch(() => [] as string[])).length === 3);
    expect((await readdir(join(inbox, 'refused'))).sort()).toEqual([`${stranger}.receipt.json`, 'garbled.receipt.json', 'incoming-invoice.xml']);
  });
});

describe('credit notes', () => {
  it("sends a cancelled invoice's credit note as a Peppol CreditNote naming the invoice, once; the invoice stays cancelled", async () => {
    // The real renderer, which makes the CreditNote (the fixture makes an Invoice of any document);
    // it addresses the seller by its CVR.
    const seller = await newCompany('Kreditnota Afsender ApS', '12345674', own.db);
    const s = api(svc.url, (await seller.key()).key);
    const fixture = useUblRenderer(renderInvoiceUbl);
    try {
      const invoice = await invoiceFor(s, await peppolCustomer(s, own.db, 'Krediteret A/S', EAN));
      // Not cancelled yet: it has no credit note to send.
      const early = await sendInvoice(s, invoice.id, undefined, 'credit_note');
      expect(early.response.status).toBe(409);
      expect(early.error).toMatchObject({ code: 'invoice_not_sendable', current_status: 'approved' });
      expect(early.error?.detail).toMatch(/no credit note/);

      const sent = bodyOf(202, await sendInvoice(s, invoice.id)).data;
      await statusOf(sent.id, 'sent');
      const cancelled = (await ok(s.PUT('/invoices/{id}/status', { params: { path: { id: invoice.id } }, body: { status: 'cancelled' } }))).data;
      const note = cancelled.credit_note!;
      expect(note.einvoice).toBeNull();

      const queued = bodyOf(202, await sendInvoice(s, invoice.id, undefined, 'credit_note')).data;
      expect(queued).toMatchObject({
        invoice_id: invoice.id,
        document_kind: 'credit_note',
        document_number: note.credit_note_number,
        receiver: EAN,
        status: 'queued',
        document_uuid: note.id,
      });
      const accepted = await statusOf(queued.id, 'sent');
      const xml = await readFile(join(outbox, `${queued.id}.xml`), 'utf8');
      expect(xml).toBe(accepted.document_xml);
      expect(xml).toMatch(/^<\?xml[^>]*\?><CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"/);
      expect(xml).toContain(`<cbc:ID>${note.credit_note_number}</cbc:ID>`);
      expect(xml).toContain(
        `<cac:BillingReference><cac:InvoiceDocumentReference><cbc:ID>${invoice.invoice_number}</cbc:ID><cbc:IssueDate>2026-11-20</cbc:IssueDate></cac:InvoiceDocumentReference></cac:BillingReference>`,
      );

      // The credit note's acceptance leaves the invoice cancelled, with its one invoice.sent (of its own document).
      const shown = await ok(s.GET('/invoices/{id}', { params: { path: { id: invoice.id } } }));
      expect(shown.data.status).toBe('cancelled');
      expect(shown.data.einvoice).toMatchObject({ status: 'sent', message_id: sent.id });
      expect(shown.data.credit_note?.einvoice).toEqual({
        status: 'sent',
        message_id: queued.id,
        last_response: { source: 'directory', file: `${queued.id}.xml` },
      });
      const { rows } = await own.db.pool.query(
        `SELECT count(*)::int AS n FROM outbox_events WHERE company_id = $1 AND type = 'invoice.sent' AND data->>'id' = $2`,
        [seller.companyId, invoice.id],
      );
      expect(rows[0].n).toBe(1);

      // Each document once: the credit note again is refused, naming its message; the invoice, cancelled, is not sent.
      const twice = await sendInvoice(s, invoice.id, undefined, 'credit_note');
      expect(twice.response.status).toBe(409);
      expect(twice.error).toMatchObject({ code: 'einvoice_exists', message_id: queued.id, current_status: 'sent' });
      expect(twice.error?.detail).toMatch(/credit note/);
      const again = await sendInvoice(s, invoice.id);
      expect(again.error).toMatchObject({ code: 'invoice_not_sendable', current_status: 'cancelled' });
    } finally {
      useUblRenderer(fixture);
    }
  });

  it('sends the credit note of an invoice cancelled before it was ever sent', async () => {
    const invoice = await invoiceFor(c, await peppolCustomer(c, own.db, 'Aldrig Sendt ApS', EAN));
    await ok(c.PUT('/invoices/{id}/status', { params: { path: { id: invoice.id } }, body: { status: 'cancelled' } }));
    const queued = bodyOf(202, await sendInvoice(c, invoice.id, undefined, 'credit_note')).data;
    await statusOf(queued.id, 'sent');
    const shown = await getInvoice(invoice.id);
    expect(shown.status).toBe('cancelled');
    expect(shown.einvoice).toBeNull();
    expect(shown.credit_note?.einvoice).toMatchObject({ status: 'sent', message_id: queued.id });
    expect(await eventsOf('invoice.sent', invoice.id)).toBe(0);
  });
});

describe('sending on approval', () => {
  it('queues every invoice approved while einvoice_auto_send is on, for customers with a peppol_id', async () => {
    const settings = (await ok(c.PUT('/settings/company', { body: { einvoice_auto_send: true } }))).data;
    expect(settings.einvoice_auto_send).toBe(true);
    try {
      const withId = await peppolCustomer(c, own.db, 'Automatisk A/S', '0184:29190925');
      const created = await invoiceFor(c, withId);
      const drafted = await invoiceFor(c, withId, false);
      const approved = (await ok(c.PUT('/invoices/{id}/status', { params: { path: { id: drafted.id } }, body: { status: 'approved' } }))).data;
      const without = await invoiceFor(c, await peppolCustomer(c, own.db, 'Papir ApS'));

      for (const id of [created.id, approved.id]) {
        const shown = await waitFor(async () => {
          const i = await getInvoice(id);
          return i.status === 'sent' && i.einvoice?.status === 'sent' && i;
        });
        expect(await readdir(outbox)).toContain(`${shown.einvoice!.message_id}.xml`);
      }
      expect(approved.einvoice).toMatchObject({ status: 'queued' });
      expect((await getInvoice(without.id)).einvoice).toBeNull();
    } finally {
      await ok(c.PUT('/settings/company', { body: { einvoice_auto_send: false } }));
    }
    // Off again: approving sends nothing.
    const quiet = await invoiceFor(c, await peppolCustomer(c, own.db, 'Manuel ApS', EAN));
    expect((await getInvoice(quiet.id)).einvoice).toBeNull();
  });
});

describe('refusals', () => {
  it('refuses a draft, a cancelled invoice and a customer without peppol_id by name, and a wrong body, key or scope', async () => {
    const customerId = await peppolCustomer(c, own.db, 'Afvist ApS', EAN);
    const draft = await invoiceFor(c, customerId, false);
    const r1 = await sendInvoice(c, draft.id);
    expect(r1.response.status).toBe(409);
    expect(r1.error).toMatchObject({ code: 'invoice_not_sendable', current_status: 'draft' });

    const cancelled = await invoiceFor(c, customerId);
    await ok(c.PUT('/invoices/{id}/status', { params: { path: { id: cancelled.id } }, body: { status: 'cancelled' } }));
    const r2 = await sendInvoice(c, cancelled.id);
    expect(r2.response.status).toBe(409);
    expect(r2.error).toMatchObject({ code: 'invoice_not_sendable', current_status: 'cancelled' });

    const paper = await invoiceFor(c, await peppolCustomer(c, own.db, 'Uden Peppol ApS'));
    const r3 = await sendInvoice(c, paper.id);
    expect(r3.response.status).toBe(422);
    expect(r3.error).toMatchObject({ code: 'peppol_id_required', field: 'customer_id' });
    expect(r3.error?.detail).toContain('Uden Peppol ApS');
    // BEK 97/2023 annex 2: the sender is prompted to have the customer register in NemHandel.
    expect(r3.error?.detail).toMatch(/NemHandelsregistret/);

    const ready = await invoiceFor(c, customerId);
    const raw = client(svc.url, key);
    const wrongChannel = await raw.post(`/invoices/${ready.id}/send`, { channel: 'fax' });
    expect(wrongChannel.status).toBe(400);
    expect(wrongChannel.body).toMatchObject({ code: 'invalid_request', field: 'channel' });
    const noKey = await raw.post(`/invoices/${ready.id}/send`, { channel: 'peppol' }, {});
    expect(noKey.status).toBe(400);
    expect(noKey.body.detail).toMatch(/Idempotency-Key/);
    const reader = api(svc.url, (await company.key(['invoices:read'])).key);
    expect((await sendInvoice(reader, ready.id)).response.status).toBe(403);
    const other = await newCompany('Fremmed ApS', undefined, own.db);
    expect((await sendInvoice(api(svc.url, (await other.key()).key), ready.id)).response.status).toBe(404);
    expect(await own.db.pool.query(`SELECT 1 FROM einvoice_messages WHERE invoice_id = ANY($1)`, [[draft.id, cancelled.id, paper.id, ready.id]])).toMatchObject(
      {
        rowCount: 0,
      },
    );

    // Replay: only a failed or rejected message, of the caller's company.
    const { messageId } = await sentInvoice('Genafsendt ApS');
    const r4 = await c.POST('/einvoices/{id}/replay', { params: { path: { id: messageId } } });
    expect(r4.response.status).toBe(409);
    expect(r4.error).toMatchObject({ code: 'einvoice_not_replayable', current_status: 'sent' });
    const r5 = await api(svc.url, (await other.key()).key).POST('/einvoices/{id}/replay', { params: { path: { id: messageId } } });
    expect(r5.response.status).toBe(404);
  });
});

describe('test mode', () => {
  it('sends nothing to the access point for a sandbox: the document counts as accepted at once; a reset removes it', async () => {
    const sandbox = api(svc.url, (await company.key(undefined, 'test')).key);
    const invoice = await invoiceFor(sandbox, await peppolCustomer(sandbox, own.db, 'Sandkasse ApS', EAN));
    const queued = bodyOf(202, await sendInvoice(sandbox, invoice.id)).data;
    const sent = await statusOf(queued.id, 'sent');
    expect(sent.last_response).toMatchObject({ source: 'sandbox' });
    expect(await readdir(outbox)).not.toContain(`${queued.id}.xml`);
    expect((await ok(sandbox.GET('/invoices/{id}', { params: { path: { id: invoice.id } } }))).data.status).toBe('sent');

    // A reset empties the sandbox of its e-invoices with its invoices.
    await ok(sandbox.POST('/sandbox/reset'));
    expect((await own.db.pool.query(`SELECT 1 FROM einvoice_messages WHERE id = $1`, [queued.id])).rowCount).toBe(0);
  });
});
