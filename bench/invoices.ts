// Invoice benchmark: auto-approved invoice creation against its bare SQL, and the first page of the
// invoice list of a company with a million invoices.
//
//   tsx bench/invoices.ts            (or: node scripts/tlr.mjs exec tsx bench/invoices.ts)
//
//   a. a fresh database: on DATABASE_URL's server when set, otherwise on an embedded PostgreSQL under
//      .data/bench-invoices-pg on a free loopback port (stopped and removed at the end); two companies
//      made by the domain (createCompany) with API keys (createApiKey): one that invoices, one whose list
//      is read
//   b. the list company gets 1,000 customers and 1,000,000 invoices in bulk SQL (INSERT ... SELECT ...
//      FROM generate_series): created_at spread over the last year (ids time-ordered with it where
//      PostgreSQL has uuidv7()), statuses spread over draft 15 % / approved 10 % / sent 15 % / paid 40 % /
//      overdue 10 % / cancelled 10 %, every non-draft numbered (invoice_number = document_number, gapless
//      in creation order) and a credit note for every cancelled one; no invoice lines (the list does not
//      read them); then VACUUM ANALYZE
//   c. POST /api/v1/invoices with auto_approve (2 lines, 25 % and 0 % VAT: total 90.00, a 4-line
//      posting) against the real service (in a child process of its own, as `npm start` runs it,
//      RUN_WORKER=false, LOG_LEVEL=silent) with C connections for D seconds, a fresh Idempotency-Key per request and the
//      next of many API keys, none more than 90 times, so the rate limit (100/60 s per key) never refuses;
//      then the bare SQL of the same writes with pg at the same concurrency for the same time; then both
//      on one connection, with the SQL statements per request counted; CPU time per request of the
//      whole machine (/proc/stat) and of the service process for each
//   d. GET /api/v1/invoices (first page, default per_page) N times in sequence, unfiltered and with
//      ?status=paid, each answer's meta.total checked against the rows loaded; then the bare SQL of the
//      page query and the count via pg; if the p99 goal (50 ms) is missed, EXPLAIN (ANALYZE, BUFFERS) of
//      the statements Prisma sent for the list
//
// Everything listens on 127.0.0.1 only. The whole run is bounded (BENCH_INVOICES_TIMEOUT, default
// 20 min) and cleans up after itself on success, failure, SIGINT and SIGTERM.
//
// Environment (all optional):
//   DATABASE_URL             use this PostgreSQL server (a database tlr_bench_invoices_* is created and dropped)
//   BENCH_INVOICES           invoices bulk-loaded into the list company (1000000)
//   BENCH_DURATION           seconds per creation measurement (10)      BENCH_WARMUP  warm-up seconds (2)
//   BENCH_SERIAL_SECONDS     seconds of each one-connection measurement (half of BENCH_DURATION, at least 3)
//   BENCH_CONNECTIONS        concurrent connections for the creation measurements (16)
//   BENCH_INVOICE_KEYS       API keys of the invoicing company (200)
//   BENCH_LIST_CALLS         sequential calls per list measurement (200)
//   BENCH_EXPLAIN            1: print the EXPLAIN plans even when the list goal is met
//   BENCH_INVOICES_TIMEOUT   seconds for the whole run (1200)
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { loadConfig } from '@tlr/config';
import type { Database } from '@tlr/db';
import { BUSINESS_TIME_ZONE } from '@tlr/config';
import { addDays, DEFAULT_ACCOUNTS, newId, today } from '@tlr/domain';
import { spawnServer, type RunningServer } from './http.ts';
import { cleanupStack } from './cleanup.ts';
import { accountIds, bareInvoice, invoiceBody, OUTPUT_VAT_ACCOUNT, type Invoicing } from './bare-writes.ts';
import {
  agent,
  benchCompany,
  benchDatabase,
  closedLoop,
  countingServerStatements,
  countingStatements,
  Keys,
  loadavg,
  machineLines,
  ms,
  percentile,
  request,
  seconds,
  statusText,
  type LoadResult,
  procTicks,
} from './lib.ts';

const env = process.env;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
const INVOICES = num('BENCH_INVOICES', 1_000_000);
const CUSTOMERS = 1000;
const DURATION = num('BENCH_DURATION', 10);
const WARMUP = num('BENCH_WARMUP', 2);
const SERIAL = num('BENCH_SERIAL_SECONDS', Math.max(3, Math.round(DURATION / 2)));
const CONNECTIONS = num('BENCH_CONNECTIONS', 16);
const KEYS = num('BENCH_INVOICE_KEYS', 200);
const LIST_CALLS = num('BENCH_LIST_CALLS', 200);
const EXPLAIN = env.BENCH_EXPLAIN === '1';
const TIMEOUT_MS = num('BENCH_INVOICES_TIMEOUT', 20 * 60) * 1000;
const LIST_GOAL_MS = 50;
const THROUGHPUT_GOAL = 0.5;
const REQUESTS_PER_KEY = 90;
const PER_PAGE = 50; // the list's default per_page (packages/api/src/schemas/list-query.ts)
const RUN_ID = `${Date.now().toString(36)}${process.pid.toString(36)}`;
const FOLDER = 'bench-invoices-pg';
const TIME_ZONE = BUSINESS_TIME_ZONE;

const log = (m: string) => process.stderr.write(`[bench-invoices] ${m}\n`);
const print = (line = '') => process.stdout.write(`${line}\n`);

// ---------------------------------------------------------------------------------------------------
// b. the bulk load of the list company

/** Status by bucket (n * 37) % 100: 37 is prime to 100, so every run of 100 invoices has the same mix. */
const STATUS_BUCKETS = `CASE WHEN b < 15 THEN 'draft' WHEN b < 25 THEN 'approved' WHEN b < 40 THEN 'sent' WHEN b < 80 THEN 'paid' WHEN b < 90 THEN 'overdue' ELSE 'cancelled' END`;

async function bulkLoad(databaseUrl: string, companyId: string, uuidFn: string, cleanups: ReturnType<typeof cleanupStack>) {
  // A connection of its own without the pool's statement and query timeouts (10 s): one INSERT of a
  // million rows with seven indexes takes longer than that on this machine.
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  client.on('error', () => {});
  let ended = false;
  const end = async () => {
    if (!ended) {
      ended = true;
      await client.end().catch(() => {});
    }
  };
  cleanups.push(end);
  const t0 = process.hrtime.bigint();
  const steps: string[] = [];
  let mark = t0;
  const step = (label: string) => {
    steps.push(`${label} ${seconds(mark).toFixed(1)} s`);
    mark = process.hrtime.bigint();
  };
  // A uuid carrying the row's own timestamp (uuidv7(shift) on PostgreSQL 18), as newId(created_at) would.
  const idAt = (at: string) => (uuidFn === 'uuidv7()' ? `uuidv7(${at} - now())` : 'gen_random_uuid()');
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL work_mem = '256MB'`);
    await client.query(
      `INSERT INTO customers (id, company_id, name, email, created_at, updated_at)
       SELECT ${uuidFn}, $1, 'Kunde ' || lpad(n::text, 4, '0') || ' ApS', 'kunde' || n || '@example.dk', now(), now()
       FROM generate_series(1, $2::int) AS n`,
      [companyId, CUSTOMERS],
    );
    step('customers');
    // Invoice n was created at (now - 1 h - (N - n) x 1 year / N): in creation order, over the last year.
    // Every non-draft carries the next number of the document sequence in creation order.
    await client.query(
      `WITH c AS (SELECT array_agg(id ORDER BY name) AS ids, array_agg(name ORDER BY name) AS names FROM customers WHERE company_id = $1),
       g AS (
         SELECT n, at, ${STATUS_BUCKETS} AS status, ((n * 7919) % 1000000 + 100) / 100.0 AS net
         FROM generate_series(1, $2::bigint) AS n
         CROSS JOIN LATERAL (SELECT (n * 37) % 100 AS b, now() - interval '1 hour' - ($2 - n) * (interval '365 days' / $2::float8) AS at) x
       ),
       numbered AS (SELECT g.*, CASE WHEN status <> 'draft' THEN count(*) FILTER (WHERE status <> 'draft') OVER (ORDER BY n) END AS doc FROM g)
       INSERT INTO invoices (id, company_id, invoice_number, document_number, customer_id, customer_name, status, issue_date, due_date,
                             subtotal, vat_amount, total, paid_amount, posted_transaction_id, posted_system_id,
                             approved_at, sent_at, paid_at, cancelled_at, created_at, updated_at)
       SELECT ${idAt('at')}, $1, COALESCE(doc::text, ''), doc, c.ids[1 + n % cardinality(c.ids)], c.names[1 + n % cardinality(c.ids)], status,
              (at AT TIME ZONE '${TIME_ZONE}')::date, (at AT TIME ZONE '${TIME_ZONE}')::date + 14,
              net, round(net * 0.25, 2), net + round(net * 0.25, 2), CASE WHEN status = 'paid' THEN net + round(net * 0.25, 2) ELSE 0 END,
              CASE WHEN doc IS NOT NULL THEN gen_random_uuid() END, doc,
              CASE WHEN doc IS NOT NULL THEN at END,
              CASE WHEN status IN ('sent', 'paid', 'overdue') THEN at + interval '1 hour' END,
              CASE WHEN status = 'paid' THEN at + interval '10 days' END,
              CASE WHEN status = 'cancelled' THEN at + interval '2 days' END,
              at, at
       FROM numbered, c`,
      [companyId, INVOICES],
    );
    step('invoices');
    // Credit notes of the cancelled invoices, numbered after the invoices.
    const numbered = Number(
      (await client.query(`SELECT count(*) AS n FROM invoices WHERE company_id = $1 AND document_number IS NOT NULL`, [companyId])).rows[0].n,
    );
    await client.query(
      `INSERT INTO credit_notes (id, company_id, invoice_id, document_number, date, transaction_id, created_at)
       SELECT ${idAt('i.cancelled_at')}, $1, i.id, $2 + row_number() OVER (ORDER BY i.created_at, i.id), (i.cancelled_at AT TIME ZONE '${TIME_ZONE}')::date, gen_random_uuid(), i.cancelled_at
       FROM invoices i WHERE i.company_id = $1 AND i.status = 'cancelled'`,
      [companyId, numbered],
    );
    step('credit notes');
    // No journal rows and no number sequence: the list company is only read (its invoices have no postings;
    // posting a million invoices would add millions of journal lines to a bench that measures the list).
    await client.query('COMMIT');
    step('commit');
    const loadSeconds = seconds(t0);
    // Autovacuum would get to a table after a million inserts within a minute or so; done here, so
    // every run measures the same settled state (statistics and visibility map).
    await client.query('VACUUM (ANALYZE) invoices, credit_notes, customers');
    step('VACUUM (ANALYZE)');
    const byStatus = new Map(
      (
        await client.query<{ status: string; n: number }>(`SELECT status, count(*) AS n FROM invoices WHERE company_id = $1 GROUP BY status ORDER BY status`, [
          companyId,
        ])
      ).rows.map((r) => [r.status, Number(r.n)]),
    );
    const total = [...byStatus.values()].reduce((a, b) => a + b, 0);
    if (total !== INVOICES) throw new Error(`bulk load check failed: ${total} invoices, expected ${INVOICES}`);
    const size = (
      await client.query(
        `SELECT pg_size_pretty(pg_table_size('invoices')) AS heap, pg_size_pretty(pg_indexes_size('invoices')) AS indexes, pg_size_pretty(pg_database_size(current_database())) AS db`,
      )
    ).rows[0] as { heap: string; indexes: string; db: string };
    return { seconds: loadSeconds, steps: steps.join(', '), byStatus, size };
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    await end();
  }
}

// ---------------------------------------------------------------------------------------------------
// c. creating invoices: the API, then the bare SQL of the same writes

type AuthHeader = (key: string) => Record<string, string>;

async function createViaApi(
  svc: RunningServer,
  keys: Keys,
  auth: AuthHeader,
  inv: Invoicing,
  durationS: number,
  connections = CONNECTIONS,
): Promise<LoadResult> {
  let i = 0;
  const body = invoiceBody(inv);
  return closedLoop(connections, durationS, async () => {
    const n = ++i;
    const r = await request(`${svc.url}/api/v1/invoices`, {
      method: 'POST',
      headers: { ...auth(keys.next()), 'Idempotency-Key': `bench-${RUN_ID}-${connections}-${durationS}-${n}`, 'Content-Type': 'application/json' },
      body,
    });
    return String(r.status);
  });
}

/** The bare SQL of the same writes (bare-writes.ts), on pg at the same concurrency. */
async function createViaSql(db: Database, inv: Invoicing, monthly: boolean, durationS: number, connections = CONNECTIONS): Promise<LoadResult> {
  return closedLoop(connections, durationS, async () => {
    await bareInvoice(db.pool, inv, monthly);
    return 'ok';
  });
}

/** CPU time while `work` runs: the whole machine (/proc/stat, USER_HZ 100) and the service process (`pid`; none for bare SQL). */
async function withCpu<T>(work: () => Promise<T>, pid?: number): Promise<{ result: T; cpu: { busy: number; machineMs: number; selfMs: number } | undefined }> {
  const machine = () => {
    try {
      const v = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
      const idle = v[3]! + v[4]!;
      const total = v.reduce((a, b) => a + b, 0);
      return { busy: total - idle, total };
    } catch {
      return undefined;
    }
  };
  const m0 = machine();
  const c0 = pid ? procTicks(pid) : undefined;
  const result = await work();
  const c1 = pid ? procTicks(pid) : undefined;
  const m1 = machine();
  if (!m0 || !m1) return { result, cpu: undefined };
  return {
    result,
    cpu: {
      busy: (m1.busy - m0.busy) / (m1.total - m0.total),
      machineMs: (m1.busy - m0.busy) * 10,
      selfMs: c0 !== undefined && c1 !== undefined ? (c1 - c0) * 10 : 0,
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// d. the list

interface ListCalls {
  sorted: number[];
  statuses: Map<string, number>;
  /** Answers whose meta.total or page size was not what the database holds. */
  wrong: string[];
  bytes: number;
}

async function timeList(url: string, keys: Keys, auth: AuthHeader, calls: number, expectedTotal: number): Promise<ListCalls> {
  const statuses = new Map<string, number>();
  const times: number[] = [];
  const wrong: string[] = [];
  let bytes = 0;
  for (let i = 0; i < 3; i++) await request(url, { headers: auth(keys.next()) }); // warm-up
  for (let i = 0; i < calls; i++) {
    const t = process.hrtime.bigint();
    const r = await request(url, { headers: auth(keys.next()) });
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    bytes = r.body.length;
    statuses.set(String(r.status), (statuses.get(String(r.status)) ?? 0) + 1);
    if (r.status === 200) {
      const page = JSON.parse(r.body) as { data: unknown[]; meta: { total: number; per_page: number } };
      const rows = Math.min(PER_PAGE, expectedTotal);
      if (page.meta.total !== expectedTotal || page.data.length !== rows || page.meta.per_page !== PER_PAGE) {
        wrong.push(`total ${page.meta.total} (expected ${expectedTotal}), ${page.data.length} rows, per_page ${page.meta.per_page}`);
      }
    }
  }
  return { sorted: times.sort((a, b) => a - b), statuses, wrong, bytes };
}

async function timeSql(calls: number, run: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 3; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return times.sort((a, b) => a - b);
}

// ---------------------------------------------------------------------------------------------------

async function main() {
  const cleanups = cleanupStack(log, TIMEOUT_MS);
  const cleanup = cleanups.run;

  const startLoad = loadavg();
  try {
    // a. database, companies, keys
    const { db, databaseUrl, given, pgVersion, settings, uuidFn, monthly } = await benchDatabase({
      cleanups,
      log,
      folder: FOLDER,
      dbName: `tlr_bench_invoices_${RUN_ID}`,
      poolSize: CONNECTIONS,
    });
    const t0 = process.hrtime.bigint();
    const seller = await benchCompany(db, { name: 'Bench Faktura ApS', ownerEmail: `bench-invoices-${RUN_ID}@example.dk`, keys: KEYS });
    const listKeyCount = Math.ceil((2 * (LIST_CALLS + 3) + 10) / REQUESTS_PER_KEY) + 1;
    const lister = await benchCompany(db, { name: 'Bench Fakturaliste ApS', ownerEmail: `bench-invoice-list-${RUN_ID}@example.dk`, keys: listKeyCount });
    const keys = new Keys(seller.keys, REQUESTS_PER_KEY);
    const listKeys = new Keys(lister.keys, REQUESTS_PER_KEY);
    const customer = await db.prisma.customer.create({
      data: { id: newId(), company_id: seller.companyId, name: 'Kunde A/S', email: 'kunde@example.dk', city: 'Aarhus' },
    });
    log(`companies ${seller.companyId} (${KEYS} keys) and ${lister.companyId} (${listKeyCount} keys) in ${seconds(t0).toFixed(1)} s`);

    // b. a million invoices
    log(`loading ${INVOICES} invoices ...`);
    const load = await bulkLoad(databaseUrl, lister.companyId, uuidFn, cleanups);

    print('## Invoice benchmark');
    print();
    print(`load average at start (1/5/15 min): ${startLoad}, after the bulk load: ${loadavg()}`);
    print();
    print(
      `PostgreSQL ${pgVersion} (${given ? 'DATABASE_URL' : 'embedded'}; synchronous_commit ${settings.sc}, fsync ${settings.fsync}, shared_buffers ${settings.sb}), run ${RUN_ID}`,
    );
    print();
    print(
      `b. bulk load: ${INVOICES.toLocaleString('en')} invoices of one company (${[...load.byStatus].map(([s, n]) => `${s} ${n.toLocaleString('en')}`).join(', ')}) and ${CUSTOMERS} customers ` +
        `in ${load.seconds.toFixed(1)} s (${load.steps}); invoices table ${load.size.heap} + indexes ${load.size.indexes}; database ${load.size.db}`,
    );
    print();

    // c. creation throughput
    // Not in this process: the load generator would share the service's event loop and heap.
    const svc = await spawnServer({ kind: 'tlr', databaseUrl });
    cleanups.push(() => svc.stop());
    const issue = today();
    const accounts = await accountIds(db.pool, seller.companyId, [DEFAULT_ACCOUNTS.receivable, DEFAULT_ACCOUNTS.sales, OUTPUT_VAT_ACCOUNT]);
    const inv: Invoicing = {
      companyId: seller.companyId,
      customerId: customer.id,
      customerName: customer.name,
      issue,
      due: addDays(issue, 14),
      receivable: accounts[DEFAULT_ACCOUNTS.receivable]!,
      sales: accounts[DEFAULT_ACCOUNTS.sales]!,
      outputVat: accounts[OUTPUT_VAT_ACCOUNT]!,
    };

    // The brief's header is Authorization: Bearer <API key>; the service takes API keys in X-API-Key
    // (a bearer token is an OAuth access token). Probe once and use what the service accepts.
    const bearer: AuthHeader = (key) => ({ Authorization: `Bearer ${key}` });
    const xApiKey: AuthHeader = (key) => ({ 'X-API-Key': key });
    const probeWith = (auth: AuthHeader) =>
      request(`${svc.url}/api/v1/invoices`, {
        method: 'POST',
        headers: { ...auth(keys.next()), 'Idempotency-Key': `bench-${RUN_ID}-probe-${Math.random()}`, 'Content-Type': 'application/json' },
        body: invoiceBody(inv),
      });
    let auth = bearer;
    let authNote = 'Authorization: Bearer <API key>';
    let probe = await probeWith(bearer);
    if (probe.status === 401) {
      authNote = `X-API-Key: <API key> (Authorization: Bearer <API key> is answered 401: ${JSON.parse(probe.body).detail ?? ''})`;
      auth = xApiKey;
      probe = await probeWith(xApiKey);
    }
    const summary = ((JSON.parse(probe.body) as { data?: object }).data ?? {}) as { status?: string; total?: number; posted_system_id?: number };
    if (probe.status !== 201 || summary.status !== 'approved' || summary.total !== 90 || !summary.posted_system_id) {
      throw new Error(`POST /invoices probe: ${probe.status} ${probe.body.slice(0, 300)}`);
    }
    log(`auth: ${authNote}`);

    log(`POST /invoices: ${WARMUP} s warm-up, ${DURATION} s at ${CONNECTIONS} connections`);
    const apiWarm = await createViaApi(svc, keys, auth, inv, WARMUP);
    const { result: api, cpu: apiCpu } = await withCpu(() => createViaApi(svc, keys, auth, inv, DURATION), svc.pid);
    log(`bare SQL: ${WARMUP} s warm-up, ${DURATION} s at ${CONNECTIONS} connections`);
    const sqlWarm = await createViaSql(db, inv, monthly, WARMUP);
    const { result: sql, cpu: sqlCpu } = await withCpu(() => createViaSql(db, inv, monthly, DURATION));
    // One connection: what one invoice costs when nothing queues for the lock or the CPU.
    log(`one connection: ${SERIAL} s API, ${SERIAL} s bare SQL`);
    const {
      result: { result: apiSerial, statements: apiStatements },
      cpu: apiSerialCpu,
    } = await withCpu(() => countingServerStatements(svc, () => createViaApi(svc, keys, auth, inv, SERIAL, 1)), svc.pid);
    const {
      result: { result: sqlSerial, statements: sqlStatements },
      cpu: sqlSerialCpu,
    } = await withCpu(() => countingStatements(db, () => createViaSql(db, inv, monthly, SERIAL, 1)));

    // Every 201 and every bare 'ok' is one approved invoice with one posting; the numbers stay gapless.
    const ok = (r: LoadResult, status: string) => r.statuses.get(status) ?? 0;
    const made = 1 + [apiWarm, api, apiSerial].reduce((a, r) => a + ok(r, '201'), 0) + [sqlWarm, sql, sqlSerial].reduce((a, r) => a + ok(r, 'ok'), 0);
    const after = (
      await db.pool.query(
        `SELECT (SELECT count(*) FROM invoices WHERE company_id = $1) AS invoices,
                (SELECT count(*) FROM invoices WHERE company_id = $1 AND status = 'approved' AND posted_transaction_id IS NOT NULL) AS approved,
                (SELECT count(*) FROM invoice_lines WHERE company_id = $1) AS invoice_lines,
                (SELECT count(*) FROM ledger_transactions WHERE company_id = $1) AS transactions,
                (SELECT count(DISTINCT document_number) FROM ledger_transactions WHERE company_id = $1) AS docs,
                (SELECT max(document_number) FROM ledger_transactions WHERE company_id = $1) AS max_doc,
                (SELECT count(*) FROM invoices i JOIN ledger_transactions t ON t.id = i.posted_transaction_id AND t.document_number = i.document_number WHERE i.company_id = $1) AS linked,
                (SELECT count(*) FROM outbox_events WHERE company_id = $1 AND type LIKE 'invoice.%') AS invoice_events,
                (SELECT SUM(debit) FROM transaction_lines WHERE company_id = $1 AND account_id = $2) = (SELECT SUM(total) FROM invoices WHERE company_id = $1) AS receivable_matches,
                (SELECT SUM(debit) - SUM(credit) FROM transaction_lines WHERE company_id = $1) = 0 AS balanced,
                (SELECT SUM(debit) FROM transaction_lines WHERE company_id = $1) = (SELECT SUM(debit) FROM account_daily_balances WHERE company_id = $1)
                  AND (SELECT SUM(credit) FROM transaction_lines WHERE company_id = $1) = (SELECT SUM(credit) FROM account_daily_balances WHERE company_id = $1) AS daily_matches,
                s.last_document_number AS last_doc
         FROM number_sequences s WHERE s.company_id = $1`,
        [seller.companyId, inv.receivable],
      )
    ).rows[0];
    const gapless = after.transactions === after.last_doc && after.docs === after.last_doc && after.max_doc === after.last_doc;
    const consistent =
      after.invoices === made &&
      after.approved === made &&
      after.linked === made &&
      after.transactions === made &&
      after.invoice_lines === 2 * made &&
      after.invoice_events === 2 * made;

    const rate = (r: LoadResult) => r.requests / r.seconds;
    type Cpu = Awaited<ReturnType<typeof withCpu>>['cpu'];
    const cpuCells = (r: LoadResult, cpu: Cpu) =>
      cpu ? `${(cpu.busy * 100).toFixed(0)} % | ${(cpu.machineMs / r.requests).toFixed(2)} | ${(cpu.selfMs / r.requests).toFixed(2)}` : 'n/a | n/a | n/a';
    const row = (label: string, r: LoadResult, cpu: Cpu, note: string) =>
      `| ${label} | ${rate(r).toFixed(0)} | ${ms(percentile(r.latencies, 50))} | ${ms(percentile(r.latencies, 99))} | ${r.requests} | ${statusText(r.statuses)} | ${cpuCells(r, cpu)} | ${note} |`;
    print(
      `c. POST /api/v1/invoices with auto_approve to one company (every approval holds the company's number_sequences row lock until commit), ${CONNECTIONS} connections, ${DURATION} s each (after ${WARMUP} s warm-up); auth header ${authNote}:`,
    );
    print();
    print('| what | req/s | p50 ms | p99 ms | requests | outcomes | machine busy | CPU ms/req, machine | CPU ms/req, service process | |');
    print('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    print(
      row(
        'POST /api/v1/invoices (auto_approve, 2 lines)',
        api,
        apiCpu,
        `service in a child process, pool ${loadConfig({ DATABASE_URL: databaseUrl }).DB_POOL_SIZE}; auth + rate limit + idempotency + audit included`,
      ),
    );
    print(
      row(
        'bare SQL of the same writes (pg)',
        sql,
        sqlCpu,
        `pool ${CONNECTIONS}; invoice + 2 lines, lock, transaction + 4 lines, ${monthly ? 'daily + monthly' : 'daily'} balances, 3 outbox rows, invoice update`,
      ),
    );
    print(
      row(
        'POST /api/v1/invoices, 1 connection',
        apiSerial,
        apiSerialCpu,
        `${SERIAL} s, no queue: the time one request takes; ${(apiStatements / apiSerial.requests).toFixed(1)} SQL statements per request (incl. BEGIN/COMMIT, auth, rate limit, audit)`,
      ),
    );
    print(row('bare SQL, 1 connection', sqlSerial, sqlSerialCpu, `${SERIAL} s; ${(sqlStatements / sqlSerial.requests).toFixed(1)} statements per invoice`));
    print();
    print(
      'CPU: machine = every process on the machine (/proc/stat) during the measurement; service process = the tlr server alone (/proc/<pid>/stat) ' +
        '(for bare SQL: the pg client loop only); the difference is mostly PostgreSQL.',
    );
    print();
    const ratio = rate(api) / rate(sql);
    const all201 = [...api.statuses.keys()].every((s) => s === '201');
    print(
      `**tlr / bare SQL throughput: ${ratio.toFixed(2)}** (${rate(api).toFixed(0)} vs ${rate(sql).toFixed(0)} invoices/s; goal ≥ ${THROUGHPUT_GOAL.toFixed(2)}: ${ratio >= THROUGHPUT_GOAL ? 'met' : 'NOT met'}); ` +
        `one connection: ${(rate(apiSerial) / rate(sqlSerial)).toFixed(2)}. All answers 201: ${all201 ? 'yes' : 'NO'}.`,
    );
    print();
    print(
      `Keys used: ${keys.used} requests over ${keys.count} keys, ${keys.overused} over ${REQUESTS_PER_KEY}/key. After creation: ${after.invoices} invoices (expected ${made}), ` +
        `${after.approved} approved with a posting, ${after.invoice_lines} invoice lines, ${after.transactions} postings; numbers gapless: ${gapless ? 'yes' : 'NO'}; ` +
        `invoice ↔ posting links and counts as expected: ${consistent ? 'yes' : 'NO'}; receivables debits = invoice totals: ${after.receivable_matches ? 'yes' : 'NO'}; ` +
        `postings balanced: ${after.balanced ? 'yes' : 'NO'}; daily balances = lines: ${after.daily_matches ? 'yes' : 'NO'}. load average after c: ${loadavg()}`,
    );
    print();

    // d. the list of the million-invoice company
    const listUrl = `${svc.url}/api/v1/invoices`;
    const expectedAll = INVOICES;
    const expectedPaid = load.byStatus.get('paid') ?? 0;
    // The statements Prisma sends for one list call (the page, the count, the credit notes).
    const prismaSql: { text: string; values: unknown[] }[] = [];
    const captureList = (filter: string) =>
      countingStatements(
        db,
        () => request(`${listUrl}${filter}`, { headers: auth(listKeys.next()) }),
        (text, values) => {
          if (/^\s*SELECT/i.test(text) && /"(invoices|credit_notes)"/.test(text)) prismaSql.push({ text, values });
        },
      );
    await captureList('');
    await captureList('?status=paid');

    log(`GET /invoices: ${LIST_CALLS} sequential calls unfiltered, ${LIST_CALLS} with ?status=paid`);
    const listAll = await timeList(listUrl, listKeys, auth, LIST_CALLS, expectedAll);
    const listPaid = await timeList(`${listUrl}?status=paid`, listKeys, auth, LIST_CALLS, expectedPaid);

    log(`bare SQL of the list: ${LIST_CALLS} calls each`);
    const L = lister.companyId;
    const pageSql = (status: boolean) =>
      `SELECT i.*, cn.id AS credit_note_id, cn.document_number AS credit_note_number, cn.date AS credit_note_date, cn.transaction_id AS credit_note_transaction_id
       FROM invoices i LEFT JOIN credit_notes cn ON cn.invoice_id = i.id
       WHERE i.company_id = $1${status ? ' AND i.status = $2' : ''}
       ORDER BY i.created_at DESC, i.id DESC LIMIT ${PER_PAGE} OFFSET 0`;
    const countSql = (status: boolean) => `SELECT count(*) AS n FROM invoices WHERE company_id = $1${status ? ' AND status = $2' : ''}`;
    const bare = async (status: boolean) => {
      const params = status ? [L, 'paid'] : [L];
      const expected = status ? expectedPaid : expectedAll;
      const counted = Number((await db.pool.query(countSql(status), params)).rows[0].n);
      if (counted !== expected) throw new Error(`bare count ${counted}, expected ${expected}`);
      return {
        page: await timeSql(LIST_CALLS, () => db.pool.query(pageSql(status), params)),
        count: await timeSql(LIST_CALLS, () => db.pool.query(countSql(status), params)),
        both: await timeSql(LIST_CALLS, () => Promise.all([db.pool.query(pageSql(status), params), db.pool.query(countSql(status), params)])),
      };
    };
    const bareAll = await bare(false);
    const barePaid = await bare(true);

    const pct = (s: number[]) => `${ms(percentile(s, 50))} | ${ms(percentile(s, 95))} | ${ms(percentile(s, 99))} | ${ms(s.at(-1)!)}`;
    print(
      `d. the first page (per_page ${PER_PAGE}, newest first) of a company with ${INVOICES.toLocaleString('en')} invoices, ${LIST_CALLS} sequential calls each (after 3 warm-up calls):`,
    );
    print();
    print('| what | p50 ms | p95 ms | p99 ms | max ms | outcomes | meta.total exact |');
    print('| --- | --- | --- | --- | --- | --- | --- |');
    const apiRow = (label: string, r: ListCalls, expected: number) =>
      print(
        `| ${label} | ${pct(r.sorted)} | ${statusText(r.statuses)} | ${r.wrong.length === 0 ? `yes (${expected.toLocaleString('en')}), ${r.bytes} bytes` : `NO: ${r.wrong.length} wrong, e.g. ${r.wrong[0]}`} |`,
      );
    apiRow('GET /api/v1/invoices', listAll, expectedAll);
    apiRow('GET /api/v1/invoices?status=paid', listPaid, expectedPaid);
    print(`| bare SQL: page query (LEFT JOIN credit_notes, LIMIT ${PER_PAGE}) | ${pct(bareAll.page)} | | |`);
    print(`| bare SQL: count(*) | ${pct(bareAll.count)} | | |`);
    print(`| bare SQL: page + count in parallel (as the list does) | ${pct(bareAll.both)} | | |`);
    print(`| bare SQL, status = 'paid': page query | ${pct(barePaid.page)} | | |`);
    print(`| bare SQL, status = 'paid': count(*) | ${pct(barePaid.count)} | | |`);
    print(`| bare SQL, status = 'paid': page + count in parallel | ${pct(barePaid.both)} | | |`);
    print();
    const p99All = percentile(listAll.sorted, 99);
    const p99Paid = percentile(listPaid.sorted, 99);
    const listOk = p99All < LIST_GOAL_MS && p99Paid < LIST_GOAL_MS;
    print(
      `**List p99 goal (< ${LIST_GOAL_MS} ms): ${listOk ? 'met' : 'NOT met'}** (unfiltered ${ms(p99All)} ms, status=paid ${ms(p99Paid)} ms). ` +
        `Keys used: ${listKeys.used} requests over ${listKeys.count} keys, ${listKeys.overused} over ${REQUESTS_PER_KEY}/key. load average after d: ${loadavg()}`,
    );
    print();

    if (!listOk || EXPLAIN) {
      print(`EXPLAIN (ANALYZE, BUFFERS) of the statements Prisma sent for one list call of each kind:`);
      print();
      for (const q of prismaSql) {
        const plan = (await db.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${q.text}`, q.values)).rows.map((r) => r['QUERY PLAN']);
        print('```sql');
        print(q.text.replace(/\s+/g, ' ').trim());
        print(`-- ${JSON.stringify(q.values.length > 6 ? [...q.values.slice(0, 2), `… ${q.values.length - 3} more …`, q.values.at(-1)] : q.values)}`);
        print('```');
        print('```');
        for (const line of plan) print(line.length > 200 ? `${line.slice(0, 200)}…` : line);
        print('```');
        print();
      }
    }
  } finally {
    agent.destroy();
    await cleanup();
  }
  for (const line of machineLines()) print(line);
}

main().then(
  () => process.exit(0),
  (e) => {
    log(`failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exit(1);
  },
);
