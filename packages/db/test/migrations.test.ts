// The migrations in prisma/migrations must produce exactly prisma/schema.prisma (Prisma's own diff,
// through the WebAssembly schema engine bridge), and applying them must be repeatable and recorded
// the way Prisma records them.
import { describe, expect, it } from 'vitest';
import { fileDatabaseUrl } from '../../../test/file-database.ts';
import { checkMigrations } from '../src/cli/check-migrations.ts';
import { applyMigrations } from '../src/migrate.ts';
import pg from 'pg';

describe('migrations', () => {
  it('match the Prisma schema (no drift)', async () => {
    // The WebAssembly engine sometimes fails to start ("Error in Schema engine", not a diff), twice in a
    // row once on a loaded CI machine; retries a second apart keep that from failing CI, while a real
    // drift is an answer (exit code 2, a script), not a failure, and fails at once.
    let result: Awaited<ReturnType<typeof checkMigrations>> | undefined;
    for (let attempt = 1; !result; attempt++) {
      result = await checkMigrations(fileDatabaseUrl()).catch(async (e: Error) => {
        if (attempt === 4) throw e;
        console.warn(`schema engine failed (attempt ${attempt}), retrying: ${e.message}`);
        await new Promise((r) => setTimeout(r, 1000));
        return undefined;
      });
    }
    expect(result.diff).toBe('');
    expect(result.inSync).toBe(true);
  }, 60_000);

  it('are recorded in _prisma_migrations and not applied twice', async () => {
    expect(await applyMigrations(fileDatabaseUrl())).toEqual([]);
    const client = new pg.Client({ connectionString: fileDatabaseUrl() });
    await client.connect();
    const { rows } = await client.query('SELECT migration_name, checksum, finished_at FROM _prisma_migrations');
    await client.end();
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(r.finished_at).not.toBeNull();
      expect(r.checksum).toMatch(/^[0-9a-f]{64}$/);
    }
  });
});
