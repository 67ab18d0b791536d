// Two projects: `unit`, the pure tests beside the code (no database, no server; threads), and
// `integration`, the tests under */test/ that talk to a real PostgreSQL, servers, Chromium or child
// processes: the run's database server and template are made once (test/global-setup.ts), each file
// copies a database of its own (test/file-database.ts). `npm run test:unit` runs the first alone.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    reporters: ['default', './test/slowest-files.ts'],
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts'],
          pool: 'threads',
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
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
