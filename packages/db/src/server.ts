// Where the database comes from: DATABASE_URL when set, otherwise the embedded server under DATA_DIR.
import { existsSync, lstatSync, mkdirSync, realpathSync, renameSync, rmdirSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import pg from 'pg';
import { dataFolderHolder } from './data-lock.ts';
import { blockedAt, postgresUser, SHARED_DIR, sharedFolder, startEmbeddedPostgres, StartupError, type EmbeddedOptions } from './embedded.ts';

export { StartupError } from './embedded.ts';
export { freePort } from './ports.ts';

export interface DatabaseServer {
  url: string;
  embedded: boolean;
  /** The embedded server's data folder, links resolved (it may be under /var/lib/tlr, see dataDirFor). */
  dataDir?: string;
  stop(): Promise<void>;
  /** Lets an embedded server this process started run on after it exits. */
  leaveRunning(): void;
}

export async function resolveDatabaseServer(opts: {
  databaseUrl: string | undefined;
  dataDir: string;
  /** EMBEDDED_PG_PORT; undefined: the data folder's own (decision 420). */
  embeddedPort: number | undefined;
  embeddedFolder?: string;
  log?: (m: string) => void;
  embedded?: EmbeddedOptions;
}): Promise<DatabaseServer> {
  if (opts.databaseUrl) {
    await probe(opts.databaseUrl);
    return { url: opts.databaseUrl, embedded: false, stop: async () => {}, leaveRunning: () => {} };
  }
  const folder = join(dataDirFor(opts.dataDir, opts.log), opts.embeddedFolder ?? 'pg');
  const server = await startEmbeddedPostgres(folder, opts.embeddedPort, opts.log, opts.embedded);
  // The embedded server's own database for the service is `tlr`.
  const url = await ensureDatabase(server.url, 'tlr');
  return { url, embedded: true, dataDir: realpathSync(folder), stop: server.stop, leaveRunning: server.leaveRunning };
}

/**
 * Done with the database after one command (the CLI). An embedded PostgreSQL the command started is
 * stopped, unless an `npm start` took the data folder meanwhile: that server has joined this PostgreSQL
 * and stops it on its way out (decision 159), and would be left without a database otherwise.
 */
export async function closeAfterCommand(server: DatabaseServer, dataDir: string): Promise<void> {
  if (server.embedded && dataFolderHolder(dataDir) !== undefined) server.leaveRunning();
  else await server.stop();
}

/** Connects once, so that a wrong DATABASE_URL is one line at start and not a failure of whatever runs first. */
async function probe(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => {}); // a connection lost after the probe is not its business
  try {
    await client.connect();
  } catch (e) {
    const { hostname, port } = new URL(url);
    throw new StartupError(`cannot connect to the database of DATABASE_URL (${hostname}:${port || 5432}): ${(e as Error).message}`);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Removes `dir` only while it is empty: never data that was moved into it. */
function rmdirSafely(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty, or gone
  }
}

/**
 * DATA_DIR, made reachable for the embedded PostgreSQL. As root it runs as the postgres user (see
 * embedded.ts); when that user cannot enter the folder DATA_DIR is in (a checkout under /root, mode
 * 700), the data goes to a folder of its own under /var/lib/tlr, named after DATA_DIR, and DATA_DIR
 * becomes a link to it: every path under DATA_DIR keeps working (the test run's clean-up too), and
 * deleting DATA_DIR starts afresh as it always did (the next start links a new folder).
 */
function dataDirFor(dataDir: string, log: (m: string) => void = () => {}): string {
  const dir = resolve(dataDir);
  const who = postgresUser();
  const blocked = who && blockedAt(dir, who);
  if (!blocked) return dir;
  if (lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink()) return dir; // linked already; its target is checked at start
  const target = sharedFolder(SHARED_DIR, `${dir.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-/, '')}-`);
  try {
    // A folder left by a start that could not run there moves along (rename may replace an empty folder).
    if (existsSync(dir)) renameSync(dir, target);
    else mkdirSync(dirname(dir), { recursive: true });
    symlinkSync(target, dir);
  } catch (e) {
    rmdirSafely(target);
    if (lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink()) return dir; // a concurrent start linked it first
    throw new StartupError(
      `cannot start the embedded PostgreSQL: it runs as the user postgres (PostgreSQL refuses to run as root), who cannot enter ${blocked}, and ${dir} could not be moved to ${SHARED_DIR} (${(e as Error).message}); set DATA_DIR to a folder that user can reach, or DATABASE_URL`,
    );
  }
  log(`the postgres user cannot enter ${blocked}: the data is kept in ${target}, linked from ${dir}`);
  return dir;
}

/** Creates `name` on the server of `serverUrl` when missing; returns its URL. */
export async function ensureDatabase(serverUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      // Unicode case mapping whatever the cluster's locale (the embedded one is initialised with C):
      // case-insensitive search must fold Æ to æ. PostgreSQL 17+ has it built in; before, the C library's
      // C.UTF-8 character classes do it (glibc 2.35+), while sorting stays byte order (LC_COLLATE C).
      const { rows } = await client.query<{ v: number }>(`SELECT current_setting('server_version_num')::int AS v`);
      const locale =
        rows[0]!.v >= 170000
          ? ` TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER builtin BUILTIN_LOCALE 'C.UTF-8'`
          : ` TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C.UTF-8'`;
      const create = (options: string) =>
        client.query(`CREATE DATABASE "${name.replace(/"/g, '')}"${options}`).catch((e: { code?: string }) => {
          if (e.code !== '42P04') throw e; // created by a concurrent start
        });
      // A C library without C.UTF-8 (22023 invalid locale name): the cluster's own locale, ASCII case folding.
      await create(locale).catch((e: { code?: string }) => (e.code === '22023' && rows[0]!.v < 170000 ? create('') : Promise.reject(e)));
    }
  } finally {
    await client.end();
  }
  return withDatabase(serverUrl, name);
}

export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
