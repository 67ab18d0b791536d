// A customer's einvoice_format auto, through HTTP against PostgreSQL with the directory transport: the
// access point's receiver registry (receivers.json beside the outbox) decides: OIOUBL to an OIOUBL-only
// receiver, Peppol BIS 3 to a Peppol-only one, and a 422 naming the receiver, with nothing queued, to one
// that takes neither. A reminder of the invoice sent as OIOUBL goes out once as an OIOUBL Reminder that the
// official OIOUBL rules accept (decisions 691 to 698). On a database of its own: its worker writes into
// this file's folders.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, InvoiceReminder } from '@tlr/db';
import { queueReminderEinvoice, validateEinvoice } from '@tlr/domain';
import { api, bodyOf, created, idem, newCompany, ok, ownDatabase, startTestService, waitFor, type Api } from './helpers.ts';
import type { Service } from '../src/service.ts';

let own: Awaited<ReturnType<typeof ownDatabase>>;
let svc: Service;
let c: Api;
let folder: string;
let outbox: string;
let companyId: string;
let key: string;

const OIOUBL_ONLY = '0088:5790000436101';
const PEPPOL_ONLY = '0184:29190925';
/** Listed, but for OIOUBL reminders only: it takes no invoice in either format. */
const NEITHER = '0184:30000005';

beforeAll(async () => {
  own = await ownDatabase('einvoice_auto');
  folder = await mkdtemp(join(tmpdir(), 'tlr-einvoice-auto-'));
  outbox = join(folder, 'outbox');
  // The access point's registry, beside its folders (the default place: the outbox's parent folder).
  await writeFile(
    join(folder, 'receivers.json'),
    JSON.stringify({ receivers: { [OIOUBL_ONLY]: ['oioubl-2.1'], [PEPPOL_ONLY]: ['peppol-bis3'], [NEITHER]: ['oioubl-2.1:reminder'] } }),
  );
  svc = await startTestService({
    DATABASE_URL: own.url,
    RUN_WORKER: 'true',
    EINVOICE_TRANSPORT: 'directory',
    EINVOICE_OUTBOX_DIR: outbox,
    EINVOICE_INBOX_DIR: join(folder, 'inbox'),
    EINVOICE_INBOX_POLL_MS: '60000',
  });
  const company = await newCompany('Auto Afsender ApS', '12345674', own.db);
  companyId = company.companyId;
  key = (await company.key()).key;
  c = api(svc.url, key);
  await ok(
    c.PUT('/settings/company', {
      body: {
        address_line1: 'Vestergade 12',
        postal_code: '8000',
        city: 'Aarhus C',
        bank_reg_number: '1234',
        bank_account_number: '0001234567',
        reminder_fee_enabled: true,
        reminder_fee: 100,
        reminder_interest_enabled: true,
        reminder_reference_rate: '1.60',
      },
    }),
  );
}, 120_000);
afterAll(async () => {
  await svc?.stop();
  await own?.drop();
  if (folder) await rm(folder, { recursive: true, force: true });
});

interface Message {
  id: string;
  document_kind: string;
  document_format: string;
  document_number: string;
  status: string;
  receiver: string;
  reminder: { number: number } | null;
}

async function autoCustomer(name: string, peppolId: string, extra: Record<string, unknown> = {}) {
  const body = { name, peppol_id: peppolId, einvoice_format: 'auto', ...extra };
  return (await created(c.POST('/customers', { params: idem(), body: body as { name: string } }))).data.id;
}

/** An approved invoice of 10,000.00 + VAT, due 2026-09-15. */
async function invoice(customerId: string) {
  const body = {
    customer_id: customerId,
    issue_date: '2026-09-01',
    due_date: '2026-09-15',
    lines: [{ description: 'Rådgivning', quantity: 10, unit: 'HUR', unit_price: 1000 }],
    auto_approve: true,
  };
  return (await created(c.POST('/invoices', { params: idem(), body: body as never }))).data;
}

const send = (id: string) => c.POST('/invoices/{id}/send', { params: { path: { id }, ...idem() }, body: { channel: 'peppol' } });
const outbound = async () => (await ok(c.GET('/einvoices', { params: { query: { direction: 'outbound', per_page: 100 } } }))).data as unknown as Message[];
const sentFile = async (id: string) => {
  await waitFor(async () => (await outbound()).find((m) => m.id === id)?.status === 'sent');
  return readFile(join(outbox, `${id}.xml`), 'utf8');
};

describe('einvoice_format auto', () => {
  it("sends OIOUBL to an OIOUBL-only receiver and Peppol BIS 3 to a Peppol-only one, by the transport's registry; refuses one that takes neither, queuing nothing", async () => {
    const oioublInvoice = await invoice(await autoCustomer('Region Midtjylland', OIOUBL_ONLY, { ean: '5790000436101' }));
    const oioubl = bodyOf(202, await send(oioublInvoice.id)).data as unknown as Message;
    expect([oioubl.document_format, oioubl.receiver]).toEqual(['oioubl-2.1', OIOUBL_ONLY]);
    expect(await sentFile(oioubl.id)).toContain('<cbc:CustomizationID>OIOUBL-2.1</cbc:CustomizationID>');

    const peppolInvoice = await invoice(await autoCustomer('Peppol Kunde ApS', PEPPOL_ONLY, { cvr: '29190925' }));
    const peppol = bodyOf(202, await send(peppolInvoice.id)).data as unknown as Message;
    expect([peppol.document_format, peppol.receiver]).toEqual(['peppol-bis3', PEPPOL_ONLY]);
    expect(await sentFile(peppol.id)).toContain('urn:fdc:peppol.eu:2017:poacc:billing:3.0');

    const neither = await invoice(await autoCustomer('Ingen Format ApS', NEITHER, { cvr: '30000005' }));
    const before = (await outbound()).length;
    const refused = await send(neither.id);
    expect(refused.response.status).toBe(422);
    expect(refused.error).toMatchObject({ code: 'einvoice_receiver_unsupported', field: 'customer_id', receiver: NEITHER });
    expect((refused.error as { detail: string }).detail).toContain(`receiver ${NEITHER} takes neither Peppol BIS Billing 3.0 nor OIOUBL 2.1 invoices`);
    expect((await outbound()).length).toBe(before);
    expect((await ok(c.GET('/invoices/{id}', { params: { path: { id: neither.id } } }))).data.einvoice).toBeNull();

    // A reminder of the invoice sent as OIOUBL goes the same way, once; one of the Peppol-sent invoice does not.
    const remind = (id: string, date: string, key?: string) =>
      c.POST('/invoices/{id}/reminders', { params: { path: { id }, ...idem(key) }, body: { date } as never });
    bodyOf(201, await remind(oioublInvoice.id, '2026-09-25', 'rykker-1'));
    // The same request again is its stored answer: no second reminder, no second message.
    expect((await remind(oioublInvoice.id, '2026-09-25', 'rykker-1')).response.headers.get('X-Idempotency-Replayed')).toBe('true');
    bodyOf(201, await remind(oioublInvoice.id, '2026-10-05'));
    bodyOf(201, await remind(peppolInvoice.id, '2026-09-25'));
    const reminders = (await outbound()).filter((m) => m.document_kind === 'reminder');
    expect(reminders.map((m) => [m.document_number, m.reminder?.number, m.document_format, m.receiver]).sort()).toEqual([
      [`${oioublInvoice.invoice_number}-R1`, 1, 'oioubl-2.1', OIOUBL_ONLY],
      [`${oioublInvoice.invoice_number}-R2`, 2, 'oioubl-2.1', OIOUBL_ONLY],
    ]);
    // Each reminder shows its e-invoice; the Peppol invoice's went as a PDF only.
    const listed = (id: string) => c.GET('/invoices/{id}/reminders', { params: { path: { id } } });
    const shown = (await ok(listed(oioublInvoice.id))).data;
    expect(shown.map((r) => [r.number, r.einvoice?.message_id]).sort()).toEqual([1, 2].map((n) => [n, reminders.find((m) => m.reminder?.number === n)!.id]));
    expect((await ok(listed(peppolInvoice.id))).data.map((r) => r.einvoice)).toEqual([null]);
    // Queued again (a job retried after its commit was lost): the unique (invoice, kind, reminder number) keeps it one message.
    const first = (await own.db.pool.query<InvoiceReminder>(`SELECT * FROM invoice_reminders WHERE invoice_id = $1 AND number = 1`, [oioublInvoice.id]))
      .rows[0]!;
    expect(await queueReminderEinvoice(own.db.prisma as Db, { companyId, livemode: true }, oioublInvoice.id, first, [])).toBeNull();
    expect((await outbound()).filter((m) => m.document_kind === 'reminder')).toHaveLength(2);
    const second = reminders.find((m) => m.reminder?.number === 2)!;
    const xml = await sentFile(second.id);
    const download = await fetch(`${svc.url}/api/v1/einvoices/${second.id}/xml`, { headers: { 'X-API-Key': key } });
    expect(download.headers.get('content-disposition')).toContain(`rykker-${oioublInvoice.invoice_number}-R2-2026-10-05.xml`);
    expect(await download.text()).toBe(xml);
    expect(xml).toMatch(/^<\?xml[^>]*\?><Reminder xmlns="urn:oasis:names:specification:ubl:schema:xsd:Reminder-2"/);
    // The official OIOUBL rules (schematron 1.17.2, Reminder) accept it: no <Error>.
    expect((await validateEinvoice(xml, 'oioubl-reminder')).fatal).toEqual([]);
    // 12,500.00 open; rykker 1 charged 100.00 + 12,500.00 × 9.60 % × 10 / 365 = 32.88; rykker 2 the same again.
    expect(xml).toContain('<cbc:PayableAmount currencyID="DKK">12765.76</cbc:PayableAmount>');
  }, 300_000);

  it("sends on approval in the receiver's format, and passes by a receiver that takes neither: the approval stands", async () => {
    await ok(c.PUT('/settings/company', { body: { einvoice_auto_send: true } }));
    const toOioubl = await invoice(await autoCustomer('Region Syddanmark', OIOUBL_ONLY, { ean: '5790000436101' }));
    const toNeither = await invoice(await autoCustomer('Stadig Ingen ApS', NEITHER, { cvr: '30000005' }));
    expect(toNeither.status).toBe('approved');
    const messages = await outbound();
    expect(messages.filter((m) => m.document_kind === 'invoice' && m.document_number === toOioubl.invoice_number).map((m) => m.document_format)).toEqual([
      'oioubl-2.1',
    ]);
    expect(messages.filter((m) => m.document_number === toNeither.invoice_number)).toEqual([]);
  });
});
