// pnpm bench: load benchmarks of the tlr API against a bare Express 5 + pg baseline, in one run.
//
//   1. a database of its own: on DATABASE_URL's server when set, otherwise on an embedded PostgreSQL
//      under .data/bench-pg (port 54331); dropped again at the end
//   2. seeds one company with 10,000 valid customers (bulk SQL) and API keys (bulk SQL, see KeyPool)
//   3. starts the baseline server and the real service (startService, RUN_WORKER=false,
//      LOG_LEVEL=silent) in child processes, with the same pool size; the baseline gets the company's
//      account ids and one customer for its bare posting and invoice (bare-writes.ts)
//   4. autocannon (programmatic), per scenario a short warm-up then the measurement. Pairs, each tlr
//      against the baseline doing the bare work of the same request: GET by id (and again paced at half
//      the rate it reached, for its p99 at half load, next to the baseline at that rate and at half of its
//      own rate), list (50 rows and the total), create a customer,
//      POST /transactions (a balanced 4-line posting, the same body to both), POST /invoices with
//      auto_approve (2 lines, the same body to both); then the diagnostics (401, 429 ...)
//   5. prints a table (req/s, p50, p99, non-2xx, errors), CPU time per request of the server, of
//      PostgreSQL and of autocannon (Linux /proc), the tlr/baseline ratio of each pair, and whether the
//      company's document and system numbers stayed gapless after all the postings and invoices
//
// The rate limit (100 requests per 60 s per key, counted in PostgreSQL) stays on. Every request takes
// a key from a round-robin set of keys and no key is ever used more than BENCH_REQUESTS_PER_KEY (90)
// times, so no request is refused with 429 while every request still pays for authentication and
// counting. Latest results: docs/perf.md; every run and its reading: docs/history/perf-log.md.
//
// Environment (all optional):
//   BENCH_DURATION      seconds per main scenario (10)       BENCH_WARMUP   warm-up seconds (2)
//   BENCH_CONNECTIONS   concurrent connections (32)           BENCH_CUSTOMERS seeded customers (10000)
//   BENCH_ONLY          comma-separated scenario ids (default: all), e.g. baseline-get,tlr-get
//   BENCH_ROUNDS        run the selected scenarios this many times in turn (1); each ratio and the p99 at
//                       half load are then printed per round and as the median over the rounds
//   BENCH_DIAG          0 to skip the diagnostic scenarios (tlr-discovery, tlr-401, tlr-400, tlr-429)
//   BENCH_DIAG_DURATION seconds per diagnostic scenario (half of BENCH_DURATION, at least 3)
//   BENCH_REQUESTS_PER_KEY  requests per API key before it is retired (90; the limit is 100 a minute)
//   BENCH_CPU_PROF      1: run both servers with --cpu-prof and print where their CPU time went
//   BENCH_SQL           0 to skip the closing SQL micro-benchmark (the product's authentication statement
//                       as sent today, unnamed, against the same text as a prepared statement)
//   BENCH_SQL_STATEMENTS statements per row of the SQL micro-benchmark (2000, after a tenth as warm-up)
//   BENCH_JSON          path: also write the results as JSON there
//   BENCH_NODE_FLAGS    more Node/V8 flags for both servers (diagnostics), e.g. --trace-gc-nvp
//   BENCH_SYNCHRONOUS_COMMIT  off: ALTER DATABASE ... SET synchronous_commit = off for the bench database
//                       (a what-if: how much of the cost is the WAL flush of the per-request rate-limit write)
//   DATABASE_URL        use this PostgreSQL server instead of the embedded one
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { paced, type PacedRequest } from './paced.ts';
import { createDatabase, dropDatabase, resolveDatabaseServer, withDatabase, type Database, type DatabaseServer } from '@tlr/db';
import {
  addDays,
  authenticateApiKey,
  checkCvr,
  createApiKey,
  createCompany,
  generateApiKey,
  DEFAULT_ACCOUNTS,
  keyDigest,
  keyPrefix,
  newId,
  SCOPES,
  today,
} from '@tlr/domain';
import { spawnServer, type RunningServer } from './http.ts';
import { cleanupStack } from './cleanup.ts';
import { migratedDatabase, procTicks } from './lib.ts';
import { accountIds, hasMonthlyBalances, invoiceBody, OUTPUT_VAT_ACCOUNT, POSTING_ACCOUNTS, postingBody } from './bare-writes.ts';

const env = process.env;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
const DURATION = num('BENCH_DURATION', 10);
const DIAG_DURATION = num('BENCH_DIAG_DURATION', Math.max(3, Math.round(DURATION / 2)));
const SQL_STATEMENTS = num('BENCH_SQL_STATEMENTS', 2000);
const WARMUP = num('BENCH_WARMUP', 2);
const ROUNDS = num('BENCH_ROUNDS', 1);
const CONNECTIONS = num('BENCH_CONNECTIONS', 32);
const CUSTOMERS = num('BENCH_CUSTOMERS', 10_000);
const REQUESTS_PER_KEY = num('BENCH_REQUESTS_PER_KEY', 90);
const ONLY = env.BENCH_ONLY ? new Set(env.BENCH_ONLY.split(',').map((s) => s.trim())) : undefined;
const DIAG = env.BENCH_DIAG !== '0';
const CPU_PROF = env.BENCH_CPU_PROF === '1';
const POOL_SIZE = 10; // tlr's default DB_POOL_SIZE; the baseline gets the same
const RUN_ID = `${Date.now().toString(36)}${process.pid.toString(36)}`;

const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);

// ---------------------------------------------------------------------------------------------------
// API keys on demand: rows inserted in bulk (sha256 digest, as the product stores it). Requests go
// round-robin over an active set of keys (more keys than connections, so that concurrent requests do
// not all count on one rate-limit row, as concurrent clients would not); a key that has served
// REQUESTS_PER_KEY requests leaves the set for good and a fresh one takes its place.

class KeyPool {
  private fresh: string[] = [];
  private active: { key: string; uses: number }[] = [];
  private cursor = 0;
  private refilling: Promise<void> | undefined;
  /** Requests that found no fresh key and had to overuse one (they may see 429). */
  exhausted = 0;
  created = 0;

  private readonly db: Database;
  private readonly companyId: string;
  private readonly ownerId: string;
  private readonly activeSize: number;
  private readonly batch: number;
  constructor(db: Database, companyId: string, ownerId: string, activeSize = 64, batch = 1000) {
    this.db = db;
    this.companyId = companyId;
    this.ownerId = ownerId;
    this.activeSize = activeSize;
    this.batch = batch;
  }

  async add(count: number): Promise<void> {
    const keys = Array.from({ length: count }, () => generateApiKey('live'));
    await this.db.pool.query(
      `INSERT INTO api_keys (id, company_id, name, mode, key_prefix, key_hash, scopes, created_by)
       SELECT t.id, $1, 'bench ' || t.n, 'live', t.prefix, t.hash, $5::text[], $6
       FROM unnest($2::uuid[], $3::text[], $4::bytea[]) WITH ORDINALITY AS t(id, prefix, hash, n)`,
      [this.companyId, keys.map(() => newId()), keys.map(keyPrefix), keys.map((k) => Buffer.from(keyDigest(k))), [...SCOPES], this.ownerId],
    );
    this.fresh.push(...keys);
    this.created += count;
  }

  /**
   * Adds, before a latency measurement, the keys its requests will use: a refill during it would stall
   * this process (which sends the requests) for the tens of milliseconds that making 1,000 keys takes.
   */
  async reserve(requests: number): Promise<void> {
    await this.refilling;
    const missing = Math.ceil(requests / REQUESTS_PER_KEY) + this.batch / 2 - this.fresh.length;
    if (missing > 0) await this.add(missing);
  }

  /** Synchronous (autocannon's setupRequest cannot wait): tops the pool up in the background. */
  next(): string {
    if (this.fresh.length < this.batch / 2 && !this.refilling) {
      this.refilling = this.add(this.batch)
        .catch((e: unknown) => {
          log(`key refill failed: ${String(e)}`);
        })
        .finally(() => (this.refilling = undefined));
    }
    this.cursor = (this.cursor + 1) % this.activeSize;
    let slot = this.active[this.cursor];
    if (!slot || slot.uses >= REQUESTS_PER_KEY) {
      const key = this.fresh.shift();
      if (key) slot = this.active[this.cursor] = { key, uses: 0 };
      else this.exhausted += 1;
    }
    slot ??= this.active.find(Boolean)!;
    slot.uses += 1;
    return slot.key;
  }
}

// ---------------------------------------------------------------------------------------------------
// Scenarios

interface Scenario {
  id: string;
  title: string;
  server: 'baseline' | 'tlr';
  expect: number;
  diagnostic?: boolean;
  prepare?: () => Promise<void>;
  request: () => autocannon.Request;
  /** Paced at half the rate the named scenario reached (measured earlier in the run), not as fast as it goes. */
  halfRateOf?: string;
}

/** The create scenarios' body: the same fields for tlr and the baseline. */
const customerBody = (n: number) => ({
  name: `Bench Kunde ${n} ApS`,
  email: `bench${n}@example.dk`,
  phone: `+45 ${40000000 + (n % 9_999_999)}`,
  city: 'Odense C',
  payment_terms_days: 30,
});

interface Row {
  id: string;
  title: string;
  rps: number;
  p50: number;
  p99: number;
  total: number;
  expected: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statuses: Record<string, number>;
  duration: number;
  cpu?: CpuPerRequest;
  /** Which of the BENCH_ROUNDS rounds it was measured in (1-based). */
  round?: number;
}

/** The scenario's name in the tables, with its round when there are several. */
const label = (r: Pick<Row, 'id' | 'round'>) => (ROUNDS > 1 ? `${r.id} (round ${r.round})` : r.id);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

// ---------------------------------------------------------------------------------------------------
// CPU accounting (Linux /proc): on a small machine the load generator, the server and PostgreSQL share
// the cores, so "where the time goes" is CPU time per request of each process group.

interface CpuPerRequest {
  machineBusy: number;
  server: number;
  postgres?: number;
  loadgen: number;
}
interface CpuSnapshot {
  at: bigint;
  machine?: { busy: number; total: number };
  server?: number;
  postgres?: number;
  loadgen: number;
}
const TICK_US = 1e6 / 100; // USER_HZ

/**
 * The postmaster, its live children (backends, walwriter, checkpointer ...) and the children that have
 * exited (an idle pool connection closes after 30 s; its CPU time moves to the postmaster's cutime).
 */
function postgresTicks(postmaster: number | undefined): number | undefined {
  const own = postmaster ? procTicks(postmaster, true) : undefined;
  if (own === undefined) return undefined;
  let ticks = own;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(f[1]) === postmaster) ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks;
}

function cpuSnapshot(serverPid: number, postmaster: number | undefined): CpuSnapshot {
  let machine: CpuSnapshot['machine'];
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = cpu[3]! + cpu[4]!;
    const total = cpu.slice(0, 8).reduce((a, b) => a + b, 0);
    machine = { busy: total - idle, total };
  } catch {
    machine = undefined;
  }
  const own = process.cpuUsage();
  return { at: process.hrtime.bigint(), machine, server: procTicks(serverPid), postgres: postgresTicks(postmaster), loadgen: own.user + own.system };
}

function cpuPerRequest(a: CpuSnapshot, b: CpuSnapshot, requests: number): CpuPerRequest | undefined {
  if (!a.machine || !b.machine || a.server === undefined || b.server === undefined || requests === 0) return undefined;
  return {
    machineBusy: (b.machine.busy - a.machine.busy) / (b.machine.total - a.machine.total),
    server: ((b.server - a.server) * TICK_US) / requests,
    ...(a.postgres !== undefined && b.postgres !== undefined ? { postgres: ((b.postgres - a.postgres) * TICK_US) / requests } : {}),
    loadgen: (b.loadgen - a.loadgen) / requests,
  };
}

async function measure(url: string, s: Scenario, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    // autocannon looks at its stop flag once per sample, every second by default: a smoke run's 0.3 s
    // scenario would run for a whole second at full load (and its warm-up another). Under a second, the
    // samples are as long as the scenario (toRow then divides the requests by the seconds measured).
    ...(seconds < 1 ? { sampleInt: Math.max(10, Math.round(seconds * 1000)) } : {}),
    timeout: 10,
    requests: [s.request()],
  });
}

/** The scenario's requests, paced at `rate` per second (paced.ts), as a row of the table. */
async function measurePaced(url: string, s: Scenario, seconds: number, rate: number): Promise<Row> {
  const template = s.request();
  const request = (): PacedRequest => {
    const r = typeof template.setupRequest === 'function' ? template.setupRequest({ ...template }, {}) : template;
    return { method: r.method ?? 'GET', path: r.path ?? '/', ...(r.headers ? { headers: r.headers as Record<string, string> } : {}) };
  };
  const r = await paced(url, { rate, seconds, connections: CONNECTIONS, request });
  const ok = r.statuses[String(s.expect)] ?? 0;
  return {
    id: s.id,
    title: `${s.title} (${rate} req/s paced)`,
    rps: r.rps,
    p50: Math.round(r.p50 * 10) / 10,
    p99: Math.round(r.p99 * 10) / 10,
    total: r.sent,
    expected: ok,
    non2xx: Object.entries(r.statuses).reduce((n, [code, c]) => (code.startsWith('2') ? n : n + c), 0),
    errors: r.errors,
    timeouts: 0,
    statuses: r.statuses,
    duration: seconds,
  };
}

function toRow(s: Scenario, r: autocannon.Result): Row {
  const statuses = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, v]) => [code, Number((v as { count: number | string }).count)]));
  return {
    id: s.id,
    title: s.title,
    // Per second: a sample is a second unless the scenario is shorter (measure).
    rps: r.duration < 1 ? r.requests.total / Math.max(r.duration, 0.01) : r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    total: r.requests.total,
    expected: statuses[String(s.expect)] ?? 0,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statuses,
    duration: r.duration,
  };
}

function table(rows: Row[]): string {
  const head = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'expected status', 'non-2xx', 'errors (timeouts)'];
  const lines = rows.map((r) => [
    `${label(r)}: ${r.title}`,
    r.rps.toFixed(0),
    r.p50.toFixed(1),
    r.p99.toFixed(1),
    String(r.total),
    Object.entries(r.statuses)
      .map(([c, n]) => `${c}×${n}`)
      .join(' ') || '-',
    String(r.non2xx),
    `${r.errors} (${r.timeouts})`,
  ]);
  const out = [head, head.map(() => '---'), ...lines].map((cols) => `| ${cols.join(' | ')} |`);
  return out.join('\n');
}

function cpuTable(rows: Row[]): string {
  const head = ['scenario', 'machine busy', 'server µs/req', 'PostgreSQL µs/req', 'autocannon µs/req', 'total µs/req'];
  const us = (n: number | undefined) => (n === undefined ? 'n/a' : n.toFixed(0));
  const lines = rows
    .filter((r) => r.cpu)
    .map((r) => {
      const c = r.cpu!;
      return [label(r), `${(100 * c.machineBusy).toFixed(0)}%`, us(c.server), us(c.postgres), us(c.loadgen), us(c.server + (c.postgres ?? 0) + c.loadgen)];
    });
  return [head, head.map(() => '---'), ...lines].map((cols) => `| ${cols.join(' | ')} |`).join('\n');
}

// ---------------------------------------------------------------------------------------------------
// CPU profile summary: self time by package and by function.

function summariseProfile(dir: string, requests: number): string {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (!files.length) return `no .cpuprofile in ${dir}`;
  const profile = JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')) as {
    nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }[];
    samples: number[];
    timeDeltas: number[];
  };
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  let total = 0;
  const byPkg = new Map<string, number>();
  const byFn = new Map<string, number>();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byNode.get(id)!.callFrame;
    if (functionName === '(idle)') continue;
    total += us;
    const pkg =
      /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ??
      /\/work\/[^/]+\/((?:packages|apps)\/[^/]+)/.exec(url)?.[1] ??
      (url.startsWith('node:') ? 'node (internals)' : url ? url.replace(/^.*\//, '') : functionName || '(native)');
    byPkg.set(pkg, (byPkg.get(pkg) ?? 0) + us);
    const fn =
      `${functionName || '(anonymous)'} ${url ? `${url.replace(/^.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, '').replace(/^file:\/\/\/work\/[^/]+\//, '')}:${lineNumber + 1}` : ''}`.trim();
    byFn.set(fn, (byFn.get(fn) ?? 0) + us);
  }
  const top = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => `  ${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`)
      .join('\n');
  return `busy CPU time ${(total / 1e6).toFixed(1)} s (idle excluded) for ${requests} requests = ${(total / requests).toFixed(0)} µs per request; self time\nby package:\n${top(byPkg, 15)}\nby function:\n${top(byFn, 25)}`;
}

// ---------------------------------------------------------------------------------------------------
// SQL micro-benchmark: sequential round trips on one connection, after the load. The authentication
// statement is captured from the product itself (authenticateApiKey on a recording Queryable), so this
// measures exactly what every request sends.

async function sqlMicroBench(db: Database, companyId: string, customerId: string, key: () => string): Promise<string> {
  let authSql = '';
  // The product sends it as a named statement's config ({ name, text, values }), or once as plain text.
  await authenticateApiKey({ query: (async (q: string | { text: string }) => ((authSql = typeof q === 'string' ? q : q.text), { rows: [] })) as never }, key());
  const client = await db.pool.connect();
  const N = SQL_STATEMENTS;
  const lines: string[] = [];
  try {
    const time = async (label: string, run: () => Promise<unknown>) => {
      for (let i = 0; i < N / 10; i++) await run();
      const t = process.hrtime.bigint();
      for (let i = 0; i < N; i++) await run();
      lines.push(`| ${label} | ${(Number(process.hrtime.bigint() - t) / 1e3 / N).toFixed(0)} |`);
    };
    await time('baseline SELECT customer by id', () => client.query('SELECT * FROM customers WHERE id = $1 AND company_id = $2', [customerId, companyId]));
    await time('tlr authentication + rate-limit statement, unnamed (as today)', () => client.query(authSql, [keyDigest(key())]));
    await time('the same statement, prepared (named)', () => client.query({ name: 'bench_auth', text: authSql, values: [keyDigest(key())] }));
    await client.query('SET synchronous_commit = off');
    await time('the same, prepared, synchronous_commit off', () => client.query({ name: 'bench_auth', text: authSql, values: [keyDigest(key())] }));
  } finally {
    await client.query('RESET synchronous_commit').catch(() => {});
    client.release();
  }
  return [`SQL round trips, sequential on one connection (${N} each, µs wall per statement):`, '', '| statement | µs |', '| --- | --- |', ...lines].join('\n');
}

// ---------------------------------------------------------------------------------------------------

async function main() {
  const cleanups = cleanupStack(log);
  const cleanup = cleanups.run;

  try {
    // 1. database
    const given = env.DATABASE_URL || undefined;
    log(given ? 'database: DATABASE_URL' : 'database: embedded PostgreSQL in .data/bench-pg on 127.0.0.1:54331');
    const dbServer: DatabaseServer = await resolveDatabaseServer({ databaseUrl: given, dataDir: '.data', embeddedPort: 54331, embeddedFolder: 'bench-pg' });
    cleanups.push(() => dbServer.stop());
    // The embedded server's postmaster, for CPU accounting (unknown for DATABASE_URL).
    const postmaster = dbServer.embedded ? Number(readFileSync('.data/bench-pg/postmaster.pid', 'utf8').split('\n')[0]) : undefined;
    const serverUrl = withDatabase(dbServer.url, 'postgres');
    const dbName = `tlr_bench_${RUN_ID}`;
    const databaseUrl = await migratedDatabase(serverUrl, dbName);
    cleanups.push(() => dropDatabase(serverUrl, dbName));
    if (env.BENCH_SYNCHRONOUS_COMMIT) {
      const value = env.BENCH_SYNCHRONOUS_COMMIT === 'off' ? 'off' : 'on';
      const admin = createDatabase(serverUrl, 1);
      await admin.pool.query(`ALTER DATABASE "${dbName}" SET synchronous_commit = ${value}`);
      await admin.close();
    }
    const db = createDatabase(databaseUrl, 4);
    cleanups.push(() => db.close());
    const pgVersion = (await db.pool.query('SHOW server_version')).rows[0].server_version as string;
    const syncCommit = (await db.pool.query('SHOW synchronous_commit')).rows[0].synchronous_commit as string;

    // 2. seed
    const { company_id: companyId, user_id: ownerId } = await createCompany(db.prisma, {
      name: 'Benchmark ApS',
      ownerEmail: `bench-${RUN_ID}@example.dk`,
      ownerPassword: 'benchmark password',
    });
    const started = Date.now() - CUSTOMERS * 1000;
    const ids = Array.from({ length: CUSTOMERS }, (_, i) => newId(started + i * 1000));
    // Valid CVR numbers (modulus 11), as the API would have accepted them: about one number in eleven.
    const cvrs: string[] = [];
    for (let n = 30000000; cvrs.length < CUSTOMERS; n++) if (!checkCvr(String(n))) cvrs.push(String(n));
    await db.pool.query(
      `INSERT INTO customers (id, company_id, name, email, lookup_email, phone, lookup_phone, cvr, address_line1, postal_code, city,
                              country, payment_terms_days, created_at, updated_at)
       SELECT t.id, $1, 'Kunde ' || lpad(t.n::text, 5, '0') || ' ApS', 'Kunde' || t.n || '@Example.dk', 'kunde' || t.n || '@example.dk',
              '+45 ' || (20000000 + t.n), (20000000 + t.n)::text, ($4::text[])[t.n], 'Vestergade ' || t.n, '8000', 'Aarhus C',
              'DK', 14, $3::timestamptz + t.n * interval '1 second', $3::timestamptz + t.n * interval '1 second'
       FROM unnest($2::uuid[]) WITH ORDINALITY AS t(id, n)`,
      [companyId, ids, new Date(started), cvrs],
    );
    await db.pool.query('ANALYZE customers');
    // One key through the domain function, the way the CLI makes them; the pool's keys are the same rows in bulk.
    const { key: smokeKey, id: smokeKeyId } = await createApiKey(db.prisma, { companyId, name: 'bench smoke', scopes: [...SCOPES], mode: 'live' });
    const keys = new KeyPool(db, companyId, ownerId);
    await keys.add(1000);
    log(`seeded company ${companyId}: ${CUSTOMERS} customers, ${keys.created} API keys`);

    // What the posting and invoice scenarios need: accounts of the chart, one of the seeded customers as
    // the buyer, the dates (today, in the open fiscal year createCompany made). The baseline gets the ids
    // the way tlr would look them up, once, beforehand.
    const accounts = await accountIds(db.pool, companyId, [...POSTING_ACCOUNTS, DEFAULT_ACCOUNTS.receivable]);
    const buyer = (await db.pool.query<{ id: string; name: string }>('SELECT id, name FROM customers WHERE id = $1', [ids[0]])).rows[0]!;
    const bookDate = today();
    const invoice = invoiceBody({ customerId: buyer.id, issue: bookDate, due: addDays(bookDate, 14) });
    // The same invoice in euro, its rate taken from the company's table (one row for today).
    const eurInvoice = JSON.stringify({ ...JSON.parse(invoice), currency: 'EUR' });
    await db.pool.query(`INSERT INTO exchange_rates (id, company_id, currency, date, rate, source) VALUES ($1, $2, 'EUR', $3, 7.4612, 'api')`, [
      newId(),
      companyId,
      bookDate,
    ]);
    const writes = {
      monthly: await hasMonthlyBalances(db.pool),
      accounts,
      invoicing: {
        customerId: buyer.id,
        customerName: buyer.name,
        receivable: accounts[DEFAULT_ACCOUNTS.receivable]!,
        sales: accounts[DEFAULT_ACCOUNTS.sales]!,
        outputVat: accounts[OUTPUT_VAT_ACCOUNT]!,
      },
    };

    // 3. servers
    const profDir = resolve('.data/bench-prof', RUN_ID);
    const servers: Record<'baseline' | 'tlr', RunningServer> = {
      baseline: await spawnServer(
        { kind: 'baseline', databaseUrl, companyId, poolSize: POOL_SIZE, writes },
        CPU_PROF ? { cpuProfDir: join(profDir, 'baseline') } : {},
      ),
      tlr: await spawnServer({ kind: 'tlr', databaseUrl, poolSize: POOL_SIZE }, CPU_PROF ? { cpuProfDir: join(profDir, 'tlr') } : {}),
    };
    cleanups.push(() => servers.baseline.stop());
    cleanups.push(() => servers.tlr.stop());
    log(`baseline ${servers.baseline.url} (pid ${servers.baseline.pid}), tlr ${servers.tlr.url} (pid ${servers.tlr.pid})`);

    // Smoke checks: every scenario's request works before anything is measured.
    const sample = ids[Math.floor(CUSTOMERS / 2)]!;
    const base = await fetch(`${servers.baseline.url}/customers/${sample}`).then((r) => r.json() as Promise<Record<string, unknown>>);
    const tlrOne = await fetch(`${servers.tlr.url}/api/v1/customers/${sample}`, { headers: { 'X-API-Key': smokeKey } });
    const tlrBody = (await tlrOne.json()) as { data: Record<string, unknown> };
    if (tlrOne.status !== 200 || tlrBody.data.id !== sample || base.id !== sample || tlrBody.data.name !== base.name) {
      throw new Error(`smoke check failed: tlr ${tlrOne.status} ${JSON.stringify(tlrBody)}; baseline ${JSON.stringify(base)}`);
    }
    const listed = await fetch(`${servers.tlr.url}/api/v1/customers?per_page=50`, { headers: { 'X-API-Key': keys.next() } });
    const listBody = (await listed.json()) as { data: unknown[]; meta: { total: number } };
    if (listed.status !== 200 || listBody.data.length !== 50 || listBody.meta.total !== CUSTOMERS) throw new Error(`smoke check failed: list ${listed.status}`);

    // 4. scenarios
    const pick = () => ids[Math.floor(Math.random() * ids.length)]!;
    let created = 0;
    const exhaustedKey = smokeKey;
    /** A write's headers: tlr's with the next key of the pool and a unique Idempotency-Key. */
    const writeHeaders = (server: 'baseline' | 'tlr', n: number): Record<string, string> => ({
      'content-type': 'application/json',
      ...(server === 'tlr' ? { 'x-api-key': keys.next(), 'idempotency-key': `bench-${RUN_ID}-${n}` } : {}),
    });
    /** A POST of a fresh body per request. */
    const post = (server: 'baseline' | 'tlr', path: string, body: (n: number) => string) => (): autocannon.Request => ({
      method: 'POST',
      path,
      setupRequest: (req) => {
        const n = ++created;
        return { ...req, headers: writeHeaders(server, n), body: body(n) };
      },
    });
    const customer = (n: number) => JSON.stringify(customerBody(n));
    const posting = (n: number) => postingBody(n, bookDate);
    // Smoke checks of the writes: one posting and one auto-approved invoice on each server.
    for (const [server, prefix] of [
      ['baseline', ''],
      ['tlr', '/api/v1'],
    ] as const) {
      for (const [path, body] of [
        ['/transactions', posting],
        ['/invoices', () => invoice],
      ] as const) {
        const n = ++created;
        const r = await fetch(`${servers[server].url}${prefix}${path}`, { method: 'POST', headers: writeHeaders(server, n), body: body(n) });
        const answer = (await r.json()) as { data?: { status?: string; total?: number } };
        if (r.status !== 201 || (server === 'tlr' && path === '/invoices' && (answer.data?.status !== 'approved' || answer.data.total !== 90))) {
          throw new Error(`smoke check failed: ${server} POST ${path} ${r.status} ${JSON.stringify(answer).slice(0, 300)}`);
        }
      }
    }
    // GET by id of a random customer, for the full-load and the paced scenarios.
    const baselineGet = (): autocannon.Request => ({ method: 'GET', path: '/customers/x', setupRequest: (req) => ({ ...req, path: `/customers/${pick()}` }) });
    const tlrGet = (): autocannon.Request => ({
      method: 'GET',
      path: '/api/v1/customers/x',
      setupRequest: (req) => ({ ...req, path: `/api/v1/customers/${pick()}`, headers: { 'x-api-key': keys.next() } }),
    });
    const scenarios: Scenario[] = [
      {
        id: 'baseline-get',
        title: 'baseline Express+pg GET /customers/:id',
        server: 'baseline',
        expect: 200,
        request: baselineGet,
      },
      {
        id: 'tlr-get',
        title: 'tlr GET /api/v1/customers/{id}',
        server: 'tlr',
        expect: 200,
        request: tlrGet,
      },
      {
        // The aim: p99 under 10 ms at half of the maximum load (the same requests as tlr-get, paced
        // evenly by paced.ts: autocannon's own pacing sends bursts at full load).
        id: 'tlr-get-half',
        title: "tlr GET /api/v1/customers/{id} at half of tlr-get's rate",
        server: 'tlr',
        expect: 200,
        halfRateOf: 'tlr-get',
        request: tlrGet,
      },
      {
        // The bare baseline at the same paced rate: what the machine itself adds to the tail.
        id: 'baseline-get-half',
        title: "baseline Express+pg GET /customers/:id at half of tlr-get's rate",
        server: 'baseline',
        expect: 200,
        halfRateOf: 'tlr-get',
        request: baselineGet,
      },
      {
        // The bare baseline at half of its own rate: the tail this machine gives any server at half load
        // (at tlr's half rate the baseline is less busy than tlr, so its tail is shorter).
        id: 'baseline-get-own-half',
        title: "baseline Express+pg GET /customers/:id at half of baseline-get's rate",
        server: 'baseline',
        expect: 200,
        halfRateOf: 'baseline-get',
        request: baselineGet,
      },
      {
        id: 'baseline-list',
        title: 'baseline Express+pg GET /customers (50 rows + total)',
        server: 'baseline',
        expect: 200,
        request: () => ({ method: 'GET', path: '/customers' }),
      },
      {
        id: 'tlr-list',
        title: 'tlr GET /api/v1/customers?per_page=50',
        server: 'tlr',
        expect: 200,
        request: () => ({ method: 'GET', path: '/api/v1/customers?per_page=50', setupRequest: (req) => ({ ...req, headers: { 'x-api-key': keys.next() } }) }),
      },
      {
        id: 'baseline-create',
        title: 'baseline Express+pg POST /customers (one INSERT)',
        server: 'baseline',
        expect: 201,
        request: post('baseline', '/customers', customer),
      },
      {
        id: 'tlr-create',
        title: 'tlr POST /api/v1/customers (unique Idempotency-Key)',
        server: 'tlr',
        expect: 201,
        request: post('tlr', '/api/v1/customers', customer),
      },
      {
        id: 'baseline-post-transaction',
        title: 'baseline Express+pg POST /transactions (bare SQL of the posting: number lock, transaction + 4 lines, balances, outbox)',
        server: 'baseline',
        expect: 201,
        request: post('baseline', '/transactions', posting),
      },
      {
        id: 'tlr-post-transaction',
        title: 'tlr POST /api/v1/transactions (4 balanced lines, unique Idempotency-Key)',
        server: 'tlr',
        expect: 201,
        request: post('tlr', '/api/v1/transactions', posting),
      },
      {
        id: 'baseline-post-invoice',
        title: 'baseline Express+pg POST /invoices (bare SQL of an auto-approved invoice: invoice + 2 lines, its posting, 3 events)',
        server: 'baseline',
        expect: 201,
        request: post('baseline', '/invoices', () => invoice),
      },
      {
        id: 'tlr-post-invoice',
        title: 'tlr POST /api/v1/invoices (auto_approve, 2 lines, unique Idempotency-Key)',
        server: 'tlr',
        expect: 201,
        request: post('tlr', '/api/v1/invoices', () => invoice),
      },
      {
        // The same invoice in EUR, the rate read from the company's table, each line converted.
        id: 'tlr-post-invoice-eur',
        title: 'tlr POST /api/v1/invoices in EUR (auto_approve, 2 lines, rate from the exchange-rate table)',
        server: 'tlr',
        expect: 201,
        request: post('tlr', '/api/v1/invoices', () => eurInvoice),
      },
      // Diagnostics: the same service with parts of the request path taken away.
      {
        id: 'tlr-discovery',
        title: 'tlr GET /api/v1/ (no auth, no database)',
        server: 'tlr',
        expect: 200,
        diagnostic: true,
        request: () => ({ method: 'GET', path: '/api/v1/' }),
      },
      {
        id: 'tlr-401',
        title: 'tlr GET /api/v1/customers/{id}, malformed key: 401 before any SQL',
        server: 'tlr',
        expect: 401,
        diagnostic: true,
        request: () => ({
          method: 'GET',
          path: '/api/v1/customers/x',
          setupRequest: (req) => ({ ...req, path: `/api/v1/customers/${pick()}`, headers: { 'x-api-key': 'not-a-key' } }),
        }),
      },
      {
        id: 'tlr-400',
        title: 'tlr GET /api/v1/customers/not-a-uuid: auth + count SQL + tRPC input validation, no Prisma',
        server: 'tlr',
        expect: 400,
        diagnostic: true,
        request: () => ({ method: 'GET', path: '/api/v1/customers/not-a-uuid', setupRequest: (req) => ({ ...req, headers: { 'x-api-key': keys.next() } }) }),
      },
      {
        id: 'tlr-429',
        title: 'tlr GET /api/v1/customers/{id}, one exhausted key (all requests on one rate-limit row): auth + count SQL, then 429',
        server: 'tlr',
        expect: 429,
        diagnostic: true,
        // Spend the key's window first: 101 requests, the last of them already a 429.
        prepare: async () => {
          const statuses = await Promise.all(
            Array.from({ length: 101 }, () =>
              fetch(`${servers.tlr.url}/api/v1/customers/${sample}`, { headers: { 'X-API-Key': exhaustedKey } }).then((r) => r.status),
            ),
          );
          if (!statuses.includes(429)) throw new Error('the rate limit did not refuse the 101st request of a key');
        },
        request: () => ({
          method: 'GET',
          path: '/api/v1/customers/x',
          setupRequest: (req) => ({ ...req, path: `/api/v1/customers/${pick()}`, headers: { 'x-api-key': exhaustedKey } }),
        }),
      },
    ];
    const selected = scenarios.filter((s) => (ONLY ? ONLY.has(s.id) : DIAG || !s.diagnostic));

    const rows: Row[] = [];
    // Every request each server answered, warm-ups and smoke checks included (for the profile's per-request cost).
    const served = { baseline: 3, tlr: 4 };
    // Rounds run the whole selection in turn, so that each pair meets the machine in the same state.
    for (let round = 1; round <= ROUNDS; round++) {
      for (const s of selected) {
        const url = servers[s.server].url;
        const seconds = s.diagnostic ? DIAG_DURATION : DURATION;
        const name = label({ id: s.id, round });
        const full = s.halfRateOf === undefined ? undefined : rows.find((r) => r.id === s.halfRateOf && r.round === round);
        if (s.halfRateOf !== undefined && !full) {
          log(`${name}: skipped, it paces itself by ${s.halfRateOf}, which did not run`);
          continue;
        }
        const rate = full ? Math.max(1, Math.round(full.rps / 2)) : undefined;
        log(`${name}: warm-up ${WARMUP} s, then ${seconds} s with ${CONNECTIONS} connections${rate ? ` at ${rate} req/s` : ''}`);
        await s.prepare?.();
        if (rate) await keys.reserve(rate * (WARMUP + seconds));
        if (WARMUP > 0) served[s.server] += rate ? (await measurePaced(url, s, WARMUP, rate)).total : (await measure(url, s, WARMUP)).requests.total;
        const before = cpuSnapshot(servers[s.server].pid, postmaster);
        const measured = rate ? await measurePaced(url, s, seconds, rate) : toRow(s, await measure(url, s, seconds));
        const row = { ...measured, cpu: cpuPerRequest(before, cpuSnapshot(servers[s.server].pid, postmaster), measured.total), round };
        served[s.server] += row.total + (s.prepare ? 101 : 0);
        rows.push(row);
        log(`${name}: ${row.rps.toFixed(0)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, statuses ${JSON.stringify(row.statuses)}`);
      }
    }

    // After the load: what the database saw.
    const createdRows = Number(
      (await db.pool.query(`SELECT count(*) FROM customers WHERE company_id = $1 AND name LIKE 'Bench Kunde %'`, [companyId])).rows[0].count,
    );
    await servers.tlr.stop(); // flushes the audit log
    const audited = Number((await db.pool.query('SELECT count(*) FROM request_audit_log')).rows[0].count);
    // The smoke key is the one the 429 scenario spends on purpose; every other key must have stayed under the limit.
    const windows = (
      await db.pool.query(
        'SELECT max(cardinality(accepted)) AS max, count(*) AS n, count(*) FILTER (WHERE NOT allowed) AS refused FROM rate_limit_logs WHERE key_id <> $1',
        [smokeKeyId],
      )
    ).rows[0] as { max: number; n: string; refused: string };
    await servers.baseline.stop();
    // Every posting and invoice of the run (smoke checks, warm-ups, both servers) went to this company:
    // its document and system numbers must still be 1..N without a gap, each invoice on its own posting.
    const books = (
      await db.pool.query(
        `SELECT s.last_document_number AS last_doc, s.last_system_id AS last_sys,
                (SELECT count(*) FROM ledger_transactions WHERE company_id = $1) AS n,
                (SELECT count(DISTINCT document_number) FROM ledger_transactions WHERE company_id = $1) AS docs,
                (SELECT count(DISTINCT system_id) FROM ledger_transactions WHERE company_id = $1) AS systems,
                (SELECT COALESCE(max(document_number), 0) FROM ledger_transactions WHERE company_id = $1) AS max_doc,
                (SELECT COALESCE(max(system_id), 0) FROM ledger_transactions WHERE company_id = $1) AS max_sys,
                (SELECT count(*) FROM invoices WHERE company_id = $1) AS invoices,
                (SELECT count(*) FROM invoices i JOIN ledger_transactions t ON t.id = i.posted_transaction_id AND t.document_number = i.document_number
                  WHERE i.company_id = $1 AND i.status = 'approved') AS linked,
                (SELECT COALESCE(SUM(debit) - SUM(credit), 0) FROM transaction_lines WHERE company_id = $1) = 0 AS balanced
         FROM number_sequences s WHERE s.company_id = $1`,
        [companyId],
      )
    ).rows[0] as Record<'last_doc' | 'last_sys' | 'n' | 'docs' | 'systems' | 'max_doc' | 'max_sys' | 'invoices' | 'linked', number> & { balanced: boolean };
    const gapless = [books.last_sys, books.n, books.docs, books.systems, books.max_doc, books.max_sys].every((v) => v === books.last_doc);
    const sql = env.BENCH_SQL === '0' ? undefined : await sqlMicroBench(db, companyId, sample, () => keys.next());
    const profile = CPU_PROF
      ? `tlr:\n${summariseProfile(join(profDir, 'tlr'), served.tlr)}\n\nbaseline:\n${summariseProfile(join(profDir, 'baseline'), served.baseline)}`
      : undefined;

    // 5. report
    const machine = `${os.availableParallelism()} CPUs (${os.cpus()[0]?.model ?? '?'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, PostgreSQL ${pgVersion} (${given ? 'DATABASE_URL' : 'embedded'}, synchronous_commit ${syncCommit}), ${os.platform()} ${os.release()}`;
    const lines = [
      '',
      `machine: ${machine}`,
      `settings: ${CONNECTIONS} connections, ${DURATION} s per scenario (${DIAG_DURATION} s diagnostics) after ${WARMUP} s warm-up, ${CUSTOMERS} customers, pool ${POOL_SIZE} per server, rate limit on (at most ${REQUESTS_PER_KEY} requests per key, ${keys.created} keys, ${keys.exhausted} requests found the pool empty)`,
      '',
      table(rows),
      '',
      'CPU time per request during the measurement (all processes share the machine):',
      '',
      cpuTable(rows),
      '',
    ];
    // Each tlr scenario against the bare baseline of the same work, with its aim (docs/perf.md).
    for (const [what, baseId, tlrId, aim] of [
      ['GET by id', 'baseline-get', 'tlr-get', 0.6],
      ['list of 50 with total', 'baseline-list', 'tlr-list', 0.6],
      // No aim is set for it: its baseline is one INSERT, without the idempotency key or the event.
      ['create', 'baseline-create', 'tlr-create', null],
      ['POST /transactions', 'baseline-post-transaction', 'tlr-post-transaction', 0.5],
      ['POST /invoices (auto_approve)', 'baseline-post-invoice', 'tlr-post-invoice', 0.5],
      // "baseline" here is tlr's own DKK invoice; the EUR invoice is to keep its throughput.
      ['POST /invoices in EUR against the DKK invoice', 'tlr-post-invoice', 'tlr-post-invoice-eur', 1.0],
    ] as const) {
      const pairs = rows.flatMap((t) => {
        const b = t.id === tlrId ? rows.find((r) => r.id === baseId && r.round === t.round) : undefined;
        return b ? [{ t, b, ratio: t.rps / b.rps }] : [];
      });
      if (!pairs.length) continue;
      const ratio = median(pairs.map((p) => p.ratio));
      const verdict = aim === null ? '(no aim)' : `(aim: ${aim * 100}%) -> ${ratio >= aim ? 'meets' : 'below'} the aim`;
      const each = pairs.map(({ t, b, ratio: r }) => `tlr ${t.rps.toFixed(0)} req/s vs baseline ${b.rps.toFixed(0)} req/s = ${(100 * r).toFixed(1)}%`);
      lines.push(
        pairs.length === 1
          ? `${what}: ${each[0]} of baseline ${verdict}`
          : `${what}: ${each.join('; ')}; median over ${pairs.length} rounds ${(100 * ratio).toFixed(1)}% of baseline ${verdict}`,
      );
    }
    const halves = rows.filter((r) => r.id === 'tlr-get-half');
    if (halves.length) {
      const each = halves.map((half) => {
        const bare = rows.find((r) => r.id === 'baseline-get-half' && r.round === half.round);
        const own = rows.find((r) => r.id === 'baseline-get-own-half' && r.round === half.round);
        const notes = [
          ...(bare ? [`baseline at the same rate: ${bare.p99} ms`] : []),
          ...(own ? [`baseline at half of its own rate, ${own.rps.toFixed(0)} req/s: ${own.p99} ms`] : []),
        ];
        return `p99 ${half.p99} ms at ${half.rps.toFixed(0)} req/s${notes.length ? ` (${notes.join('; ')})` : ''}`;
      });
      const p99 = Math.round(10 * median(halves.map((h) => h.p99))) / 10;
      const verdict = p99 < 10 ? 'meets' : 'misses';
      lines.push(
        halves.length === 1
          ? `GET by id at half load: ${each[0]} (aim: under 10 ms) -> ${verdict} the aim`
          : `GET by id at half load: ${each.join('; ')}; median p99 over ${halves.length} rounds ${p99} ms (aim: under 10 ms) -> ${verdict} the aim`,
      );
    }
    lines.push(
      `database after the run: ${createdRows} customers created by POST (both servers), ${audited} audit records, ${windows.n} keys used by the load (most requests logged for one key: ${windows.max}, limit 100; keys whose last request was refused: ${windows.refused})`,
      `books after the run: ${books.n} postings (both servers, smoke checks and warm-ups included), ${books.invoices} invoices, ${books.linked} approved on their own posting; ` +
        `document and system numbers 1..${books.last_doc} gapless: ${gapless ? 'yes' : 'NO'}; debits = credits: ${books.balanced ? 'yes' : 'NO'}`,
    );
    if (sql) lines.push('', sql);
    if (profile) lines.push('', `CPU profiles (${profDir}):`, profile);
    process.stdout.write(`${lines.join('\n')}\n`);
    if (env.BENCH_JSON) writeFileSync(env.BENCH_JSON, JSON.stringify({ machine, connections: CONNECTIONS, duration: DURATION, rows }, null, 2));
    if (CPU_PROF) log(`profile kept in ${profDir}`);
    else rmSync(profDir, { recursive: true, force: true });
  } finally {
    await cleanup();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
