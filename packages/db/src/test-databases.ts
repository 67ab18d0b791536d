// Databases for the test run (test/global-setup.ts, test/file-database.ts): one migrated template per
// run, and a copy of it per test file. CREATE DATABASE ... TEMPLATE copies the files of the template:
// much faster than applying every migration again, and every copy starts exactly alike.
import pg from 'pg';
import { dropDatabase, withDatabase } from './server.ts';

const quoted = (name: string) => `"${name.replace(/"/g, '')}"`;

async function onServer<T>(serverUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Makes `name` a template nobody connects to any more (a copy needs it without sessions). */
export const freezeTemplate = (serverUrl: string, name: string) =>
  onServer(serverUrl, async (c) => {
    await c.query(`ALTER DATABASE ${quoted(name)} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
    // A pool closing lazily (pg-boss's) may still hold a session for a moment.
    await c.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [name]);
  });

/** A new database `name`, a copy of `template`; returns its URL. */
export async function copyDatabase(serverUrl: string, template: string, name: string): Promise<string> {
  await onServer(serverUrl, (c) => c.query(`CREATE DATABASE ${quoted(name)} TEMPLATE ${quoted(template)}`));
  return withDatabase(serverUrl, name);
}

/** Drops the template and every database named after it (its copies, a killed file's too). */
export async function dropTemplateAndCopies(serverUrl: string, template: string): Promise<void> {
  const names = await onServer(serverUrl, async (c) => {
    const { rows } = await c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`${template}\\_%`]);
    await c.query(`ALTER DATABASE ${quoted(template)} WITH IS_TEMPLATE false`);
    return rows.map((r) => r.datname);
  });
  for (const name of [...names, template]) await dropDatabase(serverUrl, name);
}
