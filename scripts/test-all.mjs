#!/usr/bin/env node
// `npm test` after set-up (scripts/tlr.mjs): the static checks (types, lint, format: `npm run check`)
// and the whole vitest run, side by side: the checks take CPU the tests leave idle while they wait on
// PostgreSQL, child processes and the network. The checks' output is printed once the tests end; the
// run fails when either fails. Arguments go to vitest. Runs under tlr.mjs's PATH (pnpm, turbo, tsx).
import { spawn } from 'node:child_process';

const run = (cmd, args, capture) =>
  new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit', env: process.env });
    let out = '';
    if (capture) for (const s of [child.stdout, child.stderr]) s.on('data', (d) => (out += d));
    child.on('error', (e) => resolve({ code: 127, out: `cannot run ${cmd}: ${e.message}\n` }));
    child.on('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), out }));
  });

const started = Date.now();
// The HTTP tests' types come from the OpenAPI document: written first, for the type check and openapi.test.ts.
const types = await run('tsx', ['test/api-types.ts'], false);
if (types.code !== 0) process.exit(types.code);
const checks = run('turbo', ['run', 'check:types', 'check:lint', 'check:format', '--output-logs=errors-only', '--log-order=grouped'], true);
const tests = await run('vitest', ['run', ...process.argv.slice(2)], false);
const { code: checksCode, out } = await checks;
process.stdout.write(`\nStatic checks (types, lint, format): ${checksCode === 0 ? 'passed' : 'FAILED'}\n`);
if (checksCode !== 0) process.stdout.write(out);
process.stdout.write(`npm test: ${((Date.now() - started) / 1000).toFixed(0)} s wall time\n`);
process.exit(tests.code || checksCode);
