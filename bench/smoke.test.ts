// Every bench (the bench and bench:* scripts of package.json) run once with tiny sizes, each as a child
// process as `npm run bench:…` runs it, against this test run's PostgreSQL server (DATABASE_URL: a bench
// makes and drops a database of its own there; the backup bench starts its own cluster). No figure is
// asserted: a bench that no longer runs to its end fails here, so a change that breaks one fails CI.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { fileDatabaseUrl } from '../test/file-database.ts';
import { RUN_TS } from '../scripts/server-flags.mjs';

const ROOT = join(import.meta.dirname, '..');

/** Per bench file: the environment that makes it tiny (sizes, seconds, connections, keys). */
const TINY: Record<string, Record<string, string>> = {
  // Its smoke check lists a page of 50 customers.
  'bench/run.ts': {
    BENCH_DURATION: '0.3',
    BENCH_WARMUP: '0.1',
    BENCH_DIAG_DURATION: '0.3',
    BENCH_SQL_STATEMENTS: '20',
    BENCH_CONNECTIONS: '2',
    BENCH_CUSTOMERS: '60',
  },
  'bench/ledger.ts': {
    BENCH_LEDGER_TRANSACTIONS: '50',
    BENCH_DURATION: '0.3',
    BENCH_WARMUP: '0.1',
    BENCH_CONNECTIONS: '2',
    BENCH_LEDGER_KEYS: '4',
    BENCH_SERIAL_SECONDS: '0.3',
    BENCH_REPORT_CALLS: '2',
  },
  'bench/invoices.ts': {
    BENCH_INVOICES: '100',
    BENCH_DURATION: '0.3',
    BENCH_WARMUP: '0.1',
    BENCH_CONNECTIONS: '2',
    BENCH_INVOICE_KEYS: '4',
    BENCH_SERIAL_SECONDS: '0.3',
    BENCH_LIST_CALLS: '2',
  },
  'bench/vouchers.ts': { BENCH_SECONDS: '0.3', BENCH_CONNECTIONS: '1', BENCH_LARGE_MB: '1' },
  'bench/webhooks.ts': { BENCH_EVENTS: '20', BENCH_RATE: '20', BENCH_SECONDS: '0.5' },
  'bench/scale.ts': { BENCH_SECONDS: '1', BENCH_CONNECTIONS: '2', BENCH_COMPANIES: '2', BENCH_API_PROCESSES: '2', BENCH_WORKER_PROCESSES: '1' },
  'bench/einvoice-validate.ts': { BENCH_SECONDS: '0.2', BENCH_POOL_DOCUMENTS: '2', EINVOICE_VALIDATION_THREADS: '1' },
  'bench/einvoice-inbound.ts': { BENCH_SECONDS: '0.3', BENCH_CONNECTIONS: '1', EINVOICE_VALIDATION_THREADS: '1' },
  'bench/einvoice-oioubl.ts': { BENCH_SECONDS: '0.2' },
  'bench/bank-matching.ts': { BENCH_INVOICES: '60', BENCH_LINES: '20' },
  'bench/bank-import.ts': { BENCH_LINES: '100' },
  'bench/bank-reconciliation.ts': { BENCH_LINES: '100', BENCH_REQUESTS: '3' },
  'bench/month-end.ts': { BENCH_INVOICES: '10', BENCH_LINES: '30', BENCH_REQUESTS: '2' },
  'bench/backup.ts': { BENCH_LINES: '400' },
  'bench/saft-import.ts': { BENCH_LINES: '400' },
  'bench/archive.ts': { BENCH_VOUCHERS: '5', BENCH_VOUCHER_KB: '4' },
  'bench/control-trail.ts': { BENCH_POSTINGS: '5', BENCH_ROUNDS: '1' },
  'bench/recurring-invoices.ts': { BENCH_RECURRING: '5', BENCH_JOB_WORKERS: '1', BENCH_CONNECTIONS: '1' },
  'bench/hostile.ts': { BENCH_HOSTILE_MIB: '1', BENCH_HOSTILE_LINES: '2', BENCH_HOSTILE_ATTACHMENTS: '1', BENCH_HOSTILE_ENTRIES: '10' },
  'bench/accountant-reports.ts': { BENCH_JOURNAL_LINES: '200', BENCH_REQUESTS: '2' },
};

/** The bench files the package.json scripts run (`tsx bench/x.ts`). */
function benchScripts(): string[] {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  return Object.entries(scripts)
    .filter(([name]) => name === 'bench' || name.startsWith('bench:'))
    .map(([, command]) => /\btsx (bench\/[\w-]+\.ts)\b/.exec(command)?.[1] ?? command);
}

/**
 * Benches run at once: most of a tiny bench's time is starting processes and waiting out its short
 * measurements, which overlap well even on two cores.
 */
const AT_ONCE = 3;
let running = 0;
const waiting: (() => void)[] = [];
async function slot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  try {
    return await work();
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

const BENCH_LIMIT_MS = 240_000;

/** Runs a bench to its end; its exit code and the tail of its output. */
function runBench(file: string): Promise<{ code: number | null; output: string; seconds: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...RUN_TS, file], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: fileDatabaseUrl(), BENCH_TEMPLATE_DATABASE: inject('templateDatabase'), ...TINY[file] },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8_000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    // A bench's own bound, counted from its start: the test's timeout also counts the wait for a slot.
    const timer = setTimeout(() => {
      output += `\n(stopped after ${BENCH_LIMIT_MS / 1000} s)`;
      child.kill('SIGKILL');
    }, BENCH_LIMIT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, seconds: (Date.now() - started) / 1000 });
    });
  });
}

describe.concurrent('every bench runs with tiny sizes', () => {
  it('has a tiny setting for each bench script of package.json', () => {
    expect(benchScripts().sort()).toEqual(Object.keys(TINY).sort());
  });

  for (const file of Object.keys(TINY)) {
    it(
      file,
      async () => {
        const { code, output, seconds } = await slot(() => runBench(file));
        console.info(`${file}: ${seconds.toFixed(1)} s`);
        expect(code, output).toBe(0);
      },
      // Every bench may wait for all the others' slots before its own bound starts.
      Object.keys(TINY).length * BENCH_LIMIT_MS,
    );
  }
});
