// Backups on a fresh data folder, with pgBackRest: the server's first start sets them up (no `tlr backup
// setup`, no restart), so that `tlr backup run` works at once; then the fault drill ("backup; more writes;
// destroy the data folder; restore to a point in time; compare"), on that embedded PostgreSQL of this
// file's own in a temp folder. A server on DATABASE_URL without setup says which step is missing.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, freePort, resolveDatabaseServer, type Database, type DatabaseServer } from '@tlr/db';
import {
  backupSettings,
  checkBackups,
  listBackups,
  restoreBackup,
  setupBackups,
  switchWal,
  type BackupInfo,
  type BackupSettings,
  type Cluster,
} from '@tlr/db/backup';
import { startEmbeddedPostgres } from '@tlr/db/embedded';
import { booksOfBackup, checkBooks, copyVouchers, recordedBackupRun } from '@tlr/domain';
import { loadConfig } from '@tlr/config';
import { backupVoucherStore, createObjectStore } from '@tlr/storage';
import { startS3Server, type TestS3Server } from '@tlr/storage/testing/s3-server';
import { spawnTlr } from '../../cli/test/helpers.ts';
import { startService, type Service } from '../src/service.ts';
import { api, created, databaseUrl, idem, internal, ok, newCompany, runSettings, twoLinePosting, type Api } from './helpers.ts';

// A folder the postgres user can enter when we are root (mkdtemp's are 0700).
const root = mkdtempSync('/tmp/tlr-backup-drill-');
chmodSync(root, 0o755);
let settings: BackupSettings;

/**
 * The second location: s3rver over HTTPS with a self-signed certificate made here, trusted through its
 * file. It names 127.0.0.1 both as a DNS entry (pgBackRest 2.45 matches a host only against DNS names)
 * and as an IP entry (Node's TLS, for the voucher copies, matches an address only against IP entries).
 */
async function httpsBucket(): Promise<TestS3Server> {
  const [key, cert] = [join(root, 's3.key'), join(root, 's3.crt')];
  const args = 'req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=DNS:127.0.0.1,IP:127.0.0.1'.split(' ');
  execFileSync('openssl', [...args, '-keyout', key, '-out', cert], { stdio: 'ignore' });
  chmodSync(cert, 0o644);
  return startS3Server('tlr-backup', { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') });
}
let s3: TestS3Server;
const vouchers = join(root, 'vouchers');
const voucherStore = () => createObjectStore(loadConfig({ STORAGE_DIR: vouchers }));
/** The bucket's settings as the operator gives them. */
const backupEnv = () => ({
  BACKUP_S3_ENDPOINT: s3.endpoint,
  BACKUP_S3_BUCKET: s3.bucket,
  BACKUP_S3_ACCESS_KEY_ID: s3.accessKeyId,
  BACKUP_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
  BACKUP_S3_CA_FILE: join(root, 's3.crt'),
});

let server: DatabaseServer;
let cluster: Cluster;
let db: Database;
let svc: Service;
let c: Api;
let companyId: string;

/** The service as `npm start` runs it on DATA_DIR, with the embedded PostgreSQL and both repositories. */
const serviceEnv = () => ({ DATA_DIR: root, STORAGE_DIR: vouchers, ...backupEnv() });
/** The CLI on that data folder, as `npm run tlr` runs it beside the server. */
const tlr = (env: Record<string, string | undefined>, ...argv: string[]) => spawnTlr({ DATABASE_URL: undefined, ...env }, ...argv);

const lap = (() => {
  let at = Date.now();
  return (what: string) => {
    if (process.env.TEST_LOG_LEVEL) console.log(`${what}: ${Date.now() - at} ms`);
    at = Date.now();
  };
})();

beforeAll(async () => {
  s3 = await httpsBucket();
  // Both repositories, as the operator configures them: the folder under DATA_DIR, and the bucket.
  settings = backupSettings(loadConfig(serviceEnv()));
  // The first start on a fresh data folder, as `npm start` (DATABASE_URL unset): nothing set up before.
  svc = await startService(
    loadConfig({ ...serviceEnv(), ...runSettings(), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', RUN_WORKER: 'false' }),
  );
  lap('first start');
  // Its PostgreSQL, joined as the CLI joins it (on the port kept in the data folder).
  server = await resolveDatabaseServer({ databaseUrl: undefined, dataDir: root, embeddedPort: undefined });
  cluster = { dataDir: server.dataDir!, url: server.url };
  db = createDatabase(server.url, 4);
  const company = await newCompany('Backup ApS', undefined, db);
  companyId = company.companyId;
  c = api(svc.url, (await company.key()).key);
});

afterAll(async () => {
  await svc?.stop();
  await db?.close();
  await server?.stop();
  await s3?.close();
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

describe('backups on from the first start', () => {
  it('the first start archives WAL and made the stanza: `tlr backup setup` finds nothing to restart', async () => {
    expect((await db.pool.query<{ archive_mode: string }>('SHOW archive_mode')).rows).toEqual([{ archive_mode: 'on' }]);
    expect(await (await fetch(`${svc.url}/readyz`)).json()).toMatchObject({ status: 'ready', backup: { status: 'none' } });
    expect(await setupBackups(settings, cluster)).toMatchObject({ restartNeeded: false });
  });
});

describe('backup and point-in-time restore', () => {
  it('shows a failed backup in /readyz, in the health of the admin app, and keeps the server ready', async () => {
    // "A failing backup is visible: in /readyz details, in the admin app's health page, and as a log line at error level."
    await expect(recordedBackupRun(db.prisma, db.pool, 'incr', () => Promise.reject(new Error('repository disk full')))).rejects.toThrow('disk full');
    const ready = await fetch(`${svc.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', backup: { status: 'failed', type: 'incr', error: 'repository disk full' } });
    expect((await internal(db).support.health({})).backup).toMatchObject({ status: 'failed', error: 'repository disk full' });
  });

  // About 30 s on a quiet machine, mostly pgBackRest's and PostgreSQL's own processes; up to three times that
  // when the two cores are shared with other test files: the bound (180 s) is for a hang, not for speed.
  it('restores everything acknowledged before the point, and nothing after it, after the data folder is destroyed', async () => {
    const inBackup = [await post(1), await post(2)];
    await ok(c.POST('/vouchers', { params: idem(), body: { filename: 'bilag.txt', content_base64: Buffer.from('bilag 1').toString('base64') } }));
    // "voucher documents copied to the second location as well": the copy job's work, into the bucket.
    const bucket = backupVoucherStore(loadConfig(backupEnv()))!;
    try {
      expect(await copyVouchers(db.prisma, voucherStore(), bucket)).toBe(1);
      expect(await copyVouchers(db.prisma, voucherStore(), bucket)).toBe(0);
      const [v] = (await db.pool.query<{ storage_key: string }>('SELECT storage_key FROM vouchers')).rows;
      const copied: Buffer[] = [];
      for await (const chunk of await bucket.get(v!.storage_key)) copied.push(chunk as Buffer);
      expect(Buffer.concat(copied).toString()).toBe('bilag 1');
    } finally {
      await bucket.close();
    }
    lap('writes');
    // `tlr backup run` beside the running server, with no other step before it: the run recorded, with
    // the books, in backup_runs, as the scheduler's are.
    const run = await tlr(serviceEnv(), 'backup', 'run', '--full', '--json');
    lap('full backup');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const backup = JSON.parse(run.stdout) as BackupInfo;
    expect(backup.type).toBe('full');
    expect(await (await fetch(`${svc.url}/readyz`)).json()).toMatchObject({ backup: { status: 'succeeded', type: 'full', error: null } });
    // pgBackRest records a backup's end in whole seconds, and restores to a time only from a backup that
    // ended before it: the point must be in a later second than the backup's end.
    await new Promise((r) => setTimeout(r, 1100));

    const before = [await post(3), await post(4)];
    // The point, by the database's clock, after the answers to those writes came back.
    const [{ t }] = (await query<{ t: Date }>(server.url, 'SELECT clock_timestamp() AS t')) as [{ t: Date }];
    await new Promise((r) => setTimeout(r, 50));
    const after = [await post(5), await post(6)];
    // The switch-wal job's step (decision 334): the segment holding them is closed, so that it is archived.
    const segment = async () => (await db.pool.query<{ f: string }>('SELECT pg_walfile_name(pg_current_wal_insert_lsn()) AS f')).rows[0]!.f;
    const open = await segment();
    expect(await switchWal(db.pool)).toBe(true);
    expect(await segment()).not.toBe(open);
    // The WAL holding them reaches the repository (pgBackRest's check switches the segment and waits).
    await checkBackups(settings, cluster);
    lap('check');

    await svc.stop();
    await db.close();
    await server.stop();
    rmSync(cluster.dataDir, { recursive: true, force: true });

    // From the second location, the S3 bucket: what is left when the machine is lost.
    const target = join(root, 'restored');
    await restoreBackup(settings, cluster.dataDir, t, target, 2);
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
      // The restore drill: the trial balances recorded at backup time, gapless numbers,
      // every voucher's SHA-256 its object's.
      const restoredDb = createDatabase(url, 2);
      try {
        const books = await booksOfBackup(restoredDb.prisma, backup.label);
        expect(books?.[companyId]?.balances).toEqual({ '6470': '3.00', '6520': '-3.00' });
        expect(await checkBooks(restoredDb.pool, books!, voucherStore())).toEqual([]);
        // And it sees a difference: a balance other than recorded, more transactions recorded than restored.
        const wrong = structuredClone(books!);
        wrong[companyId]!.balances['6470'] = '4.00';
        expect(await checkBooks(restoredDb.pool, wrong)).toEqual([
          expect.stringMatching(/account 6470 balance 3\.00 in the restored database, 4\.00 at backup time/),
        ]);
        wrong[companyId]!.last_system_id = '99';
        expect(await checkBooks(restoredDb.pool, wrong)).toEqual([expect.stringMatching(/transactions up to id 99 were recorded/)]);
      } finally {
        await restoredDb.close();
      }
    } finally {
      await restored.stop();
    }
  }, 180_000);
});

describe('a server on DATABASE_URL without setup', () => {
  it('names the missing step: one line in its log at start, in /readyz, and from `tlr backup run`, `list` and `verify`', async () => {
    const said: { level: number; msg: string }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void said.push(JSON.parse(line) as { level: number; msg: string }) });
    const config = loadConfig({
      ...runSettings(),
      DATABASE_URL: databaseUrl(),
      DATA_DIR: join(root, 'other'),
      PORT: '0',
      HOST: '127.0.0.1',
      RUN_WORKER: 'false',
    });
    const other = await startService(config, logger);
    const step = /^backups are not set up: with DATABASE_URL, pgBackRest runs on the database host: there, set BACKUP_PG_DATA_DIR and run `tlr backup setup`/;
    try {
      expect(said.filter((l) => /backup/.test(l.msg)).map((l) => [l.level, l.msg])).toEqual([[40, expect.stringMatching(step)]]);
      expect(await (await fetch(`${other.url}/readyz`)).json()).toMatchObject({
        status: 'ready',
        backup: { status: 'not_set_up', detail: expect.stringMatching(step) },
      });
    } finally {
      await other.stop();
    }
    // On the database host, BACKUP_PG_DATA_DIR given, before `tlr backup setup`: never pgBackRest's ENOENT.
    const onHost = { DATABASE_URL: databaseUrl(), BACKUP_PG_DATA_DIR: join(root, 'elsewhere'), BACKUP_DIR: join(root, 'not-set-up') };
    for (const command of ['run', 'list', 'verify']) {
      expect(await tlr(onHost, 'backup', command)).toEqual({
        code: 1,
        stdout: '',
        stderr: 'tlr: backups are not set up: run `tlr backup setup` (docs/operations.md, Backups)\n',
      });
    }
  });
});
