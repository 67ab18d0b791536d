// Whether backups are set up, and the one line naming the missing step when they are not (decisions 422 and 423):
// the rules alone, on folders of this test's own, with pgBackRest present or not on the PATH.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '@tlr/config';
import { archivingFromStart, backupSettings, backupSetup, pgbackrestInstalled, type BackupSettings } from './backup.ts';

const root = mkdtempSync(join(tmpdir(), 'tlr-backup-setup-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A folder with a `pgbackrest` that is executable or not. */
function binFolder(name: string, mode: number): string {
  const dir = join(root, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'pgbackrest'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(dir, 'pgbackrest'), mode);
  return dir;
}
const withBin = binFolder('with', 0o755);
const notExecutable = binFolder('not-executable', 0o644);
const empty = join(root, 'empty');
mkdirSync(empty);

const PATH = process.env.PATH;
afterEach(() => {
  process.env.PATH = PATH;
});

const settings = (name: string): BackupSettings => ({ dir: join(root, name), repoPath: join(root, name, 'repo') });
const cluster = { dataDir: join(root, 'pg'), url: 'postgresql://postgres:postgres@127.0.0.1:54329/postgres' };

describe('pgBackRest on the PATH', () => {
  it('is found only as an executable file in one of its folders', () => {
    expect(pgbackrestInstalled(`${empty}:${withBin}`)).toBe(true);
    expect(pgbackrestInstalled(`${empty}:${notExecutable}`)).toBe(false);
    expect(pgbackrestInstalled('')).toBe(false);
  });
});

describe('backups not set up: the step missing', () => {
  it('with DATABASE_URL and no BACKUP_PG_DATA_DIR: set it on the database host and run setup there', () => {
    expect(backupSetup(settings('a'), undefined, { embedded: false })).toEqual({
      set_up: false,
      reason:
        'backups are not set up: with DATABASE_URL, pgBackRest runs on the database host: there, set BACKUP_PG_DATA_DIR and run `tlr backup setup` (docs/operations.md, Backups)',
    });
  });

  it('without pgBackRest: install it, then restart tlr (embedded) or run setup; nothing turns archiving on', () => {
    process.env.PATH = empty;
    expect(backupSetup(settings('b'), cluster, { embedded: true })).toEqual({
      set_up: false,
      reason: 'backups are not set up: pgBackRest is not installed: sudo apt-get install pgbackrest, then restart tlr',
    });
    expect(backupSetup(settings('b'), cluster, { embedded: false })).toMatchObject({
      reason: 'backups are not set up: pgBackRest is not installed: sudo apt-get install pgbackrest, then run `tlr backup setup` (docs/operations.md, Backups)',
    });
    // An archive_command that cannot run would keep every WAL segment: the first start turns nothing on.
    expect(archivingFromStart(settings('b'))(cluster)).toEqual({});
  });

  it('with pgBackRest but no config yet: run setup (or restart tlr, which writes it before PostgreSQL starts)', () => {
    process.env.PATH = withBin;
    expect(backupSetup(settings('c'), cluster, { embedded: false })).toMatchObject({
      reason: 'backups are not set up: run `tlr backup setup` (docs/operations.md, Backups)',
    });
    expect(backupSetup(settings('c'), cluster, { embedded: true })).toMatchObject({
      reason: 'backups are not set up: restart tlr, or run `tlr backup setup` (docs/operations.md, Backups)',
    });
  });

  it('the first start writes the config and the settings that archive into it, before PostgreSQL starts', () => {
    process.env.PATH = withBin;
    mkdirSync(cluster.dataDir, { recursive: true });
    const s = settings('d');
    expect(archivingFromStart(s)(cluster)).toEqual({
      archive_mode: 'on',
      archive_command: `pgbackrest --config=${join(s.dir, 'pgbackrest.conf')} --stanza=tlr archive-push %p`,
      archive_timeout: '60s',
    });
    // The stanza is made once PostgreSQL runs: until then, still not set up.
    expect(backupSetup(s, cluster, { embedded: true })).toMatchObject({ set_up: false });
  });
});

describe('the backup folder under a linked DATA_DIR', () => {
  it("is named by where it really is (pgBackRest, as the postgres user, may not pass through the link's folder)", () => {
    const real = join(root, 'shared-place');
    mkdirSync(real);
    const linked = join(root, 'checkout-data');
    symlinkSync(real, linked);
    const config = loadConfig({ DATA_DIR: linked });
    expect(backupSettings(config)).toMatchObject({ dir: join(real, 'backup'), repoPath: join(real, 'backup', 'repo') });
    // Before the first start has linked it, the folder is named as given.
    expect(backupSettings(loadConfig({ DATA_DIR: join(root, 'not-yet', 'data') })).dir).toBe(join(root, 'not-yet', 'data', 'backup'));
  });
});
