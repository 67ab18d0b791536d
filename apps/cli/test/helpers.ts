// Helpers of the CLI tests: the CLI run as `npm run tlr` runs it, `node scripts/tlr.mjs cli ...` in a
// child process of its own, with its exit code and what it printed.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/**
 * `npm run tlr -- <argv>` with `env` over this process's environment (a variable set to undefined is
 * left out) and TLR_QUIET, so that stdout and stderr are the CLI's own.
 */
export async function spawnTlr(env: Record<string, string | undefined>, ...argv: string[]) {
  const merged = Object.fromEntries(Object.entries({ ...process.env, TLR_QUIET: '1', ...env }).filter(([, v]) => v !== undefined));
  const child = spawn(process.execPath, ['scripts/tlr.mjs', 'cli', ...argv], { cwd: ROOT, env: merged, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}
