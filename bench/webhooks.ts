// Webhook benchmark: sustained deliveries per second to a local receiver, and the delay from an event's
// commit to its first delivery attempt, next to a bare baseline in the same run.
//
//   tsx bench/webhooks.ts            (or: npm run bench:webhooks)
//
//   a. a fresh database (DATABASE_URL's server when set, else an embedded PostgreSQL under
//      .data/bench-webhooks-pg), one company with one subscription to a receiver in this process
//   b. throughput: BENCH_EVENTS outbox events inserted in one statement (what committed domain changes
//      leave behind), then one tlr worker process (the dispatcher of `npm start`, insecure URLs allowed
//      for the loopback receiver) drains them: deliveries per second until the receiver has them all
//   c. latency: BENCH_RATE events per second committed for BENCH_SECONDS, each its own transaction;
//      delay = arrival at the receiver - the event's created_at (commit time, same clock)
//   d. baseline: the bench process itself POSTs the same bodies to the same receiver with the same
//      concurrency (50 in flight, a new connection each, as the dispatcher sends): the HTTP ceiling
//
// Environment (all optional): DATABASE_URL, BENCH_EVENTS (20000), BENCH_RATE (200), BENCH_SECONDS (10).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { cleanupStack } from './cleanup.ts';
import { spawnServer } from './http.ts';
import { benchCompany, benchDatabase, machineLines, ms, percentile } from './lib.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

async function main() {
  const log = (m: string) => process.stderr.write(`[bench-webhooks] ${m}\n`);
  const cleanups = cleanupStack(log);
  const out: string[] = [];
  try {
    const { db, databaseUrl, pgVersion } = await benchDatabase({
      cleanups,
      log,
      folder: 'bench-webhooks-pg',
      dbName: `tlr_bench_webhooks_${process.pid}`,
      poolSize: 4,
    });
    const { companyId } = await benchCompany(db, { name: 'Webhook Bench ApS', ownerEmail: 'hooks@example.dk', keys: 1 });

    // The receiver: counts, and keeps each event's first arrival time.
    const arrivals = new Map<string, number>();
    let received = 0;
    const receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received += 1;
        const id = String(req.headers['service-event-id']);
        if (!arrivals.has(id)) arrivals.set(id, Date.now());
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => (receiver.closeAllConnections(), receiver.close(() => r()))));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    await db.pool.query(
      `INSERT INTO webhook_subscriptions (id, company_id, url, events, secret_encrypted) VALUES ($1, $2, $3, ARRAY['customer.created'], $4)`,
      [
        randomUUID(),
        companyId,
        url,
        // Encrypted under the key the worker will use (WEBHOOK_SECRETS_KEY below).
        (await import('@tlr/domain')).encryptSecret('whsec_bench', KEY),
      ],
    );
    const insertEvents = (n: number) =>
      db.pool.query(
        `INSERT INTO outbox_events (id, company_id, type, livemode, api_version, data)
         SELECT gen_random_uuid(), $1, 'customer.created', true, '2026-04-10', jsonb_build_object('id', gen_random_uuid(), 'name', 'Kunde ' || g, 'email', 'kunde' || g || '@example.dk')
         FROM generate_series(1, $2) g`,
        [companyId, n],
      );

    // b. throughput
    await insertEvents(EVENTS);
    const storeDir = mkdtempSync(join(tmpdir(), 'tlr-bench-webhooks-'));
    cleanups.push(async () => rmSync(storeDir, { recursive: true, force: true }));
    const worker = await spawnServer({
      kind: 'tlr',
      databaseUrl,
      env: {
        RUN_WORKER: 'true',
        WEBHOOK_ALLOW_INSECURE_URLS: 'true',
        WEBHOOK_SECRETS_KEY: KEY.toString('base64'),
        STORAGE_DIR: storeDir,
      },
    });
    cleanups.push(() => worker.stop());
    const t0 = performance.now();
    while (arrivals.size < EVENTS) await new Promise((r) => setTimeout(r, 20));
    const drainS = (performance.now() - t0) / 1000;

    // c. latency at a steady rate
    const delays: number[] = [];
    const before = new Set(arrivals.keys());
    const sent: { id: string; at: number }[] = [];
    const started = Date.now();
    for (let i = 0; i < RATE * SECONDS; i++) {
      const due = started + (i * 1000) / RATE;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const { rows } = await db.pool.query<{ id: string; at: Date }>(
        `INSERT INTO outbox_events (id, company_id, type, livemode, api_version, data) VALUES (gen_random_uuid(), $1, 'customer.created', true, '2026-04-10', '{"id":"x"}') RETURNING id, created_at AS at`,
        [companyId],
      );
      sent.push({ id: rows[0]!.id, at: rows[0]!.at.getTime() });
    }
    const until = Date.now() + 30_000;
    while (sent.some((s) => !arrivals.has(s.id)) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    for (const s of sent) if (arrivals.has(s.id) && !before.has(s.id)) delays.push(arrivals.get(s.id)! - s.at);
    delays.sort((a, b) => a - b);
    await worker.stop();

    // d. baseline: the same bodies straight to the receiver, 50 in flight, a new connection each
    const body = JSON.stringify({
      id: randomUUID(),
      type: 'customer.created',
      api_version: '2026-04-10',
      livemode: true,
      created_at: new Date().toISOString(),
      data: { id: 'x' },
    });
    const bare = async () => {
      let next = 0;
      const t = performance.now();
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          while (next < EVENTS) {
            next += 1;
            await new Promise<void>((resolve, reject) => {
              const req = http.request(
                url,
                { method: 'POST', agent: false, headers: { 'Content-Type': 'application/json', 'Service-Event-Id': randomUUID() } },
                (res) => {
                  res.resume();
                  res.on('end', () => resolve());
                },
              );
              req.on('error', reject);
              req.end(body);
            });
          }
        }),
      );
      return (performance.now() - t) / 1000;
    };
    const bareS = await bare();

    out.push(
      `## Webhook benchmark`,
      '',
      `PostgreSQL ${pgVersion}; one worker process; receiver on 127.0.0.1 in the bench process; ${EVENTS} events`,
      '',
      '| what | deliveries/s | time |',
      '|---|---|---|',
      `| tlr: drain ${EVENTS} committed events (fan-out, claim, sign, POST, record) | ${(EVENTS / drainS).toFixed(0)} | ${drainS.toFixed(2)} s |`,
      `| bare: the same POSTs from a loop, 50 in flight, a connection each | ${(EVENTS / bareS).toFixed(0)} | ${bareS.toFixed(2)} s |`,
      '',
      `Commit to first attempt at ${RATE} events/s for ${SECONDS} s (${delays.length} of ${sent.length} arrived): p50 ${ms(percentile(delays, 50))} ms, p99 ${ms(percentile(delays, 99))} ms, max ${ms(delays.at(-1) ?? NaN)} ms; requests received in all: ${received}`,
      '',
      ...machineLines(),
    );
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    await cleanups.run();
  }
}

const KEY = Buffer.alloc(32, 7);
await main();
