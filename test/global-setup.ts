// One fresh database per test run: on DATABASE_URL's server when it is set, otherwise on an embedded
// PostgreSQL kept under .data/test-pg. Migrations are applied once here; each test file then works in
// companies of its own, so files can run in parallel on the same database.
import { rmSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { applyMigrations, dropDatabase, ensureDatabase, freePort, resolveDatabaseServer, withDatabase } from '@tlr/db';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const given = process.env.DATABASE_URL || undefined;
  // Without DATABASE_URL: a throwaway cluster per run (own folder, free port), so that two runs at
  // once (a developer's and a helper's) never share, or stop, each other's server.
  const folder = `test-pg/${process.pid}`;
  const server = await resolveDatabaseServer({ databaseUrl: given, dataDir: '.data', embeddedPort: await freePort(), embeddedFolder: folder });
  // resolveDatabaseServer hands back a database URL; the test database sits beside it on the same server.
  const serverUrl = withDatabase(server.url, 'postgres');
  const name = `tlr_test_${Date.now()}_${process.pid}`;
  const url = await ensureDatabase(serverUrl, name);
  await applyMigrations(url);
  project.provide('databaseUrl', url);
  return async () => {
    await dropDatabase(serverUrl, name).catch(() => {});
    await server.stop();
    if (server.embedded) rmSync(`.data/${folder}`, { recursive: true, force: true });
  };
}
