#!/usr/bin/env node
// Makes sure pgBackRest, the backup tool behind `tlr backup` and the scheduled backups (docs/operations.md,
// Backups), is installed: Debian's `pgbackrest` package, installed when we can (root with apt-get).
// `--required` (npm test: the backup drill runs it) fails without it; otherwise (npm start) it warns,
// since the server runs without backups. Plain ESM, no dependencies, Node 20+.
import { ensureDebianPackage } from './debian-package.mjs';

export const PGBACKREST = '/usr/bin/pgbackrest';
const HOW = 'Install it with `sudo apt-get install pgbackrest` (Debian/Ubuntu; pgBackRest 2.45 or later).';

const problem = ensureDebianPackage({ pkg: 'pgbackrest', path: PGBACKREST, purpose: 'Backups (tlr backup, the backup drill test)', how: HOW });
if (problem) {
  const required = process.argv.includes('--required');
  process.stderr.write(`[tlr] ${required ? '' : 'warning: '}${problem}\n`);
  if (required) process.exit(1);
}
