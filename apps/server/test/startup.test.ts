// What a newcomer meets at start-up and shutdown of `npm start`, with the real processes: a taken port
// (the embedded PostgreSQL's or the HTTP one) or a data folder another server holds fails fast with one
// line naming the setting to change; Ctrl-C shuts down quietly; as root, a data folder the PostgreSQL
// user cannot enter still works.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '@tlr/config';
import { closeAfterCommand, createDatabase, freePort, resolveDatabaseServer } from '@tlr/db';
import { blockedAt, reachableCopy } from '@tlr/db/embedded';
import { spawnTlr } from '../../cli/test/helpers.ts';
import { startService } from '../src/service.ts';
import { databaseUrl, runSettings } from './helpers.ts';
import { RUN_TS } from '../../../test/run-ts.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const isRoot = process.getuid?.() === 0;

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Something else listening on a port (what a newcomer's other PostgreSQL or dev server does). */
async function occupiedPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as { port: number }).port;
}

/** A fresh folder the PostgreSQL user can reach (mkdtemp makes it 0700). */
async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tlr-startup-'));
  chmodSync(dir, 0o755);
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface Run {
  proc: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
}

/** `npm start` as it is run: node scripts/tlr.mjs start, in a process group of its own (like a terminal's). */
function npmStart(env: Record<string, string>): Run {
  const base = { ...process.env };
  delete base.DATABASE_URL;
  const proc = spawn(process.execPath, ['scripts/tlr.mjs', 'start'], {
    cwd: ROOT,
    env: { ...base, TLR_QUIET: '1', HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const run: Run = { proc, stdout: '', stderr: '', exited: new Promise((resolve) => proc.on('close', resolve)) };
  proc.stdout!.on('data', (d) => (run.stdout += d));
  proc.stderr!.on('data', (d) => (run.stderr += d));
  cleanups.push(() => proc.exitCode === null && proc.signalCode === null && process.kill(-proc.pid!, 'SIGKILL'));
  return run;
}

async function listening(run: Run): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const m = run.stdout.match(/tlr API: (http:\/\/\S+)\/api\/v1/);
    if (m) return m[1]!;
    if (run.proc.exitCode !== null) throw new Error(`exited: ${run.stdout}${run.stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`did not start: ${run.stdout}${run.stderr}`);
}

const lines = (s: string) => s.split('\n').filter((l) => l.trim() !== '');
const STACK = /\n\s+at |Error:|"stack"/;

describe('npm start fails fast with one line naming the cause and the setting to change', () => {
  it('EMBEDDED_PG_PORT taken by something else', async () => {
    const port = await occupiedPort();
    const run = npmStart({ DATA_DIR: join(await freshDir(), 'data'), EMBEDDED_PG_PORT: String(port) });
    expect(await run.exited).toBe(1);
    expect(lines(run.stderr)).toEqual([
      `tlr: cannot start the embedded PostgreSQL: port ${port} on 127.0.0.1 is in use; set EMBEDDED_PG_PORT to a free port (or DATABASE_URL to a server of your own)`,
    ]);
    expect(run.stdout).toBe('');
  }, 60_000);

  it('PORT taken by something else: nothing claims to listen', async () => {
    const port = await occupiedPort();
    const run = npmStart({ DATABASE_URL: databaseUrl(), PORT: String(port), RUN_WORKER: 'true' });
    expect(await run.exited).toBe(1);
    expect(lines(run.stderr)).toEqual([`tlr: cannot listen on 127.0.0.1:${port}: the port is in use; set PORT to a free port`]);
    expect(run.stdout).not.toMatch(/listening|tlr API/);
  }, 60_000);

  it('a DATA_DIR where the webhook secrets key cannot be kept: one line naming the file and what to set', async () => {
    const notADir = join(await freshDir(), 'a-file');
    writeFileSync(notADir, 'not a directory');
    const run = npmStart({ DATABASE_URL: databaseUrl(), DATA_DIR: notADir, RUN_WORKER: 'false' });
    expect(await run.exited).toBe(1);
    expect(lines(run.stderr)).toEqual([
      expect.stringMatching(/^tlr: cannot keep the webhook secrets key in .*a-file\/webhook-secrets\.key \(\w+\); set WEBHOOK_SECRETS_KEY/),
    ]);
    expect(run.stdout).not.toMatch(/tlr API/);
  }, 60_000);

  it('servers starting at once on a fresh DATA_DIR make one webhook secrets key and all read it whole', async () => {
    const dataDir = join(await freshDir(), 'shared');
    const code = `const { webhookSecretsKey } = await import('./apps/server/src/webhook-secrets-key.ts'); process.stdout.write(webhookSecretsKey(process.argv[1]).toString('base64'));`;
    const keys = await Promise.all(
      Array.from(
        { length: 6 },
        () =>
          new Promise<string>((resolve, reject) => {
            const p = spawn(process.execPath, [...RUN_TS, '--input-type=module', '-e', code, dataDir], {
              cwd: ROOT,
              stdio: ['ignore', 'pipe', 'inherit'],
            });
            let out = '';
            p.stdout!.on('data', (d) => (out += d));
            p.on('close', (status) => (status === 0 ? resolve(out) : reject(new Error(`exit ${status}`))));
          }),
      ),
    );
    expect(new Set(keys).size).toBe(1);
    expect(Buffer.from(keys[0]!, 'base64')).toHaveLength(32);
    expect(readFileSync(join(dataDir, 'webhook-secrets.key'), 'utf8')).toBe(keys[0]);
    expect(readdirSync(dataDir)).toEqual(['webhook-secrets.key']); // no temporary files left
  }, 60_000);

  it('PORT taken: startService closes the database pool and pg-boss it opened before it gives up', async () => {
    const port = await occupiedPort();
    const sockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
    const before = sockets();
    const config = loadConfig({
      ...runSettings(),
      DATABASE_URL: databaseUrl(),
      HOST: '127.0.0.1',
      PORT: String(port),
      RUN_WORKER: 'true',
      LOG_LEVEL: 'silent',
    });
    await expect(startService(config)).rejects.toThrow(`cannot listen on 127.0.0.1:${port}`);
    await new Promise((r) => setTimeout(r, 200));
    expect(sockets()).toBe(before);
  }, 60_000);
});

/** The server process of an `npm start`: the node that scripts/tlr.mjs runs apps/server/src/main.ts in. */
function serverPid(run: Run): number {
  const out = spawnSync('ps', ['-o', 'pid=,args=', '--ppid', String(run.proc.pid)], { encoding: 'utf8' }).stdout;
  const line = out.split('\n').find((l) => l.includes('apps/server/src/main.ts'));
  if (!line) throw new Error(`no server process under ${run.proc.pid}: ${out}`);
  return Number(line.trim().split(' ')[0]);
}

/** A data folder for `npm start`; whatever the test's outcome, no PostgreSQL is left running in it. */
async function serverDataDir(): Promise<string> {
  const dataDir = join(await freshDir(), 'data');
  cleanups.push(() => {
    try {
      const pid = readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]!;
      // Only that folder's postmaster, should the pid file be a dead one's and its pid since reused.
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dataDir)) process.kill(Number(pid), 'SIGKILL');
    } catch {
      // no pid file, or its process is gone
    }
  });
  return dataDir;
}

/** Ctrl-C: the server ends with 0, leaving no PostgreSQL running in its data folder and no lock. */
async function interruptCleanly(run: Run, dataDir: string): Promise<void> {
  process.kill(-run.proc.pid!, 'SIGINT');
  expect(await run.exited).toBe(0);
  expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
  expect(existsSync(join(dataDir, 'server.lock'))).toBe(false);
}

/** The exit code, or undefined when the process is still running after `ms`. */
const exitWithin = (run: Run, ms: number) => Promise.race([run.exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), ms))]);

describe('one npm start per data folder', () => {
  it('a second npm start refuses at once with one line naming the data folder and the first server; the first serves on, the CLI works beside it', async () => {
    const dataDir = await serverDataDir();
    const env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()), RUN_WORKER: 'false' };
    const first = npmStart(env);
    const url = await listening(first);
    const second = npmStart(env);
    expect(await exitWithin(second, 20_000)).toBe(1);
    expect(lines(second.stderr)).toEqual([
      `tlr: another tlr server (pid ${serverPid(first)}) is using the data folder ${dataDir}; stop it first, or set DATA_DIR to another folder (or DATABASE_URL) for this one`,
    ]);
    expect(second.stdout).toBe('');
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    // The operator CLI joins the running server's PostgreSQL for its command, as before.
    const cli = spawnSync(process.execPath, ['scripts/tlr.mjs', 'cli', 'company', 'list', '--json'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: '', TLR_QUIET: '1', ...env },
      encoding: 'utf8',
    });
    expect(cli.stderr).toBe('');
    expect(cli.status).toBe(0);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    await interruptCleanly(first, dataDir);
  }, 120_000);

  it('PORT taken: refused before the embedded PostgreSQL is made, started or migrated', async () => {
    const port = await occupiedPort();
    const dataDir = join(await freshDir(), 'data');
    const run = npmStart({ DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()), PORT: String(port) });
    expect(await run.exited).toBe(1);
    expect(lines(run.stderr)).toEqual([`tlr: cannot listen on 127.0.0.1:${port}: the port is in use; set PORT to a free port`]);
    expect(existsSync(join(dataDir, 'pg'))).toBe(false); // no initdb, so no PostgreSQL and no migration
    expect(readdirSync(dataDir)).toEqual([]); // nor the lock
  }, 60_000);

  it('a server killed with kill -9 leaves a lock that does not block the next start', async () => {
    const dataDir = await serverDataDir();
    const env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()), RUN_WORKER: 'false' };
    const first = npmStart(env);
    await listening(first);
    const killed = serverPid(first);
    process.kill(-first.proc.pid!, 'SIGKILL');
    await first.exited;
    expect(readFileSync(join(dataDir, 'server.lock'), 'utf8')).toMatch(new RegExp(`^${killed} `)); // stale now
    const next = npmStart(env);
    const url = await listening(next);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect(readFileSync(join(dataDir, 'server.lock'), 'utf8')).toMatch(new RegExp(`^${serverPid(next)} `));
    // The PostgreSQL the killed server left running belongs to the data folder's server: it stops it too.
    await interruptCleanly(next, dataDir);
  }, 120_000);
});

describe('the CLI beside npm start', () => {
  it('an npm start that joined the PostgreSQL a CLI command started keeps it when the command ends, and stops it itself', async () => {
    const dataDir = await serverDataDir();
    const embeddedPort = await freePort();
    // What a CLI command does when no server runs: it starts the embedded PostgreSQL for itself.
    const command = await resolveDatabaseServer({ databaseUrl: undefined, dataDir, embeddedPort });
    const run = npmStart({ DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(embeddedPort), RUN_WORKER: 'false' });
    const url = await listening(run);
    await closeAfterCommand(command, dataDir); // the command ends
    await new Promise((r) => setTimeout(r, 500));
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    await interruptCleanly(run, dataDir);
  }, 120_000);
});

describe('two checkouts on one machine', () => {
  it('start side by side with another DATA_DIR and no port given: each data folder keeps a PostgreSQL port of its own, and the CLI finds it there', async () => {
    const dirs = [await serverDataDir(), await serverDataDir()];
    const tlr = (dataDir: string, ...argv: string[]) =>
      spawnTlr({ DATABASE_URL: undefined, EMBEDDED_PG_PORT: undefined, DATA_DIR: dataDir }, ...argv, '--json');
    const names = async (dataDir: string) =>
      (JSON.parse((await tlr(dataDir, 'company', 'list')).stdout) as { companies: { name: string }[] }).companies.map((c) => c.name);
    // At the same moment: both may see the preferred port free, and the one that loses it takes another.
    const runs = dirs.map((dataDir) => npmStart({ DATA_DIR: dataDir, EMBEDDED_PG_PORT: '', RUN_WORKER: 'false' }));
    await Promise.all(runs.map(listening));
    const ports = dirs.map((d) => Number(readFileSync(join(d, 'pg', 'postmaster.pid'), 'utf8').split('\n')[3]));
    expect(new Set(ports).size).toBe(2);
    await Promise.all(
      dirs.map(async (dataDir, i) => {
        expect(readFileSync(join(dataDir, 'pg', 'postgresql.auto.conf'), 'utf8')).toContain(`port = '${ports[i]}'`);
        const made = await tlr(
          dataDir,
          'company',
          'create',
          '--name',
          `Checkout ${i} ApS`,
          '--owner-email',
          `owner${i}@example.com`,
          '--owner-password',
          'a long password 1',
        );
        expect(made).toMatchObject({ code: 0, stderr: '' });
      }),
    );
    expect(await Promise.all(dirs.map(names))).toEqual([['Checkout 0 ApS'], ['Checkout 1 ApS']]);
    await Promise.all(runs.map((run, i) => interruptCleanly(run, dirs[i]!)));
    // Stopped, the CLI starts each folder's PostgreSQL itself, on the port the folder keeps.
    expect(await Promise.all(dirs.map(names))).toEqual([['Checkout 0 ApS'], ['Checkout 1 ApS']]);
  }, 180_000);
});

describe('Ctrl-C on npm start', () => {
  it('shuts down quietly: "shutting down", "stopped", exit 0, no stack, the embedded PostgreSQL stopped', async () => {
    const dataDir = join(await freshDir(), 'data');
    const run = npmStart({ DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()), RUN_WORKER: 'true' });
    const url = await listening(run);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const before = run.stdout.length + run.stderr.length;
    // A terminal's Ctrl-C signals the whole foreground process group: tlr.mjs, tsx, the server, PostgreSQL.
    process.kill(-run.proc.pid!, 'SIGINT');
    expect(await run.exited).toBe(0);
    const after = (run.stdout + run.stderr).slice(before);
    expect(run.stderr).not.toMatch(STACK);
    expect(run.stdout).not.toMatch(STACK);
    expect(run.stdout + run.stderr).not.toMatch(/pg-boss error|terminating connection/);
    expect(after.length).toBeLessThan(400);
    expect(
      lines(run.stdout)
        .slice(-2)
        .map((l) => (JSON.parse(l) as { msg?: unknown }).msg),
    ).toEqual([expect.stringMatching(/^shutting down/), 'stopped']);
    expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
  }, 120_000);
});

describe('as root, PostgreSQL runs as the postgres user, who may not reach the checkout', () => {
  const postgres = { uid: 4242, gid: 4242 };

  it('blockedAt names the first folder that user cannot enter', async () => {
    const dir = await freshDir();
    mkdirSync(join(dir, 'private', 'data'), { recursive: true });
    chmodSync(join(dir, 'private'), 0o700);
    expect(blockedAt(join(dir, 'private', 'data', 'pg'), postgres)).toBe(join(dir, 'private'));
    expect(blockedAt(join(dir, 'private', 'data', 'pg'), { uid: process.getuid!(), gid: 0 })).toBeUndefined();
    expect(blockedAt(join(dir, 'open', 'not', 'yet', 'made'), postgres)).toBeUndefined();
  });

  it('reachableCopy copies an unreachable folder once to a shared place, and leaves a reachable one where it is', async () => {
    const dir = await freshDir();
    mkdirSync(join(dir, 'home', 'native', 'bin'), { recursive: true });
    writeFileSync(join(dir, 'home', 'native', 'bin', 'initdb'), '#!/bin/sh\n', { mode: 0o755 });
    const shared = join(dir, 'shared');
    expect(reachableCopy(join(dir, 'home', 'native'), 'pg-1', postgres, shared)).toBe(join(dir, 'home', 'native'));
    chmodSync(join(dir, 'home'), 0o700);
    const copy = reachableCopy(join(dir, 'home', 'native'), 'pg-1', postgres, shared);
    expect(copy).toBe(join(shared, 'pg-1'));
    expect(existsSync(join(copy, 'bin', 'initdb'))).toBe(true);
    expect(blockedAt(join(copy, 'bin', 'initdb'), postgres)).toBeUndefined();
    expect(reachableCopy(join(dir, 'home', 'native'), 'pg-1', postgres, shared)).toBe(copy);
  });

  it.runIf(isRoot)(
    'a DATA_DIR inside a mode-700 folder: the data lives under /var/lib/tlr, linked from DATA_DIR',
    async () => {
      const home = await mkdtemp(join(tmpdir(), 'tlr-home-')); // 0700, like /root
      cleanups.push(() => rmSync(home, { recursive: true, force: true }));
      const dataDir = join(home, 'checkout', '.data');
      cleanups.push(() => existsSync(dataDir) && rmSync(realpathSync(dataDir), { recursive: true, force: true }));
      const server = await resolveDatabaseServer({ databaseUrl: undefined, dataDir, embeddedPort: await freePort() });
      cleanups.push(() => server.stop());
      expect(lstatSync(dataDir).isSymbolicLink()).toBe(true);
      expect(readlinkSync(dataDir)).toMatch(/^\/var\/lib\/tlr\//);
      const db = createDatabase(server.url, 1);
      cleanups.push(() => db.close());
      expect((await db.pool.query<{ db: string }>('SELECT current_database() AS db')).rows).toEqual([{ db: 'tlr' }]);
    },
    60_000,
  );
});

afterAll(() => {
  for (const c of cleanups.splice(0)) void c();
});
