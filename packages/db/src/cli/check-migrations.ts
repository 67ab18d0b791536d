// Do prisma/migrations and prisma/schema.prisma agree? Prisma's own `migrate diff` replays the migrations
// in a shadow database and compares the result with the schema. Its main database is a temporary one
// that we create and drop, so no real database is read or touched; only a server is needed.
//
//   tsx packages/db/src/cli/check-migrations.ts
//
// exits 0 when they agree, 1 (printing the SQL a new migration would need) when they do not, and 2 when
// it could not check. The server is SHADOW_DATABASE_URL's, else DATABASE_URL's.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { dropDatabase, ensureDatabase, withDatabase } from '../server.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const SCHEMA_PATH = join(REPO_ROOT, 'prisma', 'schema.prisma');
export const MIGRATIONS_DIR = join(REPO_ROOT, 'prisma', 'migrations');
const ENGINE_BRIDGE = join(REPO_ROOT, 'packages', 'db', 'schema-engine', 'bin.mjs');

export function databaseServerFromEnv(): string {
  const url = process.env.SHADOW_DATABASE_URL || process.env.DATABASE_URL;
  if (!url) {
    throw new Error('Set DATABASE_URL or SHADOW_DATABASE_URL: a PostgreSQL server on which a temporary database can be created.');
  }
  return url;
}

export interface PrismaRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the workspace's Prisma CLI from the repository root, against `databaseUrl`. */
export function runPrisma(args: string[], databaseUrl: string): Promise<PrismaRun> {
  const cli = createRequire(join(REPO_ROOT, 'package.json')).resolve('prisma/build/index.js');
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    // The engine bridge starts with `#!/usr/bin/env node`: let that be the Node running us.
    PATH: [dirname(process.execPath), process.env.PATH].filter(Boolean).join(delimiter),
    // Prisma would download its native engine, which this project cannot (see schema-engine/bin.mjs).
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || ENGINE_BRIDGE,
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1',
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

// CREATE DATABASE needs a connection to some database of the server; the one in the URL may not exist
// yet (a fresh DATABASE_URL), in which case the `postgres` maintenance database serves.
async function maintenanceUrl(serverUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  try {
    await client.connect();
    return serverUrl;
  } catch (error) {
    if ((error as { code?: string }).code === '3D000') return withDatabase(serverUrl, 'postgres');
    throw error;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Creates a throw-away database on the server of `serverUrl`, runs `fn` with its URL, then drops it. */
export async function withTemporaryDatabase<T>(serverUrl: string, fn: (url: string) => Promise<T>): Promise<T> {
  const admin = await maintenanceUrl(serverUrl);
  const name = `tlr_migrations_tmp_${randomBytes(6).toString('hex')}`;
  const url = await ensureDatabase(admin, name);
  try {
    return await fn(url);
  } finally {
    await dropDatabase(admin, name);
  }
}

/** The SQL a new migration needs so that prisma/migrations ends where prisma/schema.prisma is ('' when none). */
export async function diffMigrationsToSchema(databaseServerUrl: string): Promise<{ inSync: boolean; sql: string }> {
  const args = ['migrate', 'diff', '--from-migrations', MIGRATIONS_DIR, '--to-schema', SCHEMA_PATH, '--script', '--exit-code'];
  const run = await withTemporaryDatabase(databaseServerUrl, (url) => runPrisma(args, url));
  // --exit-code: 0 means no difference, 2 a difference (the script is on stdout), anything else a failure.
  if (run.code === 0) return { inSync: true, sql: '' };
  // The CLI adds blank lines after the script; `migrate dev` writes it ending in a single newline.
  if (run.code === 2) return { inSync: false, sql: run.stdout.replace(/\n+$/, '\n') };
  throw new Error(`prisma migrate diff failed (exit code ${run.code}):\n${(run.stderr + run.stdout).trim()}`);
}

export async function checkMigrations(databaseServerUrl: string): Promise<{ inSync: boolean; diff: string }> {
  const { inSync, sql } = await diffMigrationsToSchema(databaseServerUrl);
  return { inSync, diff: sql };
}

const executedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
if (executedDirectly) {
  try {
    const { inSync, diff } = await checkMigrations(databaseServerFromEnv());
    if (inSync) {
      console.log('prisma/migrations matches prisma/schema.prisma');
    } else {
      process.stdout.write(diff);
      console.error('\nprisma/migrations does not match prisma/schema.prisma: the SQL above is missing.');
      console.error('Create the migration with `pnpm db:migrate:new <name>`.');
      process.exitCode = 1;
    }
  } catch (error) {
    console.error((error as Error).message);
    process.exitCode = 2;
  }
}
