// Two projects: `unit`, the pure tests beside the code (no database, no server; threads), and
// `integration`, the tests under */test/ that talk to a real PostgreSQL, servers, Chromium or child
// processes: the run's database server and template are made once (test/global-setup.ts), each file
// copies a database of its own (test/file-database.ts). `npm run test:unit` runs the first alone.
// Three files at a time: most of an integration file's time is waiting (on PostgreSQL, child processes,
// the network), so three keep two cores busy.
import { defineConfig } from 'vitest/config';
import HeavyFirst from './test/heavy-first.ts';

export default defineConfig({
  test: {
    reporters: ['default', './test/slowest-files.ts'],
    maxWorkers: 3,
    // The longest files start first (test/heavy-first.ts).
    sequence: { sequencer: HeavyFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts'],
          pool: 'threads',
          // A thread runs file after file without loading the modules again for each (decision 746): the
          // pure tests leave no state the next file sees (the two that set a module's setting put it back).
          isolate: false,
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['packages/*/test/**/*.test.ts', 'apps/*/test/**/*.test.ts', 'bench/**/*.test.ts'],
          globalSetup: ['./test/global-setup.ts'],
          setupFiles: ['./test/file-database-setup.ts'],
          pool: 'forks',
          // A worker process runs file after file without loading the server's modules again for each
          // (a third of the run's CPU went there): module state a file leaves must not matter to the
          // next, which each file's own database and handles keyed by it (test/file-database.ts) see to.
          isolate: false,
          // For these processes and every server, CLI and bench they start: owners' passwords are hashed at
          // argon2id's minimum cost (decision 440), a sixth of the CPU of the default; and the e-invoice
          // rules are loaded by the first document, not at every start (decision 633: the tests that
          // receive documents, and their bench, ask for the warm start), by one validation thread (each
          // thread loads every rule set, about 5 s of CPU, and a test sends its documents one at a time).
          env: { PASSWORD_HASH_COST: 'minimum', EINVOICE_WARM_AT_START: 'false', EINVOICE_VALIDATION_THREADS: '1' },
          // Generous: the run is CPU-bound on two cores, and a test that takes 20 s alone may take three times that.
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
