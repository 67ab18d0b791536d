// The fault drill of Order 16 ("Done when: backup; more writes; destroy the data folder; restore to a point
// in time; compare"), against an embedded PostgreSQL of this file's own in a temp folder, with pgBackRest.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMigrations, createDatabase, freePort, resolveDatabaseServer, type Database, type DatabaseServer } from '@tlr/db';
import { checkBackups, listBackups, restoreBackup, runBackup, setupBackups, type BackupSettings, type Cluster } from '@tlr/db/backup';
import { startEmbeddedPostgres } from '@tlr/db/embedded';
import type { Service } from '../src/service.ts';
import { api, created, idem, newCompany, startTestService, twoLinePosting, type Api } from './helpers.ts';

// A folder the postgres user can enter when we are root (mkdtemp's are 0700).
const root = mkdtempSync('/tmp/tlr-backup-drill-');
chmodSync(root, 0o755);
const settings: BackupSettings = { dir: join(root, 'backup'), repoPath: join(root, 'backup', 'repo') };

let server: DatabaseServer;
let cluster: Cluster;
let db: Database;
let svc: Service;
let c: Api;
let companyId: string;

const start = async () => {
  server = await resolveDatabaseServer({ databaseUrl: undefined, dataDir: root, embeddedPort: await freePort() });
  cluster = { dataDir: server.dataDir!, url: server.url };
};

const lap = (() => {
  let at = Date.now();
  return (what: string) => {
    if (process.env.TEST_LOG_LEVEL) console.log(`${what}: ${Date.now() - at} ms`);
    at = Date.now();
  };
})();

beforeAll(async () => {
  await start();
  // archive_mode is read at start only: setup, then start PostgreSQL again, as `tlr backup setup` says.
  expect((await setupBackups(settings, cluster)).restartNeeded).toBe(true);
  await server.stop();
  await start();
  lap('setup');
  await applyMigrations(server.url);
  db = createDatabase(server.url, 4);
  const company = await newCompany('Backup ApS', undefined, db);
  companyId = company.companyId;
  svc = await startTestService({ DATABASE_URL: server.url });
  c = api(svc.url, (await company.key()).key);
  lap('migrations, service');
});

afterAll(async () => {
  await svc?.stop();
  await db?.close();
  await server?.stop();
  rmSync(root, { recursive: true, force: true });
});

const post = async (n: number) =>
  (await created(c.POST('/transactions', { params: idem(), body: twoLinePosting('2026-03-01', '6470', '6520', `${n}.00`, `drill ${n}`) }))).data.id;

async function query<T>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const d = createDatabase(url, 1);
  try {
    return (await d.pool.query(text, params)).rows as T[];
  } finally {
    await d.close();
  }
}

describe('backup and point-in-time restore', () => {
  it('restores everything acknowledged before the point, and nothing after it, after the data folder is destroyed', async () => {
    const inBackup = [await post(1), await post(2)];
    lap('writes');
    const backup = await runBackup(settings, cluster, 'full');
    lap('full backup');
    expect(backup.type).toBe('full');
    // pgBackRest records a backup's end in whole seconds, and restores to a time only from a backup that
    // ended before it: the point must be in a later second than the backup's end.
    await new Promise((r) => setTimeout(r, 1100));

    const before = [await post(3), await post(4)];
    // The point, by the database's clock, after the answers to those writes came back.
    const [{ t }] = (await query<{ t: Date }>(server.url, 'SELECT clock_timestamp() AS t')) as [{ t: Date }];
    await new Promise((r) => setTimeout(r, 50));
    const after = [await post(5), await post(6)];
    // The WAL holding them reaches the repository (pgBackRest's check switches the segment and waits).
    await checkBackups(settings, cluster);
    lap('check');

    await svc.stop();
    await db.close();
    await server.stop();
    rmSync(cluster.dataDir, { recursive: true, force: true });

    const target = join(root, 'restored');
    await restoreBackup(settings, cluster.dataDir, t, target);
    lap('restore');
    const restored = await startEmbeddedPostgres(target, await freePort());
    lap('recovery');
    try {
      const url = server.url.replace(/:\d+\//, `:${new URL(restored.url).port}/`);
      const rows = await query<{ id: string }>(url, 'SELECT id FROM ledger_transactions WHERE company_id = $1', [companyId]);
      const ids = rows.map((r) => r.id);
      expect(ids.sort()).toEqual([...inBackup, ...before].sort());
      for (const id of after) expect(ids).not.toContain(id);
      expect((await listBackups(settings)).map((b) => b.label)).toContain(backup.label);
    } finally {
      await restored.stop();
    }
  });
});
