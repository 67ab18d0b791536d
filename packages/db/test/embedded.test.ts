// The embedded PostgreSQL refuses a data folder of another major version with what to do (decision 320).
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, StartupError } from '../src/embedded.ts';

const root = mkdtempSync(join(tmpdir(), 'tlr-embedded-'));
chmodSync(root, 0o755);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('embedded PostgreSQL', () => {
  it('stops at start on a data folder initialised by another major version, saying what it is and what to do', async () => {
    const dir = join(root, 'pg');
    mkdirSync(dir);
    writeFileSync(join(dir, 'PG_VERSION'), '18\n');
    const start = startEmbeddedPostgres(dir, 1);
    await expect(start).rejects.toBeInstanceOf(StartupError);
    await expect(start).rejects.toThrow(/holds a PostgreSQL 18 data folder, and the embedded PostgreSQL is version 15.*pg_dump and pg_restore.*DATA_DIR/);
  });
});
