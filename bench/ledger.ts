// Ledger benchmark: posting throughput at a million journal lines, report latency and the SAF-T export.
//
//   tsx bench/ledger.ts            (or: node scripts/tlr.mjs exec tsx bench/ledger.ts)
//
//   a. a fresh database: on DATABASE_URL's server when set, otherwise on an embedded PostgreSQL under
//      .data/bench-ledger-pg on a free loopback port (stopped and removed at the end); one company made
//      by the domain (createCompany inside prisma.$transaction) and API keys (createApiKey)
//   b. 1,000,000 journal lines through the journal writer's batch (postBatch: set-based, with the balances,
//      VAT bases and numbers every posting keeps): 250,000 transactions x 4 balanced lines over the days
//      of the current fiscal year, document_number = system_id = 1..N
//   c. POST /api/v1/transactions against the real service (in a child process of its own, as `npm start`
//      runs it, RUN_WORKER=false, LOG_LEVEL=silent) with C connections for D seconds, then the bare SQL of the same posting (lock the
//      number_sequences row, insert transaction + lines, upsert daily balances, insert the outbox row) with
//      pg at the same concurrency for the same time; every request uses a new Idempotency-Key and the
//      next of many API keys, none more than 90 times, so the rate limit (100/60 s per key) never refuses
//   d. if GET /reports/profit-loss, /reports/balance and /vat-returns (the first quarter of the year; the
//      bulk lines carry VAT codes, their bases kept as the posting keeps them) answer (not 404): the
//      sequential calls each, and the VAT return's one statement on bare pg as its baseline
//   e. if GET /exports/saft answers: the full-year export read to the end (discarded), its time, journal
//      lines per second and the service process's RSS (sampled every 50 ms)
//
// Everything listens on 127.0.0.1 only. The whole run is bounded (BENCH_LEDGER_TIMEOUT, default 20 min)
// and cleans up after itself on success, failure, SIGINT and SIGTERM.
//
// Environment (all optional):
//   DATABASE_URL                 use this PostgreSQL server (a database tlr_bench_ledger_* is created and dropped)
//   BENCH_LEDGER_TRANSACTIONS    bulk-loaded transactions (250000; 4 lines each)
//   BENCH_DURATION               seconds per posting measurement (10)      BENCH_WARMUP  warm-up seconds (2)
//   BENCH_SERIAL_SECONDS         seconds of each one-connection measurement (half of BENCH_DURATION, at least 3)
//   BENCH_CONNECTIONS            concurrent connections for the posting measurements (16)
//   BENCH_LEDGER_KEYS            API keys to create (200)
//   BENCH_REPORT_CALLS           sequential calls per report (200: the p99 of 50 calls is their maximum)
//   BENCH_CPU_PROF               1: the service runs with --cpu-prof; its profile is kept under .data/bench-prof/<run id>/
import http from 'node:http';
import { resolve } from 'node:path';
import { loadConfig } from '@tlr/config';
import type { Database } from '@tlr/db';
import {
  addDays,
  Decimal,
  JOURNAL_SQL,
  periodContaining,
  profitAndLossSql,
  today as businessDay,
  vatReturnSql,
  type Posting,
  type PostingLine,
} from '@tlr/domain';
import { spawnServer, type RunningServer } from './http.ts';
import { cleanupStack } from './cleanup.ts';
import { accountIds, barePosting, POSTING_ACCOUNTS, postingBody, postingLines } from './bare-writes.ts';
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
  mib,
  ms,
  percentile,
  procStatus,
  procTicks,
  request,
  seconds,
  seedPostings,
  statusText,
  type LoadResult,
} from './lib.ts';

const env = process.env;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
const TRANSACTIONS = num('BENCH_LEDGER_TRANSACTIONS', 250_000);
const LINES_PER_TRANSACTION = 4;
const DURATION = num('BENCH_DURATION', 10);
const WARMUP = num('BENCH_WARMUP', 2);
const SERIAL = num('BENCH_SERIAL_SECONDS', Math.max(3, Math.round(DURATION / 2)));
const CONNECTIONS = num('BENCH_CONNECTIONS', 16);
const KEYS = num('BENCH_LEDGER_KEYS', 200);
const REPORT_CALLS = num('BENCH_REPORT_CALLS', 200);
const REQUESTS_PER_KEY = 90;
const TIMEOUT_MS = num('BENCH_LEDGER_TIMEOUT', 20 * 60) * 1000;
const RUN_ID = `${Date.now().toString(36)}${process.pid.toString(36)}`;
const FOLDER = 'bench-ledger-pg';
const ZERO = new Decimal(0);

const log = (m: string) => process.stderr.write(`[bench-ledger] ${m}\n`);
const out: string[] = [];
const print = (line = '') => {
  out.push(line);
  process.stdout.write(`${line}\n`);
};

// ---------------------------------------------------------------------------------------------------
// b. the bulk load

async function bulkLoad(
  db: Database,
  companyId: string,
  monthly: boolean,
): Promise<{ seconds: number; lines: number; from: string; to: string; accounts: number; steps: string; balanceRows: number }> {
  const fy = (
    await db.pool.query<{ start: string; end: string }>(
      `SELECT to_char(start_date, 'YYYY-MM-DD') AS start, to_char(end_date, 'YYYY-MM-DD') AS end
       FROM fiscal_years WHERE company_id = $1 AND start_date <= current_date AND end_date >= current_date`,
      [companyId],
    )
  ).rows[0]!;
  // The accounts the generated lines use: every account of the chart, in number order.
  const accounts = (
    await db.pool.query<{ id: string; account_number: string; name: string }>(
      `SELECT id, account_number, name FROM accounts WHERE company_id = $1 AND active ORDER BY account_number`,
      [companyId],
    )
  ).rows;
  const t0 = process.hrtime.bigint();
  const steps: string[] = [];
  let mark = t0;
  const step = (label: string) => {
    steps.push(`${label} ${seconds(mark).toFixed(1)} s`);
    mark = process.hrtime.bigint();
  };
  const days = (Date.parse(fy.end) - Date.parse(fy.start)) / 86_400_000 + 1;
  const codes = ['S25', 'K25', 'EUV', 'SEUV', 'SEXP', '', '', ''];
  // Transaction n of 1..N, on the fiscal year's days spread evenly (date order = posting order): four lines,
  // debit A a / credit B a / debit C b / credit D b (balanced by construction), the accounts and amounts
  // scattered deterministically over the chart, the first two lines carrying VAT codes.
  function* postings(): Generator<Posting> {
    for (let n = 1; n <= TRANSACTIONS; n++) {
      const a = new Decimal(((n * 7919) % 1_000_000) + 100).div(100);
      const b = new Decimal(((n * 104_729) % 50_000) + 100).div(100);
      const line = (k: number, debit: Decimal, credit: Decimal): PostingLine => {
        const account = accounts[(n * (7 + 2 * k) + k * 37) % accounts.length]!;
        return { accountId: account.id, account, debit, credit, description: '', vatCode: k <= 2 ? codes[n % 8]! : '' };
      };
      yield {
        date: addDays(fy.start, Math.floor(((n - 1) * days) / TRANSACTIONS)),
        description: `Bilag ${n}`,
        source: 'manual',
        lines: [line(1, a, ZERO), line(2, ZERO, a), line(3, b, ZERO), line(4, ZERO, b)],
      };
    }
  }
  await seedPostings(db, companyId, postings());
  step('journal writer (transactions, lines, balances, VAT bases, numbers)');
  const loadSeconds = seconds(t0);
  // Every table the load wrote, as autovacuum would after such a change: without the monthly balances'
  // statistics the planner took a company's 3,660 rows for 1 and chose a nested loop for the reports.
  await db.pool.query(
    `ANALYZE ledger_transactions, transaction_lines, account_daily_balances, accounts${monthly ? ', account_monthly_balances, vat_monthly_bases' : ''}`,
  );
  // Sanity: what was loaded is balanced and the balances match the lines.
  const check = (
    await db.pool.query(
      `SELECT (SELECT count(*) FROM transaction_lines WHERE company_id = $1) AS lines,
              (SELECT SUM(debit) - SUM(credit) FROM transaction_lines WHERE company_id = $1) AS diff,
              (SELECT count(*) FROM account_daily_balances WHERE company_id = $1) AS balance_rows,
              (SELECT SUM(debit) FROM transaction_lines WHERE company_id = $1) = (SELECT SUM(debit) FROM account_daily_balances WHERE company_id = $1)
                ${monthly ? 'AND (SELECT SUM(debit) FROM transaction_lines WHERE company_id = $1) = (SELECT SUM(debit) FROM account_monthly_balances WHERE company_id = $1)' : ''} AS balances_match`,
      [companyId],
    )
  ).rows[0];
  if (Number(check.lines) !== TRANSACTIONS * LINES_PER_TRANSACTION || Number(check.diff) !== 0 || !check.balances_match) {
    throw new Error(`bulk load check failed: ${JSON.stringify(check)}`);
  }
  return {
    seconds: loadSeconds,
    lines: Number(check.lines),
    from: fy.start,
    to: fy.end,
    accounts: accounts.length,
    steps: steps.join(', '),
    balanceRows: Number(check.balance_rows),
  };
}

// ---------------------------------------------------------------------------------------------------
// c. posting: the API, then the bare SQL of the same posting

async function postViaApi(svc: RunningServer, keys: Keys, date: string, durationS: number, connections = CONNECTIONS): Promise<LoadResult> {
  let i = 0;
  return closedLoop(connections, durationS, async () => {
    const n = ++i;
    const r = await request(`${svc.url}/api/v1/transactions`, {
      method: 'POST',
      headers: { 'X-API-Key': keys.next(), 'Idempotency-Key': `bench-${RUN_ID}-${connections}-${durationS}-${n}`, 'Content-Type': 'application/json' },
      body: postingBody(n, date),
    });
    return String(r.status);
  });
}

/** The bare SQL of the same posting (bare-writes.ts), on pg at the same concurrency. */
async function postViaSql(
  db: Database,
  companyId: string,
  ids: Record<string, string>,
  date: string,
  monthly: boolean,
  durationS: number,
  connections = CONNECTIONS,
): Promise<LoadResult> {
  let i = 0;
  return closedLoop(connections, durationS, async () => {
    const n = ++i;
    const lines = postingLines(n).map((l) => ({ account: ids[l.account_number]!, debit: l.debit, credit: l.credit }));
    await barePosting(db.pool, { companyId, date, description: `Bench SQL ${n}`, lines }, monthly);
    return 'ok';
  });
}

// ---------------------------------------------------------------------------------------------------
// d. and e.

async function timeCalls(url: string, keys: Keys, calls: number): Promise<{ sorted: number[]; statuses: Map<string, number>; bytes: number }> {
  const statuses = new Map<string, number>();
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 3; i++) await request(url, { headers: { 'X-API-Key': keys.next() } }); // warm-up
  for (let i = 0; i < calls; i++) {
    const t = process.hrtime.bigint();
    const r = await request(url, { headers: { 'X-API-Key': keys.next() } });
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    bytes = r.body.length;
    statuses.set(String(r.status), (statuses.get(String(r.status)) ?? 0) + 1);
  }
  return { sorted: times.sort((a, b) => a - b), statuses, bytes };
}

async function saftExport(
  url: string,
  key: string,
  servicePid: number,
): Promise<{
  status: number;
  contentType: string;
  seconds: number;
  bytes: number;
  rssBefore: number;
  rssPeak: number;
  /** CPU seconds the service process spent on the export. */
  serviceCpu: number;
  head: string;
  lineElements: number;
  complete: boolean;
}> {
  const rssBefore = procStatus(servicePid, 'VmRSS');
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, procStatus(servicePid, 'VmRSS'))), 50);
  const t0 = process.hrtime.bigint();
  const cpu0 = procTicks(servicePid) ?? 0;
  try {
    return await new Promise((resolve, reject) => {
      const req = http.request(url, { headers: { 'X-API-Key': key }, agent, timeout: 600_000 }, (res) => {
        let bytes = 0;
        let head = '';
        let end = '';
        let lineElements = 0;
        let tail = Buffer.alloc(0);
        res.on('data', (c: Buffer) => {
          bytes += c.length; // read and dropped: the body goes to /dev/null (only <Line> elements are counted)
          if (head.length < 300) head += c.toString('utf8', 0, Math.min(c.length, 300));
          // Searched as bytes, not decoded: the reader shares the two cores with the service it measures.
          const seam = Buffer.concat([tail, c.subarray(0, 6)]);
          for (let at = seam.indexOf(LINE_END); at !== -1; at = seam.indexOf(LINE_END, at + 7)) lineElements += 1;
          for (let at = c.indexOf(LINE_END); at !== -1; at = c.indexOf(LINE_END, at + 7)) lineElements += 1;
          // A '</Line>' cut by the chunk boundary is whole only in the seam; one inside either part is counted once.
          tail = Buffer.from(c.subarray(Math.max(0, c.length - 6)));
          end = (end + c.toString('latin1', Math.max(0, c.length - 40))).slice(-40);
        });
        res.on('end', () => {
          rssPeak = Math.max(rssPeak, procStatus(servicePid, 'VmRSS'));
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            seconds: seconds(t0),
            bytes,
            rssBefore,
            rssPeak,
            serviceCpu: ((procTicks(servicePid) ?? 0) - cpu0) / 100,
            head: head.slice(0, 300),
            lineElements,
            complete: end.trimEnd().endsWith('</AuditFile>'),
          });
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error('SAF-T export timed out after 600 s')));
      req.on('error', reject);
      req.end();
    });
  } finally {
    clearInterval(sampler);
  }
}

const LINE_END = Buffer.from('</Line>');

// ---------------------------------------------------------------------------------------------------

async function main() {
  const cleanups = cleanupStack(log, TIMEOUT_MS);
  const cleanup = cleanups.run;

  const startLoad = loadavg();
  try {
    // a. database, company, keys
    // Monthly running balances (reports read them) where this schema has them.
    const { db, databaseUrl, given, pgVersion, settings, monthly } = await benchDatabase({
      cleanups,
      log,
      folder: FOLDER,
      dbName: `tlr_bench_ledger_${RUN_ID}`,
      poolSize: CONNECTIONS,
      // A million rows in one statement outlast the service's 10 s statement bound.
      timeouts: { statementMs: 600_000, transactionMs: 900_000 },
    });

    const t0 = process.hrtime.bigint();
    const company = await benchCompany(db, { name: 'Bench Ledger ApS', ownerEmail: `bench-ledger-${RUN_ID}@example.dk`, keys: KEYS });
    const companyId = company.companyId;
    const keys = new Keys(company.keys, REQUESTS_PER_KEY);
    log(`company ${companyId}, ${KEYS} API keys in ${seconds(t0).toFixed(1)} s`);

    // b. a million lines
    log(`loading ${TRANSACTIONS} transactions x ${LINES_PER_TRANSACTION} lines ...`);
    const load = await bulkLoad(db, companyId, monthly);
    const size = (await db.pool.query(`SELECT pg_size_pretty(pg_database_size(current_database())) AS s`)).rows[0].s as string;

    print('## Ledger benchmark');
    print();
    print(`load average at start (1/5/15 min): ${startLoad}, after the bulk load: ${loadavg()}`);
    print();
    print(
      `PostgreSQL ${pgVersion} (${given ? 'DATABASE_URL' : 'embedded'}; synchronous_commit ${settings.sc}, fsync ${settings.fsync}, shared_buffers ${settings.sb}), run ${RUN_ID}`,
    );
    print();
    print(
      `b. bulk load: ${load.lines.toLocaleString('en')} journal lines (${TRANSACTIONS.toLocaleString('en')} transactions x ${LINES_PER_TRANSACTION}, ${load.accounts} accounts, ${load.from} to ${load.to}) in ${load.seconds.toFixed(1)} s (${Math.round(load.lines / load.seconds).toLocaleString('en')} lines/s; ${load.steps}); ${load.balanceRows.toLocaleString('en')} account_daily_balances rows${monthly ? ', monthly balances from them' : ''}; database ${size} after ANALYZE`,
    );
    print();

    // c. posting throughput
    // Not in this process: the load generator would share the service's event loop and heap.
    const svc = await spawnServer({ kind: 'tlr', databaseUrl }, env.BENCH_CPU_PROF === '1' ? { cpuProfDir: resolve('.data/bench-prof', RUN_ID) } : {});
    cleanups.push(() => svc.stop());
    const today = businessDay();
    const before = (await db.pool.query(`SELECT last_system_id FROM number_sequences WHERE company_id = $1`, [companyId])).rows[0].last_system_id as number;

    log(`POST /transactions: ${WARMUP} s warm-up, ${DURATION} s at ${CONNECTIONS} connections`);
    await postViaApi(svc, keys, today, WARMUP);
    const api = await postViaApi(svc, keys, today, DURATION);
    const ids = await accountIds(db.pool, companyId, POSTING_ACCOUNTS);
    log(`bare SQL posting: ${WARMUP} s warm-up, ${DURATION} s at ${CONNECTIONS} connections`);
    await postViaSql(db, companyId, ids, today, monthly, WARMUP);
    const sql = await postViaSql(db, companyId, ids, today, monthly, DURATION);
    // One connection: what a single posting costs when nothing queues for the lock or the CPU.
    log(`one connection: ${SERIAL} s API, ${SERIAL} s bare SQL`);
    const { result: apiSerial, statements: apiStatements } = await countingServerStatements(svc, () => postViaApi(svc, keys, today, SERIAL, 1));
    const { result: sqlSerial, statements: sqlStatements } = await countingStatements(db, () => postViaSql(db, companyId, ids, today, monthly, SERIAL, 1));

    // Still gapless and balanced after the load and the postings.
    const after = (
      await db.pool.query(
        `SELECT s.last_system_id AS last, s.last_document_number AS last_doc,
                (SELECT count(*) FROM ledger_transactions WHERE company_id = $1) AS n,
                (SELECT max(system_id) FROM ledger_transactions WHERE company_id = $1) AS max_sys,
                (SELECT count(DISTINCT document_number) FROM ledger_transactions WHERE company_id = $1) AS docs,
                (SELECT count(*) FROM transaction_lines WHERE company_id = $1) AS lines,
                (SELECT SUM(debit) FROM transaction_lines WHERE company_id = $1) = (SELECT SUM(debit) FROM account_daily_balances WHERE company_id = $1)
                  AND (SELECT SUM(credit) FROM transaction_lines WHERE company_id = $1) = (SELECT SUM(credit) FROM account_daily_balances WHERE company_id = $1)
                  ${
                    monthly
                      ? `AND (SELECT SUM(debit) FROM transaction_lines WHERE company_id = $1) = (SELECT SUM(debit) FROM account_monthly_balances WHERE company_id = $1)
                  AND (SELECT SUM(credit) FROM transaction_lines WHERE company_id = $1) = (SELECT SUM(credit) FROM account_monthly_balances WHERE company_id = $1)`
                      : ''
                  } AS balanced
         FROM number_sequences s WHERE s.company_id = $1`,
        [companyId],
      )
    ).rows[0];
    const gapless = after.n === after.last && after.max_sys === after.last && after.docs === after.last && after.last_doc === after.last;

    const row = (label: string, r: LoadResult, note: string) =>
      `| ${label} | ${(r.requests / r.seconds).toFixed(0)} | ${ms(percentile(r.latencies, 50))} | ${ms(percentile(r.latencies, 99))} | ${r.requests} | ${statusText(r.statuses)} | ${note} |`;
    print(
      `c. posting to one company (every posting holds the company's number_sequences row lock), ${CONNECTIONS} connections, ${DURATION} s each (after ${WARMUP} s warm-up):`,
    );
    print();
    print('| what | req/s | p50 ms | p99 ms | requests | outcomes | |');
    print('| --- | --- | --- | --- | --- | --- | --- |');
    print(
      row(
        'POST /api/v1/transactions (4 lines)',
        api,
        `service in a child process, pool ${loadConfig({ DATABASE_URL: databaseUrl }).DB_POOL_SIZE}; auth + rate limit + idempotency + audit included`,
      ),
    );
    print(
      row(
        'bare SQL of the same posting (pg)',
        sql,
        `pool ${CONNECTIONS}; lock, insert transaction + 4 lines, upsert ${monthly ? 'daily + monthly' : 'daily'} balances, outbox row`,
      ),
    );
    print(
      row(
        'POST /api/v1/transactions, 1 connection',
        apiSerial,
        `${SERIAL} s, no queue: the time one posting takes; ${(apiStatements / apiSerial.requests).toFixed(1)} SQL statements per request (incl. BEGIN/COMMIT, auth, rate limit, audit)`,
      ),
    );
    print(row('bare SQL, 1 connection', sqlSerial, `${SERIAL} s; ${(sqlStatements / sqlSerial.requests).toFixed(1)} statements per posting`));
    print();
    print(`load average after c: ${loadavg()}`);
    print();
    print(
      `API / bare SQL throughput: ${(api.requests / api.seconds / (sql.requests / sql.seconds)).toFixed(2)}. Keys used: ${keys.used} requests over ${KEYS} keys, ${keys.overused} over ${REQUESTS_PER_KEY}/key. ` +
        `After posting: ${after.n} transactions (${after.n - before} new), ${Number(after.lines).toLocaleString('en')} lines; numbers gapless: ${gapless ? 'yes' : 'NO'}; ${monthly ? 'daily and monthly' : 'daily'} balances = lines: ${after.balanced ? 'yes' : 'NO'}`,
    );
    print();

    // d. reports
    const from = load.from;
    const to = load.to;
    const probe = async (path: string) => (await request(`${svc.url}/api/v1${path}`, { headers: { 'X-API-Key': keys.next() } })).status;
    const quarter = periodContaining(from, 'quarterly');
    const reportPaths = [`/reports/profit-loss?from=${from}&to=${to}`, `/reports/balance?as_of=${to}`, `/vat-returns?period=${quarter.period}`];
    const reportStatus = await Promise.all(reportPaths.map(probe));
    if (reportStatus.some((s) => s === 404)) {
      print(`d. reports: skipped (GET ${reportPaths.map((p, i) => `${p.split('?')[0]} -> ${reportStatus[i]}`).join(', ')})`);
    } else {
      print(`d. reports at ${Number(after.lines).toLocaleString('en')} lines, ${REPORT_CALLS} sequential calls each (after 3 warm-up calls):`);
      print();
      print('| report | p50 ms | p99 ms | max ms | statuses | body bytes |');
      print('| --- | --- | --- | --- | --- | --- |');
      for (const path of reportPaths) {
        const r = await timeCalls(`${svc.url}/api/v1${path}`, keys, REPORT_CALLS);
        print(
          `| GET ${path} | ${ms(percentile(r.sorted, 50))} | ${ms(percentile(r.sorted, 99))} | ${ms(r.sorted.at(-1)!)} | ${statusText(r.statuses)} | ${r.bytes} |`,
        );
      }
      // The bare baseline of the VAT return: its one statement on pg, the same calls in sequence.
      const v = vatReturnSql(companyId, quarter.start, quarter.end);
      const bare: number[] = [];
      for (let i = 0; i < REPORT_CALLS + 3; i++) {
        const t = process.hrtime.bigint();
        await db.pool.query(v.text, v.values);
        if (i >= 3) bare.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      bare.sort((x, y) => x - y);
      print(`| bare SQL of the VAT return's statement (pg) | ${ms(percentile(bare, 50))} | ${ms(percentile(bare, 99))} | ${ms(bare.at(-1)!)} | | |`);
      // Where the profit and loss statement's time goes: its one query, as PostgreSQL runs it.
      const q = profitAndLossSql(companyId, from, to);
      const plan = (await db.pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${q.text}`, q.values)).rows.map((r: Record<string, string>) => r['QUERY PLAN']);
      print();
      print('profit and loss query plan (EXPLAIN ANALYZE, BUFFERS):');
      print('```');
      for (const line of plan) print(line);
      print('```');
    }
    print();

    // e. SAF-T
    const saftPath = `/exports/saft?from=${from}&to=${to}`;
    const saftProbe = await request(`${svc.url}/api/v1/exports/saft?from=${to}&to=${to}`, { headers: { 'X-API-Key': keys.next() }, timeoutMs: 120_000 });
    if (saftProbe.status === 404) {
      print(`e. SAF-T: skipped (GET /exports/saft -> 404)`);
    } else {
      log('SAF-T export of the full year ...');
      const s = await saftExport(`${svc.url}/api/v1${saftPath}`, keys.next(), svc.pid);
      print(
        `e. SAF-T: GET ${saftPath} -> ${s.status} ${s.contentType}, ${(s.bytes / 2 ** 20).toFixed(1)} MiB read to the end in ${s.seconds.toFixed(2)} s: ` +
          `${Math.round(s.lineElements / s.seconds).toLocaleString('en')} journal lines/s (${s.lineElements.toLocaleString('en')} <Line> elements of ${Number(after.lines).toLocaleString('en')} lines in the books; ends with </AuditFile>: ${s.complete ? 'yes' : 'NO'}); ` +
          `RSS of the service process before ${mib(s.rssBefore)}, peak ${mib(s.rssPeak)} (+${mib(s.rssPeak - s.rssBefore)}); ` +
          `the service process's CPU ${s.serviceCpu.toFixed(2)} s (${Math.round((100 * s.serviceCpu) / s.seconds)} % of one core)`,
      );
      if (s.status !== 200) print(`   body starts: ${JSON.stringify(s.head)}`);
      // What one batch of 5,000 journal lines costs PostgreSQL, from the middle of the year.
      const middle = Math.floor(TRANSACTIONS / 2);
      const plan = (await db.pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${JOURNAL_SQL}`, [companyId, from, to, middle, 0, 5000])).rows.map(
        (r: Record<string, string>) => r['QUERY PLAN'],
      );
      print();
      print('one SAF-T journal batch (5,000 lines) as PostgreSQL runs it (EXPLAIN ANALYZE, BUFFERS):');
      print('```');
      for (const line of plan) print(line);
      print('```');
    }
    print();
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
