// Where the database comes from: DATABASE_URL when set, otherwise the embedded server under DATA_DIR.
import { join } from 'node:path';
import { createServer } from 'node:net';
import pg from 'pg';
import { startEmbeddedPostgres } from './embedded.ts';

export interface DatabaseServer {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

export async function resolveDatabaseServer(opts: {
  databaseUrl: string | undefined;
  dataDir: string;
  embeddedPort: number;
  embeddedFolder?: string;
  log?: (m: string) => void;
}): Promise<DatabaseServer> {
  if (opts.databaseUrl) return { url: opts.databaseUrl, embedded: false, stop: async () => {} };
  const folder = join(opts.dataDir, opts.embeddedFolder ?? 'pg');
  const server = await startEmbeddedPostgres(folder, opts.embeddedPort, opts.log);
  // The embedded server's own database for the service is `tlr`.
  const url = await ensureDatabase(server.url, 'tlr');
  return { url, embedded: true, stop: server.stop };
}

/** Creates `name` on the server of `serverUrl` when missing; returns its URL. */
export async function ensureDatabase(serverUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      // Unicode case mapping whatever the cluster's locale (the embedded one is initialised with C):
      // case-insensitive search must fold Æ to æ. PostgreSQL 17+ has it built in.
      const { rows } = await client.query<{ v: number }>(`SELECT current_setting('server_version_num')::int AS v`);
      const locale = rows[0]!.v >= 170000 ? ` TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER builtin BUILTIN_LOCALE 'C.UTF-8'` : '';
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '')}"${locale}`).catch((e: { code?: string }) => {
        if (e.code !== '42P04') throw e; // created by a concurrent start
      });
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

/** A TCP port free on 127.0.0.1 right now: for throwaway embedded servers (tests, benchmarks). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.once('error', reject);
  });
}
