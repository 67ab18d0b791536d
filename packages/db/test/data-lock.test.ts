// The data folder's server lock with real processes: a live holder refuses with its pid and the folder, a
// holder that is gone (or whose pid now belongs to another process) does not, and of starts racing for
// the same folder exactly one wins, also when they race to take over the same stale lock.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockDataFolder } from '../src/data-lock.ts';
import { processStart } from '../src/processes.ts';
import { RUN_TS } from '../../../test/run-ts.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'tlr-lock-'));
  dirs.push(d);
  return d;
};

/** A pid that no process has now: one of a child that has exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

/**
 * `count` processes that each try to lock `dir` at the same instant and say how it went; each holds what
 * it got until all have said (a process that loads late on a busy machine still meets the winner's lock).
 */
async function race(dir: string, count: number): Promise<string[]> {
  const at = Date.now() + 1500; // all spawned and loaded by then, as a rule: they start together
  const code = `
    const { lockDataFolder } = await import('./packages/db/src/data-lock.ts');
    while (Date.now() < ${at});
    let said;
    try { lockDataFolder(process.argv[1]); said = 'won'; } catch (e) { said = e.message; }
    process.stdout.write(said);
    process.stdin.on('end', () => process.exit(0)).resume();`;
  const children = Array.from({ length: count }, () => {
    const p = spawn(process.execPath, [...RUN_TS, '--input-type=module', '-e', code, dir], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    const said = new Promise<string>((resolve, reject) => {
      p.stdout.on('data', (d) => resolve((out += d)));
      p.on('close', (status) => reject(new Error(`exit ${status} before it said anything`)));
    });
    const closed = new Promise<void>((resolve, reject) => p.on('close', (status) => (status === 0 ? resolve() : reject(new Error(`exit ${status}: ${out}`)))));
    return { p, said, closed };
  });
  const said = await Promise.all(children.map((c) => c.said));
  for (const c of children) c.p.stdin.end();
  await Promise.all(children.map((c) => c.closed));
  return said;
}

describe('one server per data folder', () => {
  it('a second lock of a held folder refuses with one line naming the folder and the holder; released, it is free', () => {
    const dir = fresh();
    const lock = lockDataFolder(dir);
    expect(readFileSync(lock.path, 'utf8')).toMatch(new RegExp(`^${process.pid} `));
    expect(() => lockDataFolder(dir)).toThrow(
      `another tlr server (pid ${process.pid}) is using the data folder ${dir}; stop it first, or set DATA_DIR to another folder (or DATABASE_URL) for this one`,
    );
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
    lockDataFolder(dir).release();
  });

  it('a lock left by a process that is gone (kill -9) is taken over', () => {
    const dir = fresh();
    writeFileSync(join(dir, 'server.lock'), `${deadPid()} -\n`);
    const lock = lockDataFolder(dir);
    expect(readFileSync(lock.path, 'utf8')).toMatch(new RegExp(`^${process.pid} `));
    lock.release();
  });

  it.runIf(processStart(process.pid) !== undefined)('a lock whose pid now belongs to another process (pid reuse) is taken over', () => {
    const dir = fresh();
    // Our own, live pid, but a start time that is not ours: the holder was another process with this pid.
    writeFileSync(join(dir, 'server.lock'), `${process.pid} ${processStart(process.pid)}0\n`);
    const lock = lockDataFolder(dir);
    expect(readFileSync(lock.path, 'utf8')).toBe(`${process.pid} ${processStart(process.pid)}\n`);
    lock.release();
  });

  it.runIf(processStart(process.pid) !== undefined)('a lock whose holder is a zombie (killed, not yet reaped) is taken over', async () => {
    const dir = fresh();
    // The child exits after 0.2 s, by which time its parent has become `sleep`, which never reaps it: a zombie
    // until the parent ends. (A child that exited at once could be reaped by sh before its exec, as CI once saw.)
    const parent = spawn('sh', ['-c', 'sleep 0.2 & echo $!; exec sleep 10'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombie = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(d.toString().trim()))));
      const state = () => readFileSync(`/proc/${zombie}/stat`, 'utf8');
      for (let waited = 0; !/\) Z /.test(state()) && waited < 5000; waited += 50) await new Promise((r) => setTimeout(r, 50));
      expect(state()).toMatch(/\) Z /);
      writeFileSync(join(dir, 'server.lock'), `${zombie} ${processStart(zombie)}\n`);
      const lock = lockDataFolder(dir);
      expect(readFileSync(lock.path, 'utf8')).toMatch(new RegExp(`^${process.pid} `));
      lock.release();
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('a garbled lock file does not block', () => {
    const dir = fresh();
    for (const garbled of ['', 'x', '0 -\n']) {
      writeFileSync(join(dir, 'server.lock'), garbled);
      lockDataFolder(dir).release();
    }
  });

  it('of eight starts racing for a fresh folder exactly one wins; the others name it', async () => {
    const dir = fresh();
    const said = await race(dir, 8);
    expect(said.filter((s) => s === 'won')).toHaveLength(1);
    for (const s of said.filter((s) => s !== 'won')) expect(s).toMatch(/^another tlr server \(pid \d+\) is using the data folder /);
  }, 60_000);

  it('of eight starts racing to take over the same stale lock exactly one wins, and no guard is left', async () => {
    const dir = fresh();
    writeFileSync(join(dir, 'server.lock'), `${deadPid()} -\n`);
    const said = await race(dir, 8);
    expect(said.filter((s) => s === 'won')).toHaveLength(1);
    expect(readdirSync(dir)).toEqual([]); // the winner exited: its lock is gone, and no guard or temporary file stays
  }, 60_000);
});
