// The operator CLI when it cannot do its work at all (no database, a bad setting): one `tlr: ...` line
// on stderr naming the cause, nothing on stdout, a non-zero exit; run as `npm run tlr` runs it.
import { chmodSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnTlr } from './helpers.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function occupiedPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as { port: number }).port;
}

/** `npm run tlr -- <argv>` with `env` in place of the database settings of this run. */
const tlr = (env: Record<string, string>, ...argv: string[]) => spawnTlr({ DATABASE_URL: undefined, ...env }, ...argv);

describe('tlr cannot reach its database: one line, nothing on stdout, exit 1', () => {
  it('the embedded PostgreSQL cannot start (EMBEDDED_PG_PORT taken by something else)', async () => {
    const port = await occupiedPort();
    const dir = await mkdtemp(join(tmpdir(), 'tlr-cli-'));
    chmodSync(dir, 0o755);
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const r = await tlr({ DATA_DIR: join(dir, 'data'), EMBEDDED_PG_PORT: String(port) }, 'company', 'list', '--json');
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: `tlr: cannot start the embedded PostgreSQL: port ${port} on 127.0.0.1 is in use; set EMBEDDED_PG_PORT to a free port (or DATABASE_URL to a server of your own)\n`,
    });
  }, 60_000);

  it('DATABASE_URL names a server that does not answer', async () => {
    const port = await occupiedPort();
    cleanups.splice(0).forEach((c) => void c()); // closed again: nothing listens there now
    await new Promise((r) => setTimeout(r, 50));
    const r = await tlr({ DATABASE_URL: `postgresql://tlr:secret@127.0.0.1:${port}/tlr` }, 'company', 'list');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`tlr: cannot connect to the database of DATABASE_URL (127.0.0.1:${port}): connect ECONNREFUSED 127.0.0.1:${port}\n`);
  }, 60_000);

  it('a setting that does not parse', async () => {
    const r = await tlr({ EMBEDDED_PG_PORT: 'fifty' }, 'company', 'list');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('tlr: Invalid configuration: EMBEDDED_PG_PORT: must be a port number from 0 to 65535, got "fifty"\n');
  }, 60_000);
});
