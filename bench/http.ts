// The servers under test, each in a child process of its own, so that the load generator (autocannon,
// in the parent) never shares an event loop with the server it measures.
//
//   parent: const s = await spawnServer({ kind: 'tlr', databaseUrl }); ... await s.stop();
//   child:  this file run with tsx; it receives its options over IPC, answers { url }, and on 'stop'
//           shuts the server down and exits (which is also when --cpu-prof writes its profile).
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { RUN_TS, SERVER_NODE_FLAGS } from '../scripts/server-flags.mjs';
import type { BaselineOptions } from './baseline.ts';

export type ServerSpec =
  ({ kind: 'baseline' } & Omit<BaselineOptions, 'port'>) | { kind: 'tlr'; databaseUrl: string; poolSize?: number; env?: Record<string, string> };

export interface RunningServer {
  url: string;
  pid: number;
  /** SQL statements the server has sent so far (every pg client query, its pool's and Prisma's). */
  statements(): Promise<number>;
  /** The server process's process.memoryUsage(): where its resident memory is (V8's heap, buffers, the rest). */
  memory(): Promise<NodeJS.MemoryUsage>;
  stop(): Promise<void>;
}

type FromChild = { url: string } | { error: string };

/** BENCH_NODE_FLAGS: more Node/V8 flags for both servers, for diagnostics (e.g. --trace-gc-nvp); space-separated. */
const extraNodeFlags = () => (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);

export async function spawnServer(spec: ServerSpec, opts: { cpuProfDir?: string } = {}): Promise<RunningServer> {
  // The V8 flags of `npm start`, so the server measured is the one that runs.
  const execArgv = [...SERVER_NODE_FLAGS, ...extraNodeFlags(), ...RUN_TS, ...(opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`] : [])];
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--serve'], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const reply = await new Promise<FromChild>((resolve, reject) => {
    child.once('message', (m) => resolve(m as FromChild));
    child.once('exit', (code) => reject(new Error(`${spec.kind} server exited with code ${code} before it was ready`)));
    child.send(spec);
  });
  if ('error' in reply) {
    child.kill();
    await exited;
    throw new Error(`${spec.kind} server failed to start: ${reply.error}`);
  }
  return {
    url: reply.url,
    pid: child.pid!,
    statements: () => ask<number>(child, 'statements'),
    memory: () => ask<NodeJS.MemoryUsage>(child, 'memory'),
    async stop() {
      if (child.exitCode !== null) return;
      child.send('stop');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Sends `what` to the server's process and answers the value of its reply `{ [what]: value }`. */
function ask<T>(child: ChildProcess, what: 'statements' | 'memory'): Promise<T> {
  return new Promise<T>((resolve) => {
    const onMessage = (m: unknown) => {
      if (!(m && typeof m === 'object' && what in m)) return;
      child.off('message', onMessage);
      resolve((m as Record<string, T>)[what]!);
    };
    child.on('message', onMessage);
    child.send(what);
  });
}

const RULES_SETTINGS = ['EINVOICE_WARM_AT_START', 'EINVOICE_VALIDATION_THREADS'] as const;

async function serve(spec: ServerSpec): Promise<{ url: string; stop(): Promise<void> }> {
  if (spec.kind === 'baseline') {
    const { startBaseline } = await import('./baseline.ts');
    return startBaseline({ ...spec, poolSize: spec.poolSize ?? 10 });
  }
  const { loadConfig } = await import('@tlr/config');
  const { startService } = await import('../apps/server/src/service.ts');
  // The e-invoice rules' warm-up as the caller's environment sets it (the test suite's smoke run turns it
  // off, as for its own servers: each warm thread loads every rule set, about 5 s of CPU per server).
  const rules = Object.fromEntries(RULES_SETTINGS.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]!]])));
  const config = loadConfig({
    ...rules,
    DATABASE_URL: spec.databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    RUN_WORKER: 'false',
    DB_POOL_SIZE: String(spec.poolSize ?? 10),
    ...spec.env,
  });
  return startService(config);
}

/** Counts every query a pg client of this process sends (Prisma's adapter and the pool use the same module). */
async function countStatements(): Promise<() => number> {
  const { default: pg } = await import('pg');
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  let n = 0;
  proto.query = function (this: unknown, ...args: unknown[]) {
    n += 1;
    return original.apply(this, args);
  };
  return () => n;
}

if (process.argv.includes('--serve') && process.send) {
  const statements = countStatements();
  process.once('message', async (spec: ServerSpec) => {
    let server: { url: string; stop(): Promise<void> };
    try {
      server = await serve(spec);
    } catch (e) {
      process.send!({ error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
      return;
    }
    let stopping = false;
    const stop = async () => {
      if (stopping) return;
      stopping = true;
      await server.stop().catch((e) => console.error(`${spec.kind} server: stop failed`, e));
      process.exit(0);
    };
    process.on('message', (m) => {
      if (m === 'stop') void stop();
      if (m === 'statements') void statements.then((count) => process.send!({ statements: count() }));
      if (m === 'memory') process.send!({ memory: process.memoryUsage() });
    });
    // The parent died without telling us: do not linger.
    process.once('disconnect', () => void stop());
    process.send!({ url: server.url });
  });
}
