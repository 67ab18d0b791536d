// Recurring invoices benchmark: the job making and approving a period's invoices for N templates, next
// to the same N invoices created and approved through the API, in the same run.
//
//   tsx bench/recurring-invoices.ts     (or: npm run bench:recurring)
//
//   a. a fresh database (DATABASE_URL's server when set, else an embedded PostgreSQL under
//      .data/bench-recurring-pg), one company made by the domain with API keys, 50 customers
//   b. for each job round, N templates made by the domain (createRecurringInvoice): monthly from today,
//      count 1, action approve, the 2 lines of bench/bare-writes.ts invoiceBody (25 % and 0 % VAT, total
//      90.00), payment_terms_days 14; then the job (makeRecurringInvoices, as the worker runs it: its
//      transactions tlr's own) with W runs at once (BENCH_JOB_WORKERS, default "1,2": a round with one
//      worker, then a round with two), timed; every template must have made its one invoice, approved and
//      numbered, and nothing twice
//   c. the API: POST /api/v1/invoices with auto_approve, the same lines and dates, N requests against the
//      real service (a child process, as `npm start` runs it, RUN_WORKER=false) on C connections for each C
//      of BENCH_CONNECTIONS (default "1,4"), a fresh Idempotency-Key each, API keys in rotation under the
//      rate limit
//   d. e-mailed: N more templates with action send to customers with an e-mail and no peppol_id, made,
//      approved and queued for e-mail by one job run, then every queued e-mail delivered to an SMTP server
//      in this process; next to it N POST /invoices auto_approve + POST /invoices/{id}/send
//      {"channel":"email"} on one connection, their e-mails delivered the same way. The delivery (claim,
//      SMTP, record: the deliver-email job's function) runs in this process for both, 4 at a time, and the
//      receiving SMTP server too: its CPU is in both e-mail figures alike
//   Each figure: wall time, invoices per second, and CPU per invoice of the Node process doing the work
//   (the bench process for the job and the deliveries, the server for the API) and of the database
//   server processes.
//
// Environment (all optional): DATABASE_URL, BENCH_RECURRING (1000), BENCH_JOB_WORKERS ("1,2"),
// BENCH_CONNECTIONS ("1,4"), BENCH_RECURRING_TIMEOUT (seconds for the whole run, 1200).
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { inTransaction, type Database } from '@tlr/db';
import {
  addDays,
  asSystem,
  createRecurringInvoice,
  emailsDueWithin,
  makeRecurringInvoices,
  recurringInvoiceCreate,
  today,
  type CompanyScope,
} from '@tlr/domain';
import { emailDeliverer, smtpTransport } from '../apps/server/src/email.ts';
import { cleanupStack } from './cleanup.ts';
import { spawnServer } from './http.ts';
import { agent, benchCompany, benchDatabase, cpuMeter, Keys, machineLines, procTicks, request, seconds } from './lib.ts';

const env = process.env;
const N = Number(env.BENCH_RECURRING ?? 1000);
const list = (v: string | undefined, fallback: string) =>
  (v ?? fallback)
    .split(',')
    .map(Number)
    .filter((n) => n > 0);
const WORKERS = list(env.BENCH_JOB_WORKERS, '1,2');
const CONNECTIONS = list(env.BENCH_CONNECTIONS, '1,4');
const TIMEOUT_MS = Number(env.BENCH_RECURRING_TIMEOUT ?? 1200) * 1000;
const CUSTOMERS = 50;
const REQUESTS_PER_KEY = 90;
const LINES = [
  { description: 'A', quantity: 3, unit_price: 19.96, vat_rate: 25 },
  { description: 'B', quantity: 1.5, unit_price: 10.1, vat_rate: 0 },
];

const log = (m: string) => process.stderr.write(`[bench-recurring] ${m}\n`);

interface Figure {
  label: string;
  wall: number;
  /** CPU ms of the Node process doing the work, and of the database server processes. */
  node: number;
  database: number;
}

const line = (f: Figure) =>
  `${f.label.padEnd(44)} ${f.wall.toFixed(2).padStart(7)} s  ${(N / f.wall).toFixed(0).padStart(5)} invoices/s  ` +
  `CPU per invoice: Node ${(f.node / N).toFixed(2)} ms, PostgreSQL ${(f.database / N).toFixed(2)} ms`;

/** An SMTP server in this process that accepts every message: the receiving end of the e-mail rounds. */
async function startSmtp(): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let received = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, done) {
      stream.resume();
      stream.on('end', () => {
        received += 1;
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, received: () => received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Delivers every queued e-mail due now, 4 at a time, as the deliver-email job does each; how many were sent. */
async function deliverAll(db: Database, deliver: ReturnType<typeof emailDeliverer>): Promise<number> {
  const due = await emailsDueWithin(db.prisma, 0);
  let next = 0;
  let sent = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < due.length) {
        const done = await deliver(due[next++]!.id);
        if (done && !done.next) sent += 1;
      }
    }),
  );
  return sent;
}

async function main() {
  const cleanups = cleanupStack(log, TIMEOUT_MS);
  const out: string[] = [];
  try {
    const { db, databaseUrl, pgVersion } = await benchDatabase({
      cleanups,
      log,
      folder: 'bench-recurring-pg',
      dbName: `tlr_bench_recurring_${process.pid}`,
      // As the worker's pool: the job's runs at once each hold one connection.
      poolSize: Math.max(4, ...WORKERS),
    });
    // The API rounds' requests, and the e-mail round's two per invoice.
    const keyCount = Math.ceil((N * (CONNECTIONS.length + 2)) / REQUESTS_PER_KEY) + 1;
    const { companyId, keys } = await benchCompany(db, { name: 'Abonnement Bench ApS', ownerEmail: `recurring-${process.pid}@bench.example`, keys: keyCount });
    const scope: CompanyScope = { companyId, livemode: true };
    const customers = (
      await db.pool.query<{ id: string }>(
        `INSERT INTO customers (id, company_id, name, email, created_at, updated_at)
         SELECT gen_random_uuid(), $1, 'Abonnent ' || lpad(n::text, 3, '0') || ' ApS', 'abonnent' || n || '@example.dk', now(), now()
         FROM generate_series(1, $2::int) AS n RETURNING id`,
        [companyId, CUSTOMERS],
      )
    ).rows.map((r) => r.id);
    const day = today();
    const run = inTransaction(db);
    const cpuMs = cpuMeter(db.pool);
    const figures: Figure[] = [];

    /** N templates of one period each, made by the domain 8 at a time; their ids. */
    const templates = async (action: 'approve' | 'send') => {
      const made: string[] = [];
      for (let i = 0; i < N; i += 8) {
        const batch = Array.from({ length: Math.min(8, N - i) }, (_, j) =>
          run((tx) =>
            // The body as POST /recurring-invoices reads it (amounts become decimals).
            createRecurringInvoice(
              tx,
              scope,
              recurringInvoiceCreate.parse({
                customer_id: customers[(i + j) % customers.length]!,
                lines: LINES,
                interval: 'month',
                start_date: day,
                count: 1,
                action,
                payment_terms_days: 14,
              }),
            ),
          ),
        );
        made.push(...(await Promise.all(batch)).map((r) => r.id));
      }
      return made;
    };

    // b. the job
    for (const workers of WORKERS) {
      const t0 = process.hrtime.bigint();
      const made = await templates('approve');
      log(`${N} templates made in ${seconds(t0).toFixed(1)} s; the job with ${workers} run(s) at once`);
      const job = asSystem(run, 'make-recurring-invoices', 'tlr: recurring invoices');
      const node0 = process.cpuUsage();
      const all0 = await cpuMs();
      const start = process.hrtime.bigint();
      const runs = await Promise.all(Array.from({ length: workers }, () => makeRecurringInvoices(job, day)));
      const wall = seconds(start);
      const all = (await cpuMs()) - all0;
      const nodeUsage = process.cpuUsage(node0);
      const node = (nodeUsage.user + nodeUsage.system) / 1000;
      const failed = runs.flatMap((r) => r.failed);
      if (failed.length) throw new Error(`the job refused ${failed.length} periods: ${JSON.stringify(failed[0])}`);
      const total = runs.reduce((a, r) => a + r.made, 0);
      // Every template made its one invoice, approved and numbered, and none twice.
      const check = (
        await db.pool.query<{ periods: number; approved: number; numbers: number }>(
          `SELECT count(*)::int AS periods,
                  count(*) FILTER (WHERE i.status = 'approved' AND i.invoice_number <> '')::int AS approved,
                  count(DISTINCT i.invoice_number)::int AS numbers
           FROM recurring_invoice_periods p JOIN invoices i ON i.id = p.invoice_id
           WHERE p.recurring_invoice_id = ANY($1::uuid[])`,
          [made],
        )
      ).rows[0]!;
      if (total !== N || check.periods !== N || check.approved !== N || check.numbers !== N) {
        throw new Error(`the job made ${total} (periods ${check.periods}, approved ${check.approved}, numbers ${check.numbers}), not ${N}`);
      }
      figures.push({ label: `job, ${workers} run${workers > 1 ? 's' : ''} at once (made + approved)`, wall, node, database: all - node });
      log(line(figures.at(-1)!));
    }

    // c. the API
    const svc = await spawnServer({ kind: 'tlr', databaseUrl });
    cleanups.push(() => svc.stop());
    const rotation = new Keys(keys, REQUESTS_PER_KEY);
    const body = JSON.stringify({ customer_id: customers[0], issue_date: day, due_date: addDays(day, 14), lines: LINES, auto_approve: true });
    const post = async (i: number) => {
      const headers = {
        'X-API-Key': rotation.next(),
        'Content-Type': 'application/json',
        'Idempotency-Key': randomUUID(),
      };
      const r = await request(`${svc.url}/api/v1/invoices`, { method: 'POST', headers, body: body.replace(customers[0]!, customers[i % customers.length]!) });
      if (r.status !== 201) throw new Error(`POST /invoices answered ${r.status}: ${r.body.slice(0, 300)}`);
    };
    // Warm-up: the first requests compile the server's paths.
    for (let i = 0; i < 3; i++) await post(i);
    for (const connections of CONNECTIONS) {
      const server0 = procTicks(svc.pid) ?? 0;
      const all0 = await cpuMs();
      const bench0 = process.cpuUsage();
      const start = process.hrtime.bigint();
      let next = 0;
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (next < N) await post(next++);
        }),
      );
      const wall = seconds(start);
      const benchUsage = process.cpuUsage(bench0);
      // The bench process only sent the requests here: its CPU is neither side's work.
      const database = (await cpuMs()) - all0 - (benchUsage.user + benchUsage.system) / 1000;
      const node = ((procTicks(svc.pid) ?? 0) - server0) * 10;
      figures.push({ label: `API, ${connections} connection${connections > 1 ? 's' : ''} (POST /invoices auto_approve)`, wall, node, database });
      log(line(figures.at(-1)!));
    }

    // d. e-mailed: the job's invoices with action send, and the API's invoices sent by e-mail, each delivered
    const smtp = await startSmtp();
    cleanups.push(() => smtp.close());
    const settings = { transport: smtpTransport(smtp.url, 'faktura@bench.example', 10_000), retryUnitMs: 60_000, sendTimeoutMs: 10_000 };
    const deliver = emailDeliverer(db, settings, async () => {});
    {
      const made = await templates('send');
      const job = asSystem(run, 'make-recurring-invoices', 'tlr: recurring invoices');
      const node0 = process.cpuUsage();
      const all0 = await cpuMs();
      const start = process.hrtime.bigint();
      const { made: count, failed } = await makeRecurringInvoices(job, day);
      if (failed.length || count !== N) throw new Error(`the job made ${count} of ${N}, refused ${failed.length}: ${JSON.stringify(failed[0])}`);
      const sent = await deliverAll(db, deliver);
      const wall = seconds(start);
      const all = (await cpuMs()) - all0;
      const usage = process.cpuUsage(node0);
      const node = (usage.user + usage.system) / 1000;
      const check = (
        await db.pool.query<{ sent: number }>(
          `SELECT count(*) FILTER (WHERE i.status = 'sent')::int AS sent
           FROM recurring_invoice_periods p JOIN invoices i ON i.id = p.invoice_id WHERE p.recurring_invoice_id = ANY($1::uuid[])`,
          [made],
        )
      ).rows[0]!;
      if (sent !== N || check.sent !== N) throw new Error(`${sent} e-mails delivered and ${check.sent} invoices sent, not ${N}`);
      figures.push({ label: 'job, 1 run (made + approved + e-mailed)', wall, node, database: all - node });
      log(line(figures.at(-1)!));
    }
    {
      const received0 = smtp.received();
      const server0 = procTicks(svc.pid) ?? 0;
      const all0 = await cpuMs();
      const bench0 = process.cpuUsage();
      const start = process.hrtime.bigint();
      let requestsCpu = 0;
      for (let i = 0; i < N; i++) {
        const headers = { 'X-API-Key': rotation.next(), 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() };
        const r = await request(`${svc.url}/api/v1/invoices`, { method: 'POST', headers, body: body.replace(customers[0]!, customers[i % customers.length]!) });
        if (r.status !== 201) throw new Error(`POST /invoices answered ${r.status}: ${r.body.slice(0, 300)}`);
        const id = (JSON.parse(r.body) as { data: { id: string } }).data.id;
        const sendHeaders = { ...headers, 'X-API-Key': rotation.next(), 'Idempotency-Key': randomUUID() };
        const e = await request(`${svc.url}/api/v1/invoices/${id}/send`, { method: 'POST', headers: sendHeaders, body: JSON.stringify({ channel: 'email' }) });
        if (e.status !== 202) throw new Error(`POST /invoices/{id}/send answered ${e.status}: ${e.body.slice(0, 300)}`);
      }
      const requests = process.cpuUsage(bench0);
      requestsCpu = (requests.user + requests.system) / 1000;
      const sent = await deliverAll(db, deliver);
      const wall = seconds(start);
      const usage = process.cpuUsage(bench0);
      const benchCpu = (usage.user + usage.system) / 1000;
      if (sent !== N || smtp.received() - received0 !== N) throw new Error(`${sent} e-mails delivered, ${smtp.received() - received0} received, not ${N}`);
      // The server's work, and the deliveries' in this process (not the sending of the requests).
      const node = ((procTicks(svc.pid) ?? 0) - server0) * 10 + (benchCpu - requestsCpu);
      const database = (await cpuMs()) - all0 - benchCpu;
      figures.push({ label: 'API, 1 connection (POST /invoices + send by e-mail, delivered)', wall, node, database });
      log(line(figures.at(-1)!));
    }
    if (rotation.overused) log(`warning: ${rotation.overused} requests over the per-key budget`);

    out.push(
      `PostgreSQL ${pgVersion}; ${N} invoices each way (2 lines, 25 % and 0 % VAT, total 90.00, approved: numbered and posted; e-mailed: the PDF delivered to an SMTP server)`,
      ...figures.map(line),
      ...machineLines(),
    );
  } finally {
    agent.destroy();
    await cleanups.run();
  }
  console.log(out.join('\n'));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
