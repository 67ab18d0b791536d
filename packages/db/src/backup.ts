// The backup tool behind a small interface: pgBackRest (Debian's `pgbackrest`), configured and driven by
// tlr. It owns the pgBackRest config (stanza `tlr`, encrypted repositories), WAL archiving, the runs, and
// whether backups are set up (and if not, the step missing).
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { accessSync, chownSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { basename, delimiter, join, resolve } from 'node:path';
import pg from 'pg';
import type { Config } from '@tlr/config';
import { SOCKET_DIR, type EmbeddedCluster, type RunAs } from './embedded.ts';

export const STANZA = 'tlr';
/** Debian's pgbackrest on the PATH (scripts/ensure-pgbackrest.mjs installs it). */
export const PGBACKREST = 'pgbackrest';

/** The second repository: an S3-protocol bucket (pgBackRest speaks it only over HTTPS). */
export interface S3Repository {
  endpoint: string; // https://host:port
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Folder in the bucket. */
  path: string;
  /** A CA certificate file to trust (a private store's self-signed one). */
  caFile?: string;
  /** Off only in tests. */
  verifyTls: boolean;
}

export interface BackupSettings {
  /** Where the pgBackRest config, the generated passphrase, logs and locks are kept (DATA_DIR/backup). */
  dir: string;
  /** The first repository: a local folder (default DATA_DIR/backup/repo). */
  repoPath: string;
  /** The repositories' encryption passphrase; unset: generated once into dir/cipher-pass (decision 322). */
  cipherPass?: string;
  s3?: S3Repository;
}

/** The PostgreSQL cluster backed up: its data folder, the server's URL (port, superuser password), its socket folder. */
export interface Cluster {
  dataDir: string;
  url: string;
  /** Where its Unix socket is (pgBackRest connects to a local PostgreSQL only through it); the embedded server's by default. */
  socketDir?: string;
}

/** The settings of `config` (docs/operations.md, Backups). */
export function backupSettings(config: Config): BackupSettings {
  const dir = throughLinks(config.BACKUP_DIR ?? join(config.DATA_DIR, 'backup'));
  const s3 = config.BACKUP_S3_ENDPOINT
    ? {
        endpoint: config.BACKUP_S3_ENDPOINT,
        bucket: config.BACKUP_S3_BUCKET!,
        region: config.BACKUP_S3_REGION,
        accessKeyId: config.BACKUP_S3_ACCESS_KEY_ID!,
        secretAccessKey: config.BACKUP_S3_SECRET_ACCESS_KEY!,
        path: config.BACKUP_S3_PATH,
        ...(config.BACKUP_S3_CA_FILE ? { caFile: config.BACKUP_S3_CA_FILE } : {}),
        verifyTls: config.BACKUP_S3_VERIFY_TLS,
      }
    : undefined;
  return {
    dir,
    repoPath: throughLinks(config.BACKUP_REPO_PATH ?? join(dir, 'repo')),
    ...(config.BACKUP_CIPHER_PASS ? { cipherPass: config.BACKUP_CIPHER_PASS } : {}),
    ...(s3 ? { s3 } : {}),
  };
}

/**
 * `path` with the links of its existing part resolved. pgBackRest runs as the postgres user (as root, see
 * embedded.ts), who may not pass through the folder DATA_DIR was linked from (a checkout under /root):
 * the backup folder is named by where it really is, which that user can reach.
 */
function throughLinks(path: string): string {
  const full = resolve(path);
  for (let existing = full, rest = ''; ;) {
    if (existsSync(existing)) return join(realpathSync(existing), rest);
    const parent = resolve(existing, '..');
    if (parent === existing) return full;
    rest = join(basename(existing), rest);
    existing = parent;
  }
}

/** The cluster backed up: the embedded one, or BACKUP_PG_DATA_DIR's on the database host with DATABASE_URL. */
export function backupCluster(config: Config, server: { embedded: boolean; dataDir?: string | undefined; url: string }): Cluster | undefined {
  if (server.embedded) return { dataDir: server.dataDir!, url: server.url };
  return config.BACKUP_PG_DATA_DIR ? { dataDir: config.BACKUP_PG_DATA_DIR, url: server.url, socketDir: config.BACKUP_PG_SOCKET_DIR } : undefined;
}

export interface BackupInfo {
  label: string;
  type: 'full' | 'diff' | 'incr';
  started_at: string;
  finished_at: string;
  /** Bytes in the repository (compressed, encrypted) and of the database. */
  repo_size: number;
  database_size: number;
  /** The WAL range it needs; a restore can reach any time after `finished_at` that the archive covers. */
  wal_start: string;
  wal_stop: string;
}

export class BackupError extends Error {}

const CIPHER_FILE = 'cipher-pass';
/** The SHA-256 of the config for which `stanza-create` last succeeded: the stanza is made in every repository of it. */
const STANZA_STAMP = 'stanza-created';
export const configPath = (s: BackupSettings) => join(resolve(s.dir), 'pgbackrest.conf');

/** Is pgBackRest on `path` (the PATH PostgreSQL's archive_command and tlr run it with)? */
export function pgbackrestInstalled(path = process.env.PATH ?? ''): boolean {
  return path.split(delimiter).some((dir) => {
    try {
      accessSync(join(dir || '.', PGBACKREST), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

const NOT_SET_UP = 'backups are not set up';
const notSetUp = (step: string) => new BackupError(`${NOT_SET_UP}: ${step}`);
const SETUP_STEP = 'run `tlr backup setup` (docs/operations.md, Backups)';

/** Backups are set up, or the one line that says which step is missing. */
export type BackupSetup = { set_up: true } | { set_up: false; reason: string };

/**
 * Whether `cluster` is backed up: pgBackRest installed, its config written, the stanza created for that
 * config, and (when `archiveMode`, the server's archive_mode, is given) WAL archiving on. `embedded`: the
 * embedded server, which tlr sets up at start (decision 422), so that the step named is restarting tlr.
 */
export function backupSetup(s: BackupSettings, cluster: Cluster | undefined, opts: { embedded: boolean; archiveMode?: string }): BackupSetup {
  const missing = (step: string): BackupSetup => ({ set_up: false, reason: `${NOT_SET_UP}: ${step}` });
  if (!cluster) {
    return missing(
      'with DATABASE_URL, pgBackRest runs on the database host: there, set BACKUP_PG_DATA_DIR and run `tlr backup setup` (docs/operations.md, Backups)',
    );
  }
  if (!pgbackrestInstalled()) {
    return missing(`pgBackRest is not installed: sudo apt-get install pgbackrest, then ${opts.embedded ? 'restart tlr' : SETUP_STEP}`);
  }
  if (!stanzaCreated(s)) return missing(opts.embedded ? `restart tlr, or ${SETUP_STEP}` : SETUP_STEP);
  if (opts.archiveMode === 'off') {
    return missing(
      opts.embedded
        ? 'WAL archiving starts when the embedded PostgreSQL starts again: restart tlr'
        : 'WAL archiving starts when PostgreSQL starts again after `tlr backup setup`: restart PostgreSQL',
    );
  }
  return { set_up: true };
}

/** A BackupError naming the missing step unless backups are set up. */
export function requireBackupSetup(...args: Parameters<typeof backupSetup>): void {
  const state = backupSetup(...args);
  if (!state.set_up) throw new BackupError(state.reason);
}

const configHash = (s: BackupSettings) =>
  createHash('sha256')
    .update(readFileSync(configPath(s)))
    .digest('hex');

function stanzaCreated(s: BackupSettings): boolean {
  const stamp = join(s.dir, STANZA_STAMP);
  return existsSync(configPath(s)) && existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === configHash(s);
}

/** The OS user that owns `dir`, when it is not us (we are root and PostgreSQL runs as postgres): who runs pgBackRest. */
function ownerOf(dir: string): RunAs | undefined {
  const st = statSync(dir, { throwIfNoEntry: false });
  if (!st) return undefined; // not set up: pgbackrest() says so
  return process.getuid?.() === 0 && st.uid !== 0 ? { uid: st.uid, gid: st.gid } : undefined;
}

function cipherPass(s: BackupSettings, owner: RunAs | undefined): string {
  if (s.cipherPass) return s.cipherPass;
  const file = join(s.dir, CIPHER_FILE);
  if (!existsSync(file)) {
    writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    if (owner) chownSync(file, owner.uid, owner.gid);
  }
  return readFileSync(file, 'utf8').trim();
}

/** The pgBackRest config: both repositories encrypted with one passphrase, the cluster as pg1. */
export function configText(s: BackupSettings, cluster: Cluster, pass: string): string {
  const dir = resolve(s.dir);
  const lines = [
    '# Written by tlr (`tlr backup setup`, and the embedded server at each start; docs/operations.md, Backups): change the settings, not this file.',
    '[global]',
    `repo1-path=${resolve(s.repoPath)}`,
    'repo1-cipher-type=aes-256-cbc',
    `repo1-cipher-pass=${pass}`,
    // The weekly fulls kept: four weeks, with the WAL to reach any point in them (decision 323).
    'repo1-retention-full=4',
    // Small files bundled into few objects: a database is mostly small files, and each is a request to a bucket.
    'repo1-bundle=y',
  ];
  if (s.s3) {
    const u = new URL(s.s3.endpoint);
    lines.push(
      'repo2-type=s3',
      `repo2-path=${s.s3.path}`,
      `repo2-s3-endpoint=${u.hostname}`,
      ...(u.port ? [`repo2-storage-port=${u.port}`] : []),
      `repo2-s3-bucket=${s.s3.bucket}`,
      `repo2-s3-region=${s.s3.region}`,
      `repo2-s3-key=${s.s3.accessKeyId}`,
      `repo2-s3-key-secret=${s.s3.secretAccessKey}`,
      'repo2-s3-uri-style=path',
      ...(s.s3.caFile ? [`repo2-storage-ca-file=${resolve(s.s3.caFile)}`] : []),
      ...(s.s3.verifyTls ? [] : ['repo2-storage-verify-tls=n']),
      'repo2-cipher-type=aes-256-cbc',
      `repo2-cipher-pass=${pass}`,
      'repo2-retention-full=4',
      'repo2-bundle=y',
    );
  }
  lines.push(
    `log-path=${join(dir, 'log')}`,
    `lock-path=${join(dir, 'lock')}`,
    `spool-path=${join(dir, 'spool')}`,
    'log-level-console=warn',
    'log-level-file=info',
    'compress-type=zst',
    'start-fast=y',
    '',
    `[${STANZA}]`,
    `pg1-path=${existsSync(cluster.dataDir) ? realpathSync(cluster.dataDir) : cluster.dataDir}`,
    `pg1-port=${new URL(cluster.url).port || 5432}`,
    `pg1-socket-path=${cluster.socketDir ?? SOCKET_DIR}`,
    `pg1-user=${decodeURIComponent(new URL(cluster.url).username) || 'postgres'}`,
    '',
  );
  return lines.join('\n');
}

/** The archive_command that sends each finished WAL segment to the repositories. */
export const archiveCommand = (s: BackupSettings) => `${PGBACKREST} --config=${configPath(s)} --stanza=${STANZA} archive-push %p`;

/** Runs pgBackRest as `who` with the config; resolves with its stdout, or fails with its last error line. */
function pgbackrest(s: BackupSettings, args: string[], who: RunAs | undefined, password?: string): Promise<string> {
  if (!existsSync(configPath(s))) return Promise.reject(notSetUp(SETUP_STEP));
  return new Promise((done, fail) => {
    const child = spawn(PGBACKREST, [`--config=${configPath(s)}`, `--stanza=${STANZA}`, ...args], {
      ...who,
      cwd: '/',
      env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}), LC_MESSAGES: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', (e) => fail(new BackupError(`cannot run ${PGBACKREST}: ${e.message}; install pgBackRest (sudo apt-get install pgbackrest)`)));
    child.on('close', (code) => {
      if (code === 0) return done(out);
      const said = `${err}\n${out}`
        .trim()
        .split('\n')
        .filter((l) => /ERROR|HINT/.test(l));
      fail(new BackupError(`pgbackrest ${args.at(-1)} failed (exit ${code}): ${said.join(' ').replace(/\s+/g, ' ') || err.trim() || out.trim()}`));
    });
  });
}

async function sql<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

const quote = (v: string) => `'${v.replace(/'/g, "''")}'`;

export interface SetupResult {
  config: string;
  archiveCommand: string;
  /** archive_mode takes effect only when PostgreSQL starts again. */
  restartNeeded: boolean;
}

/** Writes the folders, the passphrase (once) and the config, all owned by the data folder's owner. */
function writeBackupConfig(s: BackupSettings, cluster: Cluster): void {
  // pgBackRest runs as the data folder's owner, as PostgreSQL's archive_command does; its folders are that user's.
  const owner = ownerOf(cluster.dataDir);
  for (const d of [s.dir, s.repoPath, ...['log', 'lock', 'spool'].map((x) => join(s.dir, x))]) {
    mkdirSync(d, { recursive: true, mode: 0o750 });
    if (owner) chownSync(d, owner.uid, owner.gid);
  }
  writeFileSync(configPath(s), configText(s, cluster, cipherPass(s, owner)), { mode: 0o600 });
  if (owner) chownSync(configPath(s), owner.uid, owner.gid);
}

/** What turns on WAL archiving into the repositories (decision 325). */
function archiveSettings(s: BackupSettings): Record<string, string> {
  return {
    archive_mode: 'on',
    archive_command: archiveCommand(s),
    // A WAL segment is archived when full or after this long (with the switch-wal job, decision 334).
    archive_timeout: '60s',
  };
}

/** Creates the stanza in every repository of the config (pgBackRest's stanza-create does nothing to one made already). */
async function createStanza(s: BackupSettings, cluster: Cluster): Promise<void> {
  const hash = configHash(s);
  await pgbackrest(s, ['stanza-create'], ownerOf(s.dir), password(cluster));
  writeFileSync(join(s.dir, STANZA_STAMP), `${hash}\n`);
}

/** The stanza, once for each config: after a start that wrote a new one (a BACKUP_* setting changed). Nothing without a config. */
export async function ensureStanza(s: BackupSettings, cluster: Cluster): Promise<void> {
  if (existsSync(configPath(s)) && !stanzaCreated(s)) await createStanza(s, cluster);
}

/**
 * Writes the config (and the passphrase, once), creates the stanza in every repository, and turns on WAL
 * archiving on the cluster (ALTER SYSTEM, so it holds across restarts and is in every backup).
 */
export async function setupBackups(s: BackupSettings, cluster: Cluster): Promise<SetupResult> {
  writeBackupConfig(s, cluster);
  for (const [name, value] of Object.entries(archiveSettings(s))) await sql(cluster.url, `ALTER SYSTEM SET ${name} = ${quote(value)}`);
  await sql(cluster.url, 'SELECT pg_reload_conf()');
  const [mode] = await sql<{ archive_mode: string }>(cluster.url, 'SHOW archive_mode');
  await createStanza(s, cluster);
  return { config: configPath(s), archiveCommand: archiveCommand(s), restartNeeded: mode?.archive_mode !== 'on' };
}

/**
 * The embedded server's backups from its first start (decision 422): before PostgreSQL starts, the config
 * is written and archiving goes into postgresql.auto.conf, so no restart is needed; the caller creates
 * the stanza once it runs (ensureStanza). Without pgBackRest nothing is turned on: an archive_command
 * that cannot run would keep every WAL segment until the disk is full.
 */
export const archivingFromStart =
  (settings: BackupSettings) =>
  (cluster: EmbeddedCluster): Record<string, string> => {
    if (!pgbackrestInstalled()) return {};
    // Named again now that the data folder exists: a first start may have just linked DATA_DIR elsewhere.
    const s = { ...settings, dir: throughLinks(settings.dir), repoPath: throughLinks(settings.repoPath) };
    writeBackupConfig(s, cluster);
    return archiveSettings(s);
  };

const password = (c: Cluster) => decodeURIComponent(new URL(c.url).password);

/** Runs a backup into every repository; `incr` and `diff` fall back to full when there is none yet. */
export async function runBackup(s: BackupSettings, cluster: Cluster, type: 'full' | 'incr' | 'diff'): Promise<BackupInfo> {
  const owner = ownerOf(s.dir);
  const port = new URL(cluster.url).port || '5432';
  const before = new Set((await listBackups(s)).map((b) => b.label));
  const repos = s.s3 ? ['1', '2'] : ['1'];
  for (const repo of repos) await pgbackrest(s, [`--type=${type}`, `--repo=${repo}`, `--pg1-port=${port}`, 'backup'], owner, password(cluster));
  const made = (await listBackups(s)).filter((b) => !before.has(b.label));
  const last = made.at(-1);
  if (!last) throw new BackupError('pgbackrest backup ended without a new backup in the repository');
  return last;
}

interface InfoJson {
  backup?: {
    label: string;
    type: 'full' | 'diff' | 'incr';
    timestamp: { start: number; stop: number };
    info: { size: number; repository: { delta: number } };
    archive: { start: string; stop: string };
    database?: { 'repo-key'?: number };
  }[];
}

/** The backups in the repositories, oldest first. */
export async function listBackups(s: BackupSettings): Promise<BackupInfo[]> {
  const out = await pgbackrest(s, ['--output=json', 'info'], ownerOf(s.dir));
  const [stanza] = JSON.parse(out) as InfoJson[];
  return (stanza?.backup ?? []).map((b) => ({
    label: b.label,
    type: b.type,
    started_at: new Date(b.timestamp.start * 1000).toISOString(),
    finished_at: new Date(b.timestamp.stop * 1000).toISOString(),
    repo_size: b.info.repository.delta,
    database_size: b.info.size,
    wal_start: b.archive.start,
    wal_stop: b.archive.stop,
  }));
}

/**
 * Closes the WAL segment in use, so that it is archived, when archiving is on: the worker's switch-wal job
 * every minute (decision 334: archive_timeout did not switch here). pg_switch_wal does nothing when no WAL
 * was written since the last switch. True when archiving is on.
 */
export async function switchWal(pool: Pick<pg.Pool, 'query'>): Promise<boolean> {
  const { rowCount } = await pool.query(`SELECT pg_switch_wal() FROM pg_settings WHERE name = 'archive_mode' AND setting <> 'off'`);
  return rowCount === 1;
}

/**
 * Checks the chain end to end: the cluster archives WAL into every repository (a segment is switched and
 * must arrive), and pgBackRest's verify reads every backup and WAL file back and checks its checksum.
 */
export async function checkBackups(s: BackupSettings, cluster: Cluster): Promise<void> {
  const owner = ownerOf(s.dir);
  await pgbackrest(s, [`--pg1-port=${new URL(cluster.url).port || '5432'}`, 'check'], owner, password(cluster));
  const out = await pgbackrest(s, ['verify'], owner);
  if (/error|invalid|missing/i.test(out)) throw new BackupError(`pgbackrest verify found damage: ${out.trim().replace(/\s+/g, ' ')}`);
}

/** A time as pgBackRest takes it: YYYY-MM-DD HH:MM:SS.mmm+00 (no ISO 8601 T or Z). */
const pgTime = (t: Date) => t.toISOString().replace('T', ' ').replace('Z', '+00');

/**
 * Restores the cluster as it was at `to` (or at the end of the backup labelled so) into `target`, a new (missing or empty) data folder; never over
 * the live one. Start a PostgreSQL on it: it replays the archived WAL up to `to` and opens.
 */
export async function restoreBackup(s: BackupSettings, liveDataDir: string, to: Date | { label: string }, target: string, repo: 1 | 2 = 1): Promise<void> {
  if (!existsSync(configPath(s))) throw notSetUp(SETUP_STEP);
  const dir = resolve(target);
  if (existsSync(liveDataDir) && existsSync(dir) && realpathSync(dir) === realpathSync(liveDataDir)) {
    throw new BackupError(`--target ${target} is the live data folder; restore into a new folder and move it in with the server stopped`);
  }
  if (existsSync(dir) && readdirSync(dir).length) throw new BackupError(`--target ${target} is not empty; restore into a new or empty folder`);
  const owner = ownerOf(s.dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (owner) chownSync(dir, owner.uid, owner.gid);
  // A backup by its label: the database as that backup left it (the end of the backup, no further WAL),
  // for the drill: archiving off, so that the copy never pushes WAL of its own into the repositories.
  const point = to instanceof Date ? ['--type=time', `--target=${pgTime(to)}`] : [`--set=${to.label}`, '--type=immediate', '--archive-mode=off'];
  await pgbackrest(s, [`--repo=${repo}`, `--pg1-path=${dir}`, ...point, '--target-action=promote', 'restore'], owner);
}
