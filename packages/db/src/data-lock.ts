// One server per embedded data folder: `server.lock` in DATA_DIR names the process that serves it, so a
// second `npm start` refuses at once instead of joining a PostgreSQL that goes away with the first one.
// The CLI does not take it: it may join a running server's PostgreSQL for one command (decision 159).
import { linkSync, mkdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { StartupError } from './embedded.ts';
import { processAlive, processStart } from './processes.ts';

export interface DataFolderLock {
  /** The lock file. */
  path: string;
  /** Removes the lock file if it is still ours (also done when the process exits). */
  release(): void;
}

const LOCK_FILE = 'server.lock';
/** Taking a stale lock over lasts microseconds; a guard this old was left by a start killed inside it. */
const GUARD_STALE_MS = 5_000;
const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

interface Holder {
  pid: number;
  start: string | undefined;
}

const format = (h: Holder) => `${h.pid} ${h.start ?? '-'}\n`;

function parse(text: string): Holder | undefined {
  const [pid, start] = text.trim().split(' ');
  // Not 0: kill(0) would ask about our own process group.
  return /^[1-9]\d*$/.test(pid ?? '') ? { pid: Number(pid), start: start && start !== '-' ? start : undefined } : undefined;
}

/** Is the process that wrote this lock still running (not another that has its pid now)? */
function alive(h: Holder): boolean {
  if (!processAlive(h.pid)) return false;
  const now = processStart(h.pid);
  return h.start === undefined || now === undefined || now === h.start;
}

const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // released meanwhile
  }
};

/** Creates `path` holding `text`, whole, or returns false when it exists (link(2) is atomic). */
function create(path: string, text: string): boolean {
  const tmp = `${path}.${process.pid}.tmp`;
  // Made new (O_EXCL), so that a link planted at that name is never written through.
  rmSync(tmp, { force: true });
  writeFileSync(tmp, text, { flag: 'wx' });
  try {
    linkSync(tmp, path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * Removes the stale lock that read `stale`, unless it changed meanwhile. Two starts that found the same
 * stale lock must not both remove it (the second would remove the first one's new lock), so removal
 * happens under a guard file that only one of them can create.
 */
function removeStale(path: string, stale: string): void {
  const guard = `${path}.takeover`;
  if (!create(guard, String(process.pid))) {
    const age = Date.now() - (statSync(guard, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > GUARD_STALE_MS) rmSync(guard, { force: true });
    else pause(10); // another start is taking it over: look again in a moment
    return;
  }
  try {
    if (read(path) === stale) unlinkSync(path);
  } finally {
    unlinkSync(guard);
  }
}

/** The pid of the live server that holds DATA_DIR, if one does. */
export function dataFolderHolder(dataDir: string): number | undefined {
  const text = read(join(resolve(dataDir), LOCK_FILE));
  const holder = text === undefined ? undefined : parse(text);
  return holder && alive(holder) ? holder.pid : undefined;
}

/**
 * Takes DATA_DIR for this process, or throws a StartupError naming the folder and the process that holds
 * it. A lock left by a process that is gone (kill -9, a crash, a reboot) is taken over.
 */
export function lockDataFolder(dataDir: string): DataFolderLock {
  const dir = resolve(dataDir);
  const path = join(dir, LOCK_FILE);
  const mine = format({ pid: process.pid, start: processStart(process.pid) });
  const release = () => {
    if (read(path) === mine) rmSync(path, { force: true });
  };
  try {
    mkdirSync(dir, { recursive: true });
    for (let attempt = 0; !create(path, mine); attempt++) {
      if (attempt > 1000) throw new StartupError(`cannot take over the stale lock ${path}; remove it and ${path}.takeover`);
      const text = read(path);
      if (text === undefined) continue;
      const holder = parse(text);
      if (holder && alive(holder)) {
        throw new StartupError(
          `another tlr server (pid ${holder.pid}) is using the data folder ${dir}; stop it first, or set DATA_DIR to another folder (or DATABASE_URL) for this one`,
        );
      }
      removeStale(path, text);
    }
  } catch (e) {
    if (e instanceof StartupError) throw e;
    throw new StartupError(`cannot lock the data folder ${dir} (${(e as Error).message}); check DATA_DIR`);
  }
  // A start that ends by process.exit (a failure, a second Ctrl-C) leaves no lock behind.
  process.once('exit', release);
  return {
    path,
    release() {
      process.removeListener('exit', release);
      release();
    },
  };
}
