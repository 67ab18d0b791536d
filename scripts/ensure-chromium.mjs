#!/usr/bin/env node
// Makes sure the browser tests have a Chromium to drive (playwright-core cannot download its own here):
// Debian's `chromium` package at /usr/bin/chromium, or the binary CHROMIUM_PATH names. Installs the
// package when it can (root with apt-get); otherwise it says what to do and fails, so browser tests
// are never skipped silently. Plain ESM, no dependencies, Node 20+.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';
const HOW = 'Install it with `sudo apt-get install chromium` (Debian/Ubuntu), or set CHROMIUM_PATH to a Chromium or Chrome binary.';

function fail(message) {
  process.stderr.write(`[tlr] ${message}\n`);
  process.exit(1);
}

/** Runs quietly; returns the exit status and the output (shown only when something fails). */
function run(cmd, args) {
  const r = spawnSync(cmd, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { ok: r.status === 0, output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

const tail = (text) => text.trim().split('\n').slice(-15).join('\n');

export function ensureChromium() {
  const wanted = process.env.CHROMIUM_PATH;
  if (wanted) {
    if (existsSync(wanted)) return wanted;
    fail(`CHROMIUM_PATH is ${wanted}, but no such file exists. Point it at a Chromium or Chrome binary, or unset it to use ${DEFAULT_CHROMIUM}.`);
  }
  if (existsSync(DEFAULT_CHROMIUM)) return DEFAULT_CHROMIUM;

  const isRoot = process.getuid?.() === 0;
  const haveApt = process.platform === 'linux' && run('apt-get', ['--version']).ok;
  if (!isRoot || !haveApt) {
    const why = !haveApt ? 'there is no apt-get here' : 'installing it needs root';
    fail(`The browser tests need Chromium at ${DEFAULT_CHROMIUM}, which is missing, and ${why}. ${HOW}`);
  }

  if (process.env.TLR_QUIET !== '1') process.stderr.write('[tlr] installing Chromium for the browser tests ...\n');
  // Refresh the package lists only when they do not know the package (a fresh container has none).
  const known = run('apt-cache', ['show', 'chromium']).ok;
  if (!known) {
    const update = run('apt-get', ['update']);
    if (!update.ok) fail(`apt-get update failed:\n${tail(update.output)}\n${HOW}`);
  }
  const installArgs = ['-o', 'DPkg::Lock::Timeout=300', 'install', '-y', '--no-install-recommends', 'chromium'];
  let install = run('apt-get', installArgs);
  if (!install.ok && known) {
    // Stale lists name versions the mirror no longer has: refresh once and try again.
    run('apt-get', ['update']);
    install = run('apt-get', installArgs);
  }
  if (!install.ok || !existsSync(DEFAULT_CHROMIUM)) {
    fail(`apt-get install chromium failed:\n${tail(install.output)}\n${HOW}`);
  }
  return DEFAULT_CHROMIUM;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) ensureChromium();
