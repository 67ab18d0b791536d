// E-invoice delivery through the http transport against a local stand-in for an access point, with
// the guarantees of webhook delivery: retries on the webhook schedule and then the dead letter
// (failed), replay, a refusal that is not retried, and a worker process killed (SIGKILL) mid-send
// losing nothing: its leased messages are sent again once the lease has run out (a short one here,
// from a short EINVOICE_HANDOVER_TIMEOUT_MS). On a database of its own, like webhook-faults.test.ts:
// the workers it starts and kills take only its jobs.
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useUblRenderer, type RenderUbl } from '@tlr/domain';
import { accessPointStandIn, fixtureUbl, invoiceFor, peppolCustomer, sendInvoice } from './einvoice-helpers.ts';
import { api, bodyOf, idem, newCompany, ok, ownDatabase, startServerProcess, startTestService, waitFor, type Api } from './helpers.ts';
import type { Service } from '../src/service.ts';

let own: Awaited<ReturnType<typeof ownDatabase>>;
let svc: Service;
let c: Api;
let renderer: RenderUbl;
let ap: Awaited<ReturnType<typeof accessPointStandIn>>;
const stops: (() => unknown)[] = [];
const TOKEN = 'ap-token-for-tests';
const UNIT = 50; // one "minute" of the retry schedule, in ms

beforeAll(async () => {
  own = await ownDatabase('einvoice_faults');
  stops.push(() => own.drop());
  ap = await accessPointStandIn();
  stops.push(ap.close);
  // This process's service has no worker: it takes the requests and renders the documents (the
  // fixture renderer lives here); the worker processes deliver them.
  renderer = useUblRenderer(fixtureUbl);
  stops.push(() => useUblRenderer(renderer));
  svc = await startTestService({ DATABASE_URL: own.url });
  stops.push(() => svc.stop());
  const company = await newCompany('Peppol Nedbrud ApS', undefined, own.db);
  c = api(svc.url, (await company.key()).key);
});
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});

/** A worker process delivering through the http transport to the stand-in, with settings of `env` besides. */
async function worker(env: Record<string, string> = {}) {
  const w = await startServerProcess({
    DATABASE_URL: own.url,
    RUN_WORKER: 'true',
    EINVOICE_TRANSPORT: 'http',
    EINVOICE_HTTP_URL: ap.url,
    EINVOICE_HTTP_TOKEN: TOKEN,
    WEBHOOK_RETRY_UNIT_MS: String(UNIT),
    LOG_LEVEL: 'silent',
    ...env,
  });
  stops.push(() => stopped(w.proc));
  return w.proc;
}
/** Ends a worker gracefully (SIGTERM), if it still runs. */
const stopped = (proc: ChildProcess) =>
  new Promise<void>((exited) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return exited();
    proc.once('exit', () => exited());
    proc.kill('SIGTERM');
  });

const message = async (id: string) =>
  (
    await own.db.pool.query<{ status: string; attempts: number; last_error: string; document_xml: string; last_response: Record<string, unknown> | null }>(
      `SELECT status, attempts, last_error, document_xml, last_response FROM einvoice_messages WHERE id = $1`,
      [id],
    )
  ).rows[0]!;
const settled = (id: string, status: string, ms = 30_000) => waitFor(async () => (await message(id)).status === status && message(id), ms);
const handedFor = (id: string) => ap.got.filter((h) => h.headers['idempotency-key'] === id);
const invoiceStatus = async (id: string) => (await ok(c.GET('/invoices/{id}', { params: { path: { id } } }))).data;

async function queued(name: string) {
  const invoice = await invoiceFor(c, await peppolCustomer(c, own.db, name, '0088:5790000436101'));
  return { invoice, id: bodyOf(202, await sendInvoice(c, invoice.id)).data.id };
}

let first: ChildProcess;

it('retries an access point that fails on the webhook schedule, then leaves the message failed (dead letter); a replay sends it', async () => {
  first = await worker();
  ap.answer(() => 503);
  const { invoice, id } = await queued('Utilgængelig A/S');
  const failed = await settled(id, 'failed');
  expect(failed).toMatchObject({ attempts: 8, last_error: 'the access point answered 503', last_response: { source: 'http', status: 503 } });
  const tries = handedFor(id);
  expect(tries).toHaveLength(8);
  for (const h of tries) {
    expect(h.headers).toMatchObject({ authorization: `Bearer ${TOKEN}`, 'content-type': 'application/xml' });
    expect(h.body).toBe(failed.document_xml);
  }
  // 1, 2, 4, 8, 16, 32 and 60 units between the attempts: at least their sum in all.
  expect(tries.at(-1)!.at - tries[0]!.at).toBeGreaterThanOrEqual(123 * UNIT);
  const shown = await invoiceStatus(invoice.id);
  expect(shown.status).toBe('approved');
  expect(shown.einvoice).toMatchObject({ status: 'failed', message_id: id });

  // The access point is back: the replay goes through from the start of the schedule.
  ap.answer(() => 202);
  const replayed = bodyOf(202, await c.POST('/einvoices/{id}/replay', { params: { path: { id }, ...idem() } })).data;
  expect(replayed).toMatchObject({ status: 'queued', attempts: 0 });
  const sent = await settled(id, 'sent');
  expect(sent).toMatchObject({ attempts: 1, last_error: '', last_response: { source: 'http', status: 202, body: { transmission_id: expect.any(String) } } });
  expect(handedFor(id)).toHaveLength(9);
  expect((await invoiceStatus(invoice.id)).status).toBe('sent');
}, 90_000);

it('retries a connection dropped without an answer, and does not retry a refusal (4xx): rejected', async () => {
  let drops = 1;
  ap.answer((h) => (h.body.includes('Afvist') ? 422 : drops-- > 0 ? 'drop' : 200));
  const dropped = await queued('Tabt Forbindelse ApS');
  const refused = await queued('Afvist Dokument ApS');
  await settled(dropped.id, 'sent');
  expect(handedFor(dropped.id)).toHaveLength(2);
  const rejected = await settled(refused.id, 'rejected');
  expect(rejected).toMatchObject({ attempts: 1, last_error: 'the access point answered 422', last_response: { status: 422 } });
  expect(handedFor(refused.id)).toHaveLength(1);
  expect((await invoiceStatus(refused.invoice.id)).status).toBe('approved');
}, 60_000);

it('loses no message when the worker sending them is killed mid-send: another sends them again once their lease runs out', async () => {
  await stopped(first);
  // The stand-in answers nothing until the worker is killed: it dies with every request in flight.
  let killed = false;
  ap.answer(() => (killed ? 200 : new Promise<never>(() => {})));
  const messages: Awaited<ReturnType<typeof queued>>[] = [];
  for (let i = 0; i < 5; i++) messages.push(await queued(`Nedbrud ${i} ApS`));
  // A 2 s hand-over timeout: a lease of 4.5 s instead of 45 s.
  const short = { EINVOICE_HANDOVER_TIMEOUT_MS: '2000' };
  const dying = await worker(short);
  // Killed once it is handing over every message: each is leased to it, none answered. (A job it had
  // fetched without leasing its message yet is pg-boss's to hand on, when the job expires.)
  await waitFor(() => messages.every((m) => handedFor(m.id).length > 0), 30_000);
  dying.kill('SIGKILL');
  await new Promise((r) => dying.once('exit', r));
  const killedAt = Date.now();
  killed = true;
  expect(await Promise.all(messages.map(async (m) => (await message(m.id)).status))).toEqual(messages.map(() => 'queued'));

  // Another worker takes over when the leases run out (the jobs the dying one sent for their end):
  // every message ends sent, each handed over again.
  await worker(short);
  for (const m of messages) await settled(m.id, 'sent', 30_000);
  for (const m of messages) {
    expect(handedFor(m.id).length).toBeGreaterThanOrEqual(2);
    expect(handedFor(m.id).at(-1)!.at).toBeGreaterThan(killedAt);
    expect((await invoiceStatus(m.invoice.id)).status).toBe('sent');
  }
}, 60_000);
