// At least once: a worker process killed (SIGKILL) in the middle of sending loses no event. Its leased
// deliveries are sent again by another worker once the lease has expired (decision 122).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { client, newCompany, startServerProcess, startTestService, testDb } from './helpers.ts';

const workerEnv = { RUN_WORKER: 'true', WEBHOOK_ALLOW_INSECURE_URLS: 'true', WEBHOOK_RETRY_UNIT_MS: '50', LOG_LEVEL: 'silent' };
const stops: (() => unknown)[] = [];
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});

it('delivers every event at least once although the worker sending them was killed mid-send', async () => {
  // The receiver answers slowly, so the worker is killed while requests are in flight.
  const seen = new Map<string, number>();
  const receiver = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const id = String(req.headers['service-event-id']);
      seen.set(id, (seen.get(id) ?? 0) + 1);
      setTimeout(() => res.writeHead(200).end(), 1000);
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  stops.push(() => new Promise<void>((r) => (receiver.closeAllConnections(), receiver.close(() => r()))));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const api = await startTestService({ WEBHOOK_ALLOW_INSECURE_URLS: 'true' }); // no worker: it only takes the requests
  stops.push(() => api.stop());
  const firm = await newCompany('Nedbrud Webhook ApS');
  const c = client(api.url, (await firm.key()).key);
  expect((await c.call('POST', '/webhooks', { body: { url, events: ['customer.created'] } })).status).toBe(201);

  const worker = await startServerProcess(workerEnv);
  stops.push(() => worker.proc.exitCode === null && worker.proc.kill('SIGKILL'));
  const events: string[] = [];
  for (let i = 0; i < 20; i++) events.push((await c.post('/customers', { name: `Kunde ${i}` })).body.data.id);
  const until = Date.now() + 20_000;
  while (seen.size < 1 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  expect(seen.size).toBeGreaterThan(0);
  worker.proc.kill('SIGKILL');
  await new Promise((r) => worker.proc.once('exit', r));

  // Another worker takes over: what the dead one had claimed is sent once its lease expires.
  const second = await startServerProcess(workerEnv);
  stops.push(() => second.proc.exitCode === null && second.proc.kill('SIGTERM'));
  // Every delivery ends succeeded (the receiver answers 200 now), and those the dead worker had in
  // flight arrived again: duplicates, never a loss.
  const deadline = Date.now() + 90_000;
  let rows: { event_id: string; status: string }[];
  for (;;) {
    rows = (await testDb().pool.query(`SELECT event_id, status FROM webhook_deliveries WHERE company_id = $1`, [firm.companyId])).rows;
    if ((rows.length === events.length && rows.every((r) => r.status === 'succeeded')) || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(rows.filter((r) => r.status !== 'succeeded')).toEqual([]);
  expect(rows).toHaveLength(events.length);
  expect(rows.every((r) => seen.has(r.event_id))).toBe(true);
  expect([...seen.values()].some((n) => n >= 2)).toBe(true);
}, 120_000);
