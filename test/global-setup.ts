// The test run's database server and its template: DATABASE_URL's server when it is set, otherwise a
// throwaway embedded PostgreSQL under .data/test-pg. Migrations (and pg-boss's schema) are applied once,
// into a template database; each test file then gets a database of its own copied from it
// (test/file-database.ts, CREATE DATABASE ... TEMPLATE: a file copy, not a migration), so files run in
// parallel without sharing rows, queues or workers.
import { rmSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { applyMigrations, ensureDatabase, freePort, resolveDatabaseServer, withDatabase } from '@tlr/db';
import { dropTemplateAndCopies, freezeTemplate } from '@tlr/db/test-databases';
import { startBoss } from '@tlr/jobs';
import { launchBrowserServer } from './browser.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The server's maintenance database (`postgres`): where the files' databases are created and dropped. */
    databaseServerUrl: string;
    /** The migrated template every file's database is copied from; also the prefix of their names. */
    templateDatabase: string;
    /** The run's one Chromium ('' when the machine has none): test/browser.ts connects to it. */
    browserEndpoint: string;
  }
}

export default async function setup(project: TestProject) {
  const given = process.env.DATABASE_URL || undefined;
  // Without DATABASE_URL: a throwaway cluster per run (own folder, free port), so that two runs at
  // once (a developer's and a helper's) never share, or stop, each other's server.
  const folder = `test-pg/${process.pid}`;
  const server = await resolveDatabaseServer({ databaseUrl: given, dataDir: '.data', embeddedPort: await freePort(), embeddedFolder: folder });
  const serverUrl = withDatabase(server.url, 'postgres');
  const template = `tlr_test_${Date.now()}_${process.pid}`;
  const url = await ensureDatabase(serverUrl, template);
  await applyMigrations(url);
  // pg-boss makes its schema and queues at its first start: once here rather than once per file.
  const boss = await startBoss(url, () => {});
  await boss.stop({ graceful: false, close: true });
  await freezeTemplate(serverUrl, template);
  const browser = await launchBrowserServer();
  project.provide('browserEndpoint', browser?.wsEndpoint() ?? '');
  project.provide('databaseServerUrl', serverUrl);
  project.provide('templateDatabase', template);
  return async () => {
    await browser?.close();
    if (server.embedded) {
      await server.stop();
      rmSync(`.data/${folder}`, { recursive: true, force: true });
      return;
    }
    // On a shared server: the files' databases (any a killed file left behind too), then the template.
    await dropTemplateAndCopies(serverUrl, template);
  };
}
