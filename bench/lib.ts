// What the benchmarks share: small number helpers, the API key rotation that keeps every key under the
// rate limit, a keep-alive HTTP client, the closed load loop, statement counting, the fresh database
// (on DATABASE_URL's server or an embedded PostgreSQL) they start from, and seeding postings through
// the journal writer.
import { execSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import http from 'node:http';
import os from 'node:os';
import {
  applyMigrations,
  createDatabase,
  dropDatabase,
  ensureDatabase,
  freePort,
  inTransaction,
  resolveDatabaseServer,
  withDatabase,
  type Database,
  type DbTimeouts,
} from '@tlr/db';
import { copyDatabase } from '@tlr/db/test-databases';
import { createApiKey, createCompany, postBatch, SCOPES, type Posting, type PostedRef } from '@tlr/domain';
import type { cleanupStack } from './cleanup.ts';
import { hasMonthlyBalances } from './bare-writes.ts';

export const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : NaN;
export const ms = (n: number) => n.toFixed(n < 10 ? 2 : 1);
export const seconds = (startNs: bigint) => Number(process.hrtime.bigint() - startNs) / 1e9;
export const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
export const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

/** API keys in rotation, none used more than `perKey` times (the limit is 100 per 60 s). */
export class Keys {
  private uses: number[];
  private cursor = 0;
  overused = 0;
  private readonly keys: string[];
  readonly perKey: number;
  constructor(keys: string[], perKey = 90) {
    this.keys = keys;
    this.perKey = perKey;
    this.uses = keys.map(() => 0);
  }
  next(): string {
    for (let tried = 0; tried < this.keys.length; tried++) {
      const i = this.cursor;
      this.cursor = (this.cursor + 1) % this.keys.length;
      if (this.uses[i]! < this.perKey) {
        this.uses[i]! += 1;
        return this.keys[i]!;
      }
    }
    this.overused += 1;
    return this.keys[0]!;
  }
  get used() {
    return this.uses.reduce((a, b) => a + b, 0);
  }
  get count() {
    return this.keys.length;
  }
}

export interface HttpReply {
  status: number;
  body: string;
}

/** Keep-alive connections for every request of a run; destroy it at the end. */
export const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
export function request(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer; timeoutMs?: number },
): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? 'GET', headers: opts.headers, agent, timeout: opts.timeoutMs ?? 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`timeout: ${opts.method ?? 'GET'} ${url}`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}

export interface LoadResult {
  requests: number;
  seconds: number;
  latencies: number[];
  statuses: Map<string, number>;
}

/** A closed loop: `connections` workers, each starting its next operation when the last one ends. */
export async function closedLoop(connections: number, durationS: number, op: () => Promise<string>): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses = new Map<string, number>();
  const start = process.hrtime.bigint();
  const end = start + BigInt(Math.round(durationS * 1e9));
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (process.hrtime.bigint() < end) {
        const t = process.hrtime.bigint();
        let status: string;
        try {
          status = await op();
        } catch (e) {
          status = `error ${(e as Error).message.slice(0, 60)}`;
        }
        latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  return { requests: latencies.length, seconds: seconds(start), latencies: latencies.sort((a, b) => a - b), statuses };
}

export const statusText = (s: Map<string, number>) => [...s.entries()].map(([k, n]) => `${k}×${n}`).join(' ');

/**
 * Runs `work` while counting the statements sent by every pg client of this process (the service's
 * pool and the bench's share the pg module of @tlr/db, so patching the client prototype sees both).
 * With `capture`, each statement's text and values are handed to it as well.
 */
/** The statements a server in a child process sent while `work` ran (bench/http.ts counts them there). */
export async function countingServerStatements<T>(
  server: { statements(): Promise<number> },
  work: () => Promise<T>,
): Promise<{ result: T; statements: number }> {
  const before = await server.statements();
  const result = await work();
  return { result, statements: (await server.statements()) - before };
}

export async function countingStatements<T>(
  db: Database,
  work: () => Promise<T>,
  capture?: (text: string, values: unknown[]) => void,
): Promise<{ result: T; statements: number }> {
  const probe = await db.pool.connect();
  const proto = Object.getPrototypeOf(probe) as { query: (...args: unknown[]) => unknown };
  probe.release();
  const original = proto.query;
  let statements = 0;
  proto.query = function (this: unknown, ...args: unknown[]) {
    statements += 1;
    if (capture) {
      const [first, second] = args as [unknown, unknown];
      if (typeof first === 'string') capture(first, Array.isArray(second) ? second : []);
      else if (first && typeof first === 'object' && 'text' in first) {
        const q = first as { text: string; values?: unknown[] };
        capture(q.text, q.values ?? (Array.isArray(second) ? second : []));
      }
    }
    return original.apply(this, args);
  };
  try {
    return { result: await work(), statements };
  } finally {
    proto.query = original;
  }
}

export interface BenchDatabase {
  db: Database;
  databaseUrl: string;
  /** DATABASE_URL was given (else: embedded). */
  given: boolean;
  pgVersion: string;
  settings: { sc: string; fsync: string; sb: string };
  /** Time-ordered ids like the product's (uuidv7() is PostgreSQL 18+; random ones before). */
  uuidFn: 'uuidv7()' | 'gen_random_uuid()';
  /** Monthly running balances exist in this schema. */
  monthly: boolean;
}

/**
 * A new database `dbName` on `serverUrl` with every migration applied; with BENCH_TEMPLATE_DATABASE (the
 * test suite's smoke run sets it to the run's migrated template), a copy of that template instead, which
 * takes a fraction of the time.
 */
export async function migratedDatabase(serverUrl: string, dbName: string): Promise<string> {
  const template = process.env.BENCH_TEMPLATE_DATABASE;
  if (template) return copyDatabase(serverUrl, template, dbName);
  const databaseUrl = await ensureDatabase(serverUrl, dbName);
  await applyMigrations(databaseUrl);
  return databaseUrl;
}

/**
 * A fresh database with the migrations applied: on DATABASE_URL's server when set, otherwise on an
 * embedded PostgreSQL under .data/<folder> on a free loopback port. Dropping the database and stopping
 * (and removing) the embedded server are pushed onto `cleanups`.
 */
export async function benchDatabase(opts: {
  cleanups: ReturnType<typeof cleanupStack>;
  log: (m: string) => void;
  folder: string;
  dbName: string;
  poolSize: number;
  /** Bounds of the bench's own pool (a bulk load of a million rows outlasts the service's 10 s). */
  timeouts?: Partial<DbTimeouts>;
}): Promise<BenchDatabase> {
  const { cleanups, log, folder } = opts;
  const given = process.env.DATABASE_URL || undefined;
  const port = await freePort();
  log(given ? 'database: DATABASE_URL' : `database: embedded PostgreSQL in .data/${folder} on 127.0.0.1:${port}`);
  if (!given) rmSync(`.data/${folder}`, { recursive: true, force: true }); // a fresh cluster (a crashed earlier run's leftovers)
  const dbServer = await resolveDatabaseServer({ databaseUrl: given, dataDir: '.data', embeddedPort: port, embeddedFolder: folder });
  cleanups.push(async () => {
    await dbServer.stop();
    if (dbServer.embedded) rmSync(`.data/${folder}`, { recursive: true, force: true });
  });
  const serverUrl = withDatabase(dbServer.url, 'postgres');
  const databaseUrl = await migratedDatabase(serverUrl, opts.dbName);
  cleanups.push(() => dropDatabase(serverUrl, opts.dbName));
  const db = createDatabase(databaseUrl, opts.poolSize, opts.timeouts);
  cleanups.push(() => db.close());
  const pgVersion = (await db.pool.query('SHOW server_version')).rows[0].server_version as string;
  const monthly = await hasMonthlyBalances(db.pool);
  const settings = (
    await db.pool.query(`SELECT current_setting('synchronous_commit') AS sc, current_setting('fsync') AS fsync, current_setting('shared_buffers') AS sb`)
  ).rows[0];
  const uuidFn = Number((await db.pool.query('SHOW server_version_num')).rows[0].server_version_num) >= 180000 ? 'uuidv7()' : 'gen_random_uuid()';
  return { db, databaseUrl, given: Boolean(given), pgVersion, settings, uuidFn, monthly };
}

/** A company made by the domain (createCompany inside prisma.$transaction) and `keys` live API keys with every scope. */
export async function benchCompany(db: Database, opts: { name: string; ownerEmail: string; keys: number }): Promise<{ companyId: string; keys: string[] }> {
  const { company_id: companyId } = await db.prisma.$transaction(
    (tx) => createCompany(tx, { name: opts.name, ownerEmail: opts.ownerEmail, ownerPassword: 'benchmark password' }),
    { timeout: 60_000 },
  );
  const created: string[] = [];
  for (let i = 0; i < opts.keys; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, opts.keys - i) }, (_, j) =>
        createApiKey(db.prisma, { companyId, name: `bench ${i + j}`, scopes: [...SCOPES], mode: 'live' }),
      ),
    );
    created.push(...batch.map((k) => k.key));
  }
  return { companyId, keys: created };
}

/**
 * Seeds `postings` into the company through the journal writer (postBatch: set-based, one statement per
 * few thousand lines, with the balances, VAT bases and numbers a posting keeps), in one transaction
 * bounded by `db`'s timeouts; their numbers in order. No events: nothing subscribes to a bench company.
 */
export function seedPostings(db: Database, companyId: string, postings: Iterable<Posting>): Promise<PostedRef[]> {
  return inTransaction(db)((tx) => postBatch(tx, { companyId, livemode: true }, postings, { events: false }));
}

/** The closing lines of a benchmark's output: load, CPUs, memory. */
export function machineLines(): string[] {
  const mem = (() => {
    try {
      return execSync('free -h', { encoding: 'utf8' }).trim();
    } catch {
      return `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`;
    }
  })();
  return [
    `load average at end: ${loadavg()}`,
    `machine: ${os.availableParallelism()} CPUs (nproc) ${os.cpus()[0]?.model ?? ''}, node ${process.version}`,
    '```',
    mem,
    '```',
  ];
}

/** A process's resident set (VmRSS) or its peak (VmHWM), in bytes, from /proc (Linux). */
export const procStatus = (pid: number, field: 'VmRSS' | 'VmHWM') =>
  Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+) kB`))![1]) * 1024;

/**
 * CPU time spent so far, in ms, by this process and by the database server processes serving this
 * database (read from /proc: the server must run on this machine, else only this process counts). On a
 * shared machine the wall time carries the other tenants' load; the CPU time is the work's own.
 * `sample()` before and after; a connection opened in between counts from its start.
 */
export function cpuMeter(pool: Database['pool']) {
  const seen = new Map<number, number>();
  return async (): Promise<number> => {
    const pids = (await pool.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)).rows.map((r) => r.pid as number);
    for (const pid of pids) seen.set(pid, (procTicks(pid) ?? seen.get(pid) ?? 0) * 10);
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000 + [...seen.values()].reduce((a, b) => a + b, 0);
  };
}

/** A process's CPU time in USER_HZ ticks (1/100 s): utime + stime, with its reaped children's when asked. */
export function procTicks(pid: number, withReapedChildren = false): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime + stime (fields 14, 15); cutime + cstime (16, 17): children that exited and were reaped
    return Number(f[11]) + Number(f[12]) + (withReapedChildren ? Number(f[13]) + Number(f[14]) : 0);
  } catch {
    return undefined;
  }
}

/**
 * Runs `work`; with BENCH_CPU_PROF (a folder), under V8's sampling profiler of this process, written to
 * <folder>/<label>.cpuprofile (open in Chrome's DevTools), so that a profile shows the step alone and not
 * the seeding before it. The database's side is not in it: cpuMeter counts that.
 */
export async function cpuProfiled<T>(label: string, work: () => Promise<T>): Promise<T> {
  const folder = process.env.BENCH_CPU_PROF;
  if (!folder) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `${label}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}
