// The directory transport's inbox feeds the same import as POST /einvoices/inbound:
// an invoice the access point leaves there is imported into the company its buyer's endpoint names and
// moved to processed/; one for nobody here, or breaking the rules, goes to refused/; the same document
// twice is imported once, and answered "received" once, through the outbox. On a database of its own: its worker reads this file's inbox.
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dropFile } from './einvoice-helpers.ts';
import { api, newCompany, ok, ownDatabase, startTestService, waitFor, type Api } from './helpers.ts';
import type { Service } from '../src/service.ts';

let own: Awaited<ReturnType<typeof ownDatabase>>;
let svc: Service;
let c: Api;
let company: Awaited<ReturnType<typeof newCompany>>;
let folder: string;
let inbox: string;

beforeAll(async () => {
  own = await ownDatabase('einvoice_inbox');
  folder = await mkdtemp(join(tmpdir(), 'tlr-einvoice-inbox-'));
  inbox = join(folder, 'inbox');
  svc = await startTestService({
    DATABASE_URL: own.url,
    RUN_WORKER: 'true',
    EINVOICE_TRANSPORT: 'directory',
    EINVOICE_OUTBOX_DIR: join(folder, 'outbox'),
    EINVOICE_INBOX_DIR: inbox,
    EINVOICE_INBOX_POLL_MS: '200',
  });
  // No peppol_id of its own: it is addressed as 0184:<CVR> (decision 206).
  company = await newCompany('Indbakke ApS', '12345674', own.db);
  c = api(svc.url, (await company.key()).key);
});
afterAll(async () => {
  await svc?.stop();
  await own?.drop();
  if (folder) await rm(folder, { recursive: true, force: true });
});

const example = readFileSync(join(import.meta.dirname, '../../../packages/domain/src/einvoice/examples/base-example.xml'), 'utf8');
/** Peppol's example, addressed to `endpoint` (scheme:id) as its buyer. */
const addressedTo = (endpoint: string) => {
  const [scheme, id] = endpoint.split(':');
  const xml = example.replace(/(<cac:AccountingCustomerParty>\s*<cac:Party>\s*<cbc:EndpointID schemeID=")[^"]*">[^<]*</, `$1${scheme}">${id}<`);
  expect(xml).not.toBe(example);
  return xml;
};
const files = async (sub: string) => readdir(join(inbox, sub)).catch(() => [] as string[]);

it('imports an invoice the access point received into the company its buyer endpoint names, once; refuses one for nobody here', async () => {
  await dropFile(inbox, 'received-1.xml', addressedTo('0184:12345674'));
  await dropFile(inbox, 'nobody.xml', addressedTo('0184:29190925'));
  await dropFile(
    inbox,
    'broken.xml',
    addressedTo('0184:12345674').replace('<cbc:PayableAmount currencyID="EUR">1656.25<', '<cbc:PayableAmount currencyID="EUR">1.00<'),
  );
  await waitFor(async () => (await files('processed')).includes('received-1.xml') && (await files('refused')).length === 2, 30_000);
  expect((await files('refused')).sort()).toEqual(['broken.xml', 'nobody.xml']);
  const received = await ok(c.GET('/einvoices', { params: { query: { direction: 'inbound' } } }));
  expect(received.data).toHaveLength(1);
  const m = received.data[0]!;
  expect(m).toMatchObject({ status: 'received', document_number: 'Snippet1', total_amount: 1656.25, receiver: '0184:12345674' });
  const expense = (await ok(c.GET('/expenses/{id}', { params: { path: { id: m.expense_id! } } }))).data;
  expect([expense.status, expense.amount, expense.currency, expense.supplier_id]).toEqual(['draft', 1656.25, 'EUR', m.supplier_id]);

  // The sender hears "received" through the same transport: a Peppol Invoice Response in the outbox, sent.
  const answered = async () => (await ok(c.GET('/einvoices', { params: { query: { direction: 'outbound' } } }))).data;
  const [response] = await waitFor(async () => {
    const sent = await answered();
    return sent.length === 1 && sent[0]!.status === 'sent' && sent;
  }, 30_000);
  expect(response).toMatchObject({
    document_kind: 'application_response',
    application_response: { responds_to: m.id, status: 'received' },
    receiver: m.sender,
  });
  const written = await readFile(join(folder, 'outbox', `${response!.id}.xml`), 'utf8');
  expect(written).toContain('<cbc:ResponseCode>AB</cbc:ResponseCode>');

  // The same document again (the access point delivered it twice): processed, not imported again, not answered again.
  await dropFile(inbox, 'received-2.xml', addressedTo('0184:12345674'));
  await waitFor(async () => (await files('processed')).includes('received-2.xml'), 30_000);
  expect((await ok(c.GET('/einvoices', {}))).meta.total).toBe(2);
  expect(await answered()).toHaveLength(1);
});
