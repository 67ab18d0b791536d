// The scale-out topology under mixed load (docs/scaling.md): three API processes and two
// worker processes (BENCH_API_PROCESSES, BENCH_WORKER_PROCESSES) on one PostgreSQL, voucher documents in an S3-protocol store (s3rver), webhooks to a
// receiver in this process. For BENCH_SECONDS a closed loop of BENCH_CONNECTIONS clients sends a mix of
// reads, creates, postings, invoice transitions and voucher uploads spread over the API processes; then
// the run checks its invariants, prints each, and exits 1 when one fails:
//   1. no 5xx other than 503 (deliberate overload) during the load
//   2. the rate limit is exact across processes: 150 requests of one fresh key at once, spread over the
//      three API processes, get exactly 100 answers and 50 429s
//   3. document numbers are gapless per company (1..n, no repeats) across postings, invoices and credit notes
//   4. every event is delivered: each outbox event of a subscribed company reached the receiver
//   5. balances equal their lines: every account's daily balances sum to its transaction lines
//
//   tsx bench/scale.ts        (npm run bench:scale)
// Environment: DATABASE_URL (else an embedded PostgreSQL under .data/bench-scale-pg), BENCH_SECONDS (60),
// BENCH_CONNECTIONS (24), BENCH_COMPANIES (4), BENCH_API_PROCESSES (3), BENCH_WORKER_PROCESSES (2; the smoke
// run of every bench, bench/smoke.test.ts, starts two and one: each process costs about 2 s of CPU to start).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EVENT_TYPES, today as businessDay } from '@tlr/domain';
import { s3Settings, startS3Server } from '@tlr/storage/testing/s3-server';
import { cleanupStack } from './cleanup.ts';
import { spawnServer, type RunningServer } from './http.ts';
import { agent, benchCompany, benchDatabase, closedLoop, Keys, machineLines, ms, percentile, request, statusText } from './lib.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 24);
const COMPANIES = Number(process.env.BENCH_COMPANIES ?? 4);
const API_PROCESSES = Number(process.env.BENCH_API_PROCESSES ?? 3);
const WORKER_PROCESSES = Number(process.env.BENCH_WORKER_PROCESSES ?? 2);
// Enough keys that none goes past 90 requests (the limit is 100 per 60 s): the load never hits it.
const KEYS_PER_COMPANY = Math.ceil((SECONDS * 8) / COMPANIES) + 20;

interface ScaleCompany {
  id: string;
  keys: Keys;
  customerId: string;
}

async function main(): Promise<number> {
  const log = (m: string) => process.stderr.write(`[bench-scale] ${m}\n`);
  const cleanups = cleanupStack(log, (SECONDS + 600) * 1000);
  const out: string[] = [];
  let failed = 0;
  const check = (name: string, ok: boolean, detail: string) => {
    if (!ok) failed += 1;
    out.push(`${ok ? 'PASS' : 'FAIL'}  ${name}: ${detail}`);
  };
  try {
    const { db, databaseUrl, pgVersion } = await benchDatabase({
      cleanups,
      log,
      folder: 'bench-scale-pg',
      dbName: `tlr_bench_scale_${process.pid}`,
      poolSize: 4,
    });
    const s3 = await startS3Server();
    cleanups.push(() => s3.close());

    // The webhook receiver: every event id that arrived.
    const arrived = new Set<string>();
    const receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        arrived.add(String(req.headers['service-event-id']));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => (receiver.closeAllConnections(), receiver.close(() => r()))));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    const env = {
      ...s3Settings(s3),
      WEBHOOK_ALLOW_INSECURE_URLS: 'true',
      WEBHOOK_RETRY_UNIT_MS: '200',
      WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
      DATA_DIR: '.data/bench-scale-data',
    };
    const spawn = (worker: boolean) => spawnServer({ kind: 'tlr', databaseUrl, poolSize: 10, env: { ...env, RUN_WORKER: worker ? 'true' : 'false' } });
    const apis: RunningServer[] = await Promise.all(Array.from({ length: API_PROCESSES }, () => spawn(false)));
    const workers: RunningServer[] = await Promise.all(Array.from({ length: WORKER_PROCESSES }, () => spawn(true)));
    for (const s of [...apis, ...workers]) cleanups.push(() => s.stop());
    log(
      `${apis.length} API processes (${apis.map((a) => a.pid).join(', ')}), ${workers.length} workers (${workers.map((w) => w.pid).join(', ')}), S3 at ${s3.endpoint}`,
    );

    // Companies, each with a pool of keys (no key past 90 requests: the load itself never hits the limit),
    // a customer for invoices, and a webhook subscription to every event.
    const companies: ScaleCompany[] = [];
    for (let i = 0; i < COMPANIES; i++) {
      const c = await benchCompany(db, { name: `Skala ${i} ApS`, ownerEmail: `scale-${process.pid}-${i}@example.dk`, keys: KEYS_PER_COMPANY });
      const keys = new Keys(c.keys);
      const api = apis[i % apis.length]!.url;
      const json = { 'Content-Type': 'application/json' };
      const sub = await request(`${api}/api/v1/webhooks`, {
        method: 'POST',
        headers: { ...json, 'X-API-Key': keys.next() },
        body: JSON.stringify({ url: hookUrl, events: [...EVENT_TYPES] }),
      });
      if (sub.status !== 201) throw new Error(`webhook subscription: ${sub.status} ${sub.body}`);
      const cust = await request(`${api}/api/v1/customers`, {
        method: 'POST',
        headers: { ...json, 'X-API-Key': keys.next(), 'Idempotency-Key': randomUUID() },
        body: JSON.stringify({ name: `Fast kunde ${i}` }),
      });
      if (cust.status !== 201) throw new Error(`customer: ${cust.status} ${cust.body}`);
      companies.push({ id: c.companyId, keys, customerId: (JSON.parse(cust.body) as { data: { id: string } }).data.id });
    }
    const today = businessDay();

    // The mix: what integrators do, spread over the API processes.
    let n = 0;
    const pdf = Buffer.from('%PDF-1.4\n% scale bench voucher\n').toString('base64');
    const ops: [number, (base: string, c: ScaleCompany) => Promise<string>][] = [
      [30, async (base, c) => (await request(`${base}/api/v1/customers?per_page=50`, { headers: { 'X-API-Key': c.keys.next() } })).status.toString()],
      [15, async (base, c) => (await request(`${base}/api/v1/invoices?per_page=20`, { headers: { 'X-API-Key': c.keys.next() } })).status.toString()],
      [15, (base, c) => post(base, c, '/customers', { name: `Kunde ${++n}`, email: `k${n}@example.dk` })],
      [
        15,
        (base, c) =>
          post(base, c, '/transactions', {
            date: today,
            description: `Bilag ${++n}`,
            lines: [
              { account_number: '6470', debit: 100 + (n % 50) },
              { account_number: '1010', credit: 100 + (n % 50) },
            ],
          }),
      ],
      [
        15,
        async (base, c) => {
          const created = await request(`${base}/api/v1/invoices`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'X-API-Key': c.keys.next(), 'Idempotency-Key': randomUUID() },
            body: JSON.stringify({
              customer_id: c.customerId,
              issue_date: today,
              due_date: today,
              auto_approve: true,
              lines: [{ description: 'Ydelse', quantity: 1, unit_price: 250 }],
            }),
          });
          if (created.status !== 201) return created.status.toString();
          const id = (JSON.parse(created.body) as { data: { id: string } }).data.id;
          const next = n++ % 3 === 0 ? 'cancelled' : 'paid';
          const moved = await request(`${base}/api/v1/invoices/${id}/status`, {
            method: 'PUT',
            headers: { 'Content-Type': 'application/json', 'X-API-Key': c.keys.next() },
            body: JSON.stringify({ status: next }),
          });
          return moved.status === 200 ? '201+200' : `201+${moved.status}`;
        },
      ],
      [10, (base, c) => post(base, c, '/vouchers', { filename: `bilag-${++n}.pdf`, content_base64: pdf, mime_type: 'application/pdf' })],
    ];
    const total = ops.reduce((s, [w]) => s + w, 0);
    let turn = 0;
    log(`mixed load: ${CONNECTIONS} clients for ${SECONDS} s`);
    const load = await closedLoop(CONNECTIONS, SECONDS, () => {
      turn += 1;
      const base = apis[turn % apis.length]!.url;
      const c = companies[turn % companies.length]!;
      let r = Math.random() * total;
      for (const [w, op] of ops) if ((r -= w) < 0) return op(base, c);
      return ops[0]![1](base, c);
    });
    const fiveXx = [...load.statuses.entries()].filter(([s]) => /(^|\+)5\d\d/.test(s) && !/(^|\+)503$/.test(s));
    const errors = [...load.statuses.entries()].filter(([s]) => s.startsWith('error'));
    out.push(
      `load: ${load.requests} operations in ${load.seconds.toFixed(1)} s = ${(load.requests / load.seconds).toFixed(0)} ops/s, p50 ${ms(percentile(load.latencies, 50))} ms, p99 ${ms(percentile(load.latencies, 99))} ms`,
      `statuses: ${statusText(load.statuses)}`,
      '',
    );
    check(
      'no 5xx other than 503',
      fiveXx.length === 0 && errors.length === 0,
      fiveXx.length || errors.length ? `${statusText(new Map([...fiveXx, ...errors]))}` : 'none',
    );

    // 2. The rate limit across processes: one fresh key, 150 requests at once over the APIs.
    const probe = await benchCompany(db, { name: 'Grænse ApS', ownerEmail: `limit-${process.pid}@example.dk`, keys: 1 });
    const probeAnswers = await Promise.all(
      Array.from({ length: 150 }, (_, i) => request(`${apis[i % apis.length]!.url}/api/v1/customers?per_page=1`, { headers: { 'X-API-Key': probe.keys[0]! } })),
    );
    const ok = probeAnswers.filter((a) => a.status === 200).length;
    const limited = probeAnswers.filter((a) => a.status === 429).length;
    check(`rate limit exact across ${apis.length} processes`, ok === 100 && limited === 50, `${ok} × 200, ${limited} × 429 of 150 (expected 100 and 50)`);

    // Let the workers finish: every event fanned out and delivered.
    const drained = await waitUntil(async () => {
      const { rows } = await db.pool.query(
        `SELECT (SELECT count(*)::int FROM outbox_events WHERE dispatched_at IS NULL) AS pending_events,
                (SELECT count(*)::int FROM webhook_deliveries WHERE status <> 'succeeded') AS open_deliveries`,
      );
      return rows[0].pending_events === 0 && rows[0].open_deliveries === 0;
    }, 120_000);

    // 3. Gapless numbers per company: the unified sequence over postings (invoices and credit notes post too).
    const gaps = await db.pool.query(
      `SELECT company_id, count(*)::int AS n, count(DISTINCT document_number)::int AS distinct_numbers, min(document_number)::int AS lo, max(document_number)::int AS hi
       FROM ledger_transactions GROUP BY company_id HAVING count(*) <> max(document_number) OR min(document_number) <> 1 OR count(DISTINCT document_number) <> count(*)`,
    );
    const postings = Number((await db.pool.query('SELECT count(*) FROM ledger_transactions')).rows[0].count);
    check(
      'document numbers gapless per company',
      gaps.rowCount === 0,
      gaps.rowCount ? JSON.stringify(gaps.rows.slice(0, 3)) : `${postings} postings over ${COMPANIES} companies, each 1..n`,
    );

    // 4. Every event delivered.
    const events = (await db.pool.query<{ id: string }>(`SELECT id FROM outbox_events WHERE company_id = ANY($1::uuid[])`, [companies.map((c) => c.id)])).rows;
    const missing = events.filter((e) => !arrived.has(e.id));
    check(
      'every event delivered',
      drained && missing.length === 0 && events.length > 0,
      `${events.length} events, ${events.length - missing.length} arrived at the receiver${drained ? '' : '; the queue did not drain within 120 s'}`,
    );

    // 5. Balances equal their lines.
    const unequal = await db.pool.query(
      `WITH l AS (SELECT company_id, account_id, sum(debit) AS d, sum(credit) AS c FROM transaction_lines GROUP BY 1, 2),
            b AS (SELECT company_id, account_id, sum(debit) AS d, sum(credit) AS c FROM account_daily_balances GROUP BY 1, 2)
       SELECT * FROM l FULL JOIN b USING (company_id, account_id) WHERE l.d IS DISTINCT FROM b.d OR l.c IS DISTINCT FROM b.c`,
    );
    const unbalanced = await db.pool.query(`SELECT transaction_id FROM transaction_lines GROUP BY transaction_id HAVING sum(debit) <> sum(credit)`);
    check(
      'balances equal their lines; every posting balances',
      unequal.rowCount === 0 && unbalanced.rowCount === 0,
      `${unequal.rowCount} accounts differ, ${unbalanced.rowCount} unbalanced postings`,
    );

    const vouchers = Number((await db.pool.query(`SELECT count(*) FROM vouchers`)).rows[0].count);
    out.push('', `database: PostgreSQL ${pgVersion}; ${vouchers} vouchers stored in S3, ${events.length} events`, ...machineLines());
    process.stdout.write(`${out.join('\n')}\n`);
    return failed ? 1 : 0;
  } finally {
    agent.destroy();
    await cleanups.run();
  }

  async function post(base: string, c: ScaleCompany, path: string, body: unknown): Promise<string> {
    const r = await request(`${base}/api/v1${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': c.keys.next(), 'Idempotency-Key': randomUUID() },
      body: JSON.stringify(body),
    });
    return r.status.toString();
  }
}

async function waitUntil(probe: () => Promise<boolean>, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await probe()) return true;
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`[bench-scale] failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
