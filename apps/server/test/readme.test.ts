// The README's first requests as a stranger runs them: every ```sh block after the one of `npm start` and
// `npm test`, pasted in order into one bash, against a real server on its own PORT, with the CLI on the
// test run's database. A command the README gets wrong fails here.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '../src/service.ts';
import { databaseUrl, startTestService } from './helpers.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The bodies of the ```sh blocks, in order. */
const shellBlocks = (md: string) => [...md.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);

/** Runs `script` in bash; resolves with its exit code and output. */
function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn('bash', ['-c', script], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('README: the first requests, pasted as they are', () => {
  let svc: Service;
  let dir: string;
  beforeAll(async () => {
    // The README's requests, not their latency, are under test: on a loaded CI machine the e-invoice's
    // official rules alone can pass the 20 s request deadline, which would answer 503.
    svc = await startTestService({ REQUEST_TIMEOUT_MS: '60000' });
    dir = mkdtempSync(join(tmpdir(), 'tlr-readme-'));
  });
  afterAll(async () => {
    await svc?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every block runs without a failure, and the files it downloads are what they say', async () => {
    const blocks = shellBlocks(README).filter((b) => !/^npm (start|test)\b/m.test(b));
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    const script = [
      // Stops at the first command that fails and names it (in functions too); an HTTP error is a failure.
      'set -eEuo pipefail',
      `trap 'echo "README command failed: $BASH_COMMAND" >&2' ERR`,
      'curl() { command curl --silent --show-error --fail-with-body "$@"; }',
      // npm runs in the checkout, the downloads land in a folder of the test's own.
      `npm() { (cd ${JSON.stringify(ROOT)} && command npm "$@"); }`,
      // The checkout's files the README names (an example e-invoice), where a reader in the checkout finds them.
      `ln -s ${JSON.stringify(join(ROOT, 'packages'))} packages`,
      ...blocks,
      'echo "README done: company $COMPANY"',
    ].join('\n');
    const run = await bash(script, dir, { PORT: String(svc.port), DATABASE_URL: databaseUrl(), TLR_QUIET: '1' });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/README done: company [0-9a-f-]{36}/);
    const pdf = (name: string) => readFileSync(join(dir, name)).subarray(0, 5).toString('latin1');
    expect(pdf('faktura.pdf')).toBe('%PDF-');
    expect(pdf('kreditnota.pdf')).toBe('%PDF-');
    expect(readFileSync(join(dir, 'saft.xml'), 'utf8')).toMatch(/^<\?xml[\s\S]*<AuditFile/);
    expect(readFileSync(join(dir, 'faktura.xml'), 'utf8')).toMatch(/^<\?xml[\s\S]*<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/);
    // The list shows the invoice sent and the example received.
    expect(run.stdout).toMatch(/"direction":"outbound"[\s\S]*"direction":"inbound"|"direction":"inbound"[\s\S]*"direction":"outbound"/);
    expect(readFileSync(join(dir, 'momsangivelse.xml'), 'utf8')).toMatch(
      /^<\?xml[\s\S]*<RubrikBVarerIndberetningBeloeb>3357<\/RubrikBVarerIndberetningBeloeb>/,
    );
  }, 180_000);

  it('the layout names every app and package, and the other top-level folders', () => {
    const layout = /^## Layout\n+```\n([\s\S]*?)^```$/m.exec(README)?.[1] ?? '';
    const folders = ['apps', 'packages'].flatMap((top) =>
      readdirSync(join(ROOT, top), { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => `${top}/${d.name}`),
    );
    for (const folder of [...folders, 'bench/', 'docs/', 'prisma/', 'scripts/', 'test/']) expect(layout, folder).toMatch(new RegExp(`^${folder}(\\s|$)`, 'm'));
  });

  it('defines BASE from PORT and KEY once, and every request uses them: no placeholder to fill in', () => {
    const blocks = shellBlocks(README).join('\n');
    expect(blocks.match(/^BASE=/gm)).toEqual(['BASE=']);
    expect(blocks).toContain('BASE=http://localhost:${PORT:-3000}/api/v1');
    expect(blocks.match(/^KEY=/gm)).toEqual(['KEY=']);
    expect(blocks).not.toMatch(/localhost:3000|<[a-z_ ]+>|tlr_(live|test)_\.\.\./);
    for (const line of blocks.split('\n').filter((l) => /^curl /.test(l))) expect(line).toMatch(/X-API-Key: \$(TEST_)?KEY/);
  });
});
