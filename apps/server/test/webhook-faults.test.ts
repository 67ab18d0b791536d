// At least once: a worker process killed (SIGKILL) in the middle of sending loses no event. Its leased
// deliveries are sent again by another worker once the lease has expired (decision 122). On a database of
// its own: the worker it kills would otherwise die holding other files' jobs (a sandbox reset, say).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, idem, newCompany, ok, ownDatabase, startServerProcess, startTestService, webhookReceiver, type Api } from './helpers.ts';
import type { Service } from '../src/service.ts';

let own: Awaited<ReturnType<typeof ownDatabase>>;
let svc: Service;
let companyId: string;
let c: Api;
const stops: (() => unknown)[] = [];
beforeAll(async () => {
  own = await ownDatabase('webhook_faults');
  stops.push(() => own.drop());
  // This process's service has no worker: it only takes the requests.
  svc = await startTestService({ DATABASE_URL: own.url, WEBHOOK_ALLOW_INSECURE_URLS: 'true' });
  stops.push(() => svc.stop());
  const company = await newCompany('Nedbrud Webhook ApS', undefined, own.db);
  companyId = company.companyId;
  c = api(svc.url, (await company.key()).key);
});
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});
const workerEnv = { RUN_WORKER: 'true', WEBHOOK_ALLOW_INSECURE_URLS: 'true', WEBHOOK_RETRY_UNIT_MS: '50', LOG_LEVEL: 'silent' };
const worker = () => startServerProcess({ ...workerEnv, DATABASE_URL: own.url });

it('delivers every event at least once although the worker sending them was killed mid-send', async () => {
  // The receiver answers slowly, so the worker is killed while requests are in flight.
  const hook = await webhookReceiver();
  stops.push(hook.close);
  hook.answer(() => new Promise((r) => setTimeout(() => r(200), 1000)));
  /** How many times each event arrived, by its Service-Event-Id. */
  const seen = () => {
    const counts = new Map<string, number>();
    for (const { headers } of hook.got) {
      const id = String(headers['service-event-id']);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  };

  const sub = await c.POST('/webhooks', { body: { url: hook.url, events: ['customer.created'] } });
  expect(sub.response.status).toBe(201);

  const first = await worker();
  stops.push(() => first.proc.exitCode === null && first.proc.kill('SIGKILL'));
  const events: string[] = [];
  for (let i = 0; i < 20; i++) events.push((await ok(c.POST('/customers', { params: idem(), body: { name: `Kunde ${i}` } }))).data.id);
  const until = Date.now() + 20_000;
  while (hook.got.length < 1 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  expect(hook.got.length).toBeGreaterThan(0);
  first.proc.kill('SIGKILL');
  await new Promise((r) => first.proc.once('exit', r));

  // Another worker takes over: what the dead one had claimed is sent once its lease expires.
  const second = await worker();
  stops.push(() => second.proc.exitCode === null && new Promise((exited) => (second.proc.once('exit', exited), second.proc.kill('SIGTERM'))));
  // Every delivery ends succeeded (the receiver answers 200 now), and those the dead worker had in
  // flight arrived again: duplicates, never a loss.
  const deadline = Date.now() + 90_000;
  let rows: { event_id: string; status: string }[];
  for (;;) {
    rows = (await own.db.pool.query<{ event_id: string; status: string }>(`SELECT event_id, status FROM webhook_deliveries WHERE company_id = $1`, [companyId]))
      .rows;
    if ((rows.length === events.length && rows.every((r) => r.status === 'succeeded')) || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const arrived = seen();
  expect(rows.filter((r) => r.status !== 'succeeded')).toEqual([]);
  expect(rows).toHaveLength(events.length);
  expect(rows.every((r) => arrived.has(r.event_id))).toBe(true);
  expect([...arrived.values()].some((n) => n >= 2)).toBe(true);
}, 120_000);
