#!/usr/bin/env node
// Installs a Debian package a command needs (Chromium for the browser tests, pgBackRest for backups) when
// it is missing and we can (root with apt-get); otherwise says what to do. Plain ESM, no dependencies, Node 20+.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

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

/**
 * Makes sure `path` exists, installing the Debian package `pkg` when it can. Returns undefined when it
 * is there, or the message saying why not and what to do (`how`); `purpose` says who needs it.
 */
export function ensureDebianPackage({ pkg, path, purpose, how }) {
  if (existsSync(path)) return undefined;
  const isRoot = process.getuid?.() === 0;
  const haveApt = process.platform === 'linux' && run('apt-get', ['--version']).ok;
  if (!isRoot || !haveApt) {
    const why = !haveApt ? 'there is no apt-get here' : 'installing it needs root';
    return `${purpose} need ${pkg} at ${path}, which is missing, and ${why}. ${how}`;
  }

  if (process.env.TLR_QUIET !== '1') process.stderr.write(`[tlr] installing ${pkg} for ${purpose.toLowerCase()} ...\n`);
  // Refresh the package lists only when they do not know the package (a fresh container has none).
  const known = run('apt-cache', ['show', pkg]).ok;
  if (!known) {
    const update = run('apt-get', ['update']);
    if (!update.ok) return `apt-get update failed:\n${tail(update.output)}\n${how}`;
  }
  const installArgs = ['-o', 'DPkg::Lock::Timeout=300', 'install', '-y', '--no-install-recommends', pkg];
  let install = run('apt-get', installArgs);
  if (!install.ok && known) {
    // Stale lists name versions the mirror no longer has: refresh once and try again.
    run('apt-get', ['update']);
    install = run('apt-get', installArgs);
  }
  if (!install.ok || !existsSync(path)) return `apt-get install ${pkg} failed:\n${tail(install.output)}\n${how}`;
  return undefined;
}
