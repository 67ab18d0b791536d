// Voucher benchmark: upload and download throughput of 1 MB and 10 MB documents, and the server's peak
// memory during ten concurrent 10 MB uploads, each next to a bare baseline in the same run.
//
//   tsx bench/vouchers.ts            (or: npm run bench:vouchers)
//
//   a. a fresh database (DATABASE_URL's server when set, else an embedded PostgreSQL under
//      .data/bench-vouchers-pg), one company with API keys in rotation (the rate limit never refuses)
//   b. the tlr service in a child process (filesystem store in a fresh temporary folder, no worker), and
//      the baseline in another: a bare node:http server that does the least an upload must do (read the
//      whole JSON body, JSON.parse, decode base64, SHA-256, write a temporary file, fsync, rename) and
//      streams a file back for a download; no database, no authentication, no idempotency
//   c. peak memory: each server fresh, its resident set (/proc/<pid>/status VmRSS) sampled every 10 ms
//      while 10 uploads of 10 MB run at once, and the kernel's high-water mark (VmHWM) after
//   d. throughput: for 1 MB and 10 MB, BENCH_SECONDS of closed-loop uploads with BENCH_CONNECTIONS
//      connections, then downloads of what was uploaded, for tlr and the baseline
//
// Environment (all optional): DATABASE_URL, BENCH_SECONDS (8), BENCH_CONNECTIONS (4), BENCH_LARGE_MB (10).
import { fork } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUN_TS } from '../scripts/server-flags.mjs';
import { cleanupStack } from './cleanup.ts';
import { spawnServer } from './http.ts';
import { agent, benchCompany, benchDatabase, closedLoop, Keys, machineLines, ms, percentile, procStatus, request, statusText } from './lib.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const MB = 1_000_000;
/** The large document's size in MB (10; smaller only for a smoke run). */
const LARGE_MB = Number(process.env.BENCH_LARGE_MB ?? 10);

interface Target {
  name: string;
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** The bare baseline (runs in a child: this file with --baseline). */
function baselineServer(dir: string): http.Server {
  return http.createServer((req, res) => {
    const download = req.url?.match(/^\/api\/v1\/vouchers\/([0-9a-f-]{36})\/content$/);
    if (req.method === 'GET' && download) {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      createReadStream(join(dir, download[1]!)).pipe(res);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const { content_base64: b64 } = JSON.parse(Buffer.concat(chunks).toString()) as { content_base64: string };
      const bytes = Buffer.from(b64, 'base64');
      createHash('sha256').update(bytes).digest('hex');
      const id = randomUUID();
      const temp = join(dir, `.${id}`);
      const handle = await open(temp, 'w');
      await handle.writeFile(bytes);
      await handle.sync();
      await handle.close();
      await rename(temp, join(dir, id));
      res.writeHead(201, { 'Content-Type': 'application/json' }).end(JSON.stringify({ data: { id, file_size: bytes.length } }));
    });
  });
}

async function spawnBaseline(dir: string): Promise<Target> {
  const child = fork(fileURLToPath(import.meta.url), ['--baseline', dir], { execArgv: RUN_TS, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m) => resolve(m as string));
    child.once('exit', (code) => reject(new Error(`baseline exited with ${code}`)));
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return { name: 'baseline', url, pid: child.pid!, stop: () => (child.kill(), exited) };
}

const status = procStatus;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

function document(size: number): string {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i += 4096) bytes.writeUInt32LE((i * 2654435761) >>> 0, i); // not all zeros
  return bytes.toString('base64');
}

async function upload(target: Target, keys: Keys, body: string): Promise<{ status: number; id?: string }> {
  const r = await request(`${target.url}/api/v1/vouchers`, {
    method: 'POST',
    headers: { 'X-API-Key': keys.next(), 'Idempotency-Key': randomUUID(), 'Content-Type': 'application/json' },
    body,
    timeoutMs: 120_000,
  });
  return { status: r.status, id: r.status === 201 ? (JSON.parse(r.body) as { data: { id: string } }).data.id : undefined };
}

/** A download that counts bytes without keeping them. */
function download(url: string, key: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { 'X-API-Key': key }, agent, timeout: 120_000 }, (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

async function peakMemory(target: Target, keys: Keys, body: string): Promise<string> {
  const before = status(target.pid, 'VmRSS');
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, status(target.pid, 'VmRSS'))), 10);
  const t = process.hrtime.bigint();
  const results = await Promise.all(Array.from({ length: 10 }, () => upload(target, keys, body)));
  const took = Number(process.hrtime.bigint() - t) / 1e9;
  clearInterval(sampler);
  const statuses = results.map((r) => r.status).join(',');
  return `| ${target.name} | ${mb(before)} | ${mb(peak)} | ${mb(status(target.pid, 'VmHWM'))} | ${took.toFixed(2)} s | ${statuses} |`;
}

async function throughput(target: Target, keys: Keys, size: number, body: string): Promise<string[]> {
  const ids: string[] = [];
  const up = await closedLoop(CONNECTIONS, SECONDS, async () => {
    const r = await upload(target, keys, body);
    if (r.id) ids.push(r.id);
    return String(r.status);
  });
  let next = 0;
  const down = await closedLoop(CONNECTIONS, SECONDS, async () => {
    const id = ids[next++ % ids.length]!;
    const r = await download(`${target.url}/api/v1/vouchers/${id}/content`, keys.next());
    return r.bytes === size ? String(r.status) : `${r.status} ${r.bytes} bytes`;
  });
  const row = (what: string, r: typeof up) =>
    `| ${target.name} | ${what} ${size / MB} MB | ${(r.requests / r.seconds).toFixed(1)} | ${((r.requests * size) / MB / r.seconds).toFixed(1)} | ${ms(percentile(r.latencies, 50))} | ${ms(percentile(r.latencies, 99))} | ${statusText(r.statuses)} |`;
  return [row('upload', up), row('download', down)];
}

async function main() {
  const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);
  const cleanups = cleanupStack(log);
  const out: string[] = [];
  try {
    const { db, databaseUrl, pgVersion, settings } = await benchDatabase({
      cleanups,
      log,
      folder: 'bench-vouchers-pg',
      dbName: `tlr_bench_vouchers_${process.pid}`,
      poolSize: 4,
    });
    const { keys } = await benchCompany(db, { name: 'Bilag Bench ApS', ownerEmail: 'bench@example.dk', keys: 100 });
    const rotation = new Keys(keys);
    const unused = new Keys(['no key: the baseline does not authenticate'], Infinity); // spends none of tlr's budget
    const keysOf = (t: Target) => (t.name === 'tlr' ? rotation : unused);
    const docs = { small: document(MB), large: document(LARGE_MB * MB) };
    const bodies = Object.fromEntries(
      Object.entries(docs).map(([k, b64]) => [k, JSON.stringify({ filename: `bilag-${k}.pdf`, content_base64: b64, mime_type: 'application/pdf' })]),
    );

    const start = async (name: 'tlr' | 'baseline'): Promise<Target> => {
      const dir = mkdtempSync(join(tmpdir(), `tlr-bench-${name}-`));
      cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
      const t =
        name === 'tlr' ? { name, ...(await spawnServer({ kind: 'tlr', databaseUrl, poolSize: 10, env: { STORAGE_DIR: dir } })) } : await spawnBaseline(dir);
      return t;
    };

    out.push(
      `PostgreSQL ${pgVersion} (synchronous_commit=${settings.sc}, fsync=${settings.fsync}); ${CONNECTIONS} connections, ${SECONDS} s per measurement`,
      '',
    );
    out.push(`Peak memory, 10 concurrent uploads of ${LARGE_MB} MB (${((LARGE_MB * 4) / 3).toFixed(1)} MB of base64 each) on a fresh server:`, '');
    out.push('| server | RSS before | RSS peak (10 ms samples) | VmHWM after | wall time | statuses |', '|---|---|---|---|---|---|');
    for (const name of ['baseline', 'tlr'] as const) {
      const t = await start(name);
      out.push(await peakMemory(t, keysOf(t), bodies.large!));
      await t.stop();
    }
    out.push('', 'Throughput (closed loop):', '', '| server | operation | req/s | MB/s | p50 ms | p99 ms | statuses |', '|---|---|---|---|---|---|---|');
    for (const name of ['baseline', 'tlr'] as const) {
      const t = await start(name);
      for (const [k, size] of [
        ['small', MB],
        ['large', LARGE_MB * MB],
      ] as const)
        out.push(...(await throughput(t, keysOf(t), size, bodies[k]!)));
      await t.stop();
    }
    if (rotation.overused) out.push('', `WARNING: ${rotation.overused} requests went over a key's rate limit budget`);
    out.push('', ...machineLines());
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    agent.destroy();
    await cleanups.run();
  }
}

if (process.argv[2] === '--baseline') {
  const server = baselineServer(process.argv[3]!);
  server.listen(0, '127.0.0.1', () => process.send!(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  process.once('disconnect', () => process.exit(0));
} else {
  await main();
}
