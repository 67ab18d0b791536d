#!/usr/bin/env node
// Makes sure the browser tests have a Chromium to drive (playwright-core cannot download its own here):
// Debian's `chromium` package at /usr/bin/chromium, or the binary CHROMIUM_PATH names. Installs the
// package when it can (root with apt-get); otherwise it says what to do and fails, so browser tests
// are never skipped silently. Plain ESM, no dependencies, Node 20+.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ensureDebianPackage } from './debian-package.mjs';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';
const HOW = 'Install it with `sudo apt-get install chromium` (Debian/Ubuntu), or set CHROMIUM_PATH to a Chromium or Chrome binary.';

function fail(message) {
  process.stderr.write(`[tlr] ${message}\n`);
  process.exit(1);
}

export function ensureChromium() {
  const wanted = process.env.CHROMIUM_PATH;
  if (wanted) {
    if (existsSync(wanted)) return wanted;
    fail(`CHROMIUM_PATH is ${wanted}, but no such file exists. Point it at a Chromium or Chrome binary, or unset it to use ${DEFAULT_CHROMIUM}.`);
  }
  const problem = ensureDebianPackage({ pkg: 'chromium', path: DEFAULT_CHROMIUM, purpose: 'The browser tests', how: HOW });
  if (problem) fail(problem);
  return DEFAULT_CHROMIUM;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) ensureChromium();
