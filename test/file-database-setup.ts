// The integration project's set-up file (vitest.config.ts): before a test file runs, a database of its
// own is copied from the run's template; after it, the copy is dropped and the file's CPU time noted
// for the run's report (test/file-cpu.ts).
import { afterAll, expect, inject } from 'vitest';
import { cpuSeconds, recordFileCpu } from './file-cpu.ts';
import { closeBeforeDrop, copyTemplate, FILE_DATABASE_ENV } from './file-database.ts';

const cpuAtStart = cpuSeconds();
const own = await copyTemplate();
process.env[FILE_DATABASE_ENV] = own.url;
afterAll(async () => {
  await closeBeforeDrop(own.url);
  // WITH (FORCE): pools the file left open (a killed server's) do not keep it.
  await own.drop();
  const cpu = cpuSeconds();
  const file = expect.getState().testPath;
  if (cpu !== undefined && cpuAtStart !== undefined && file) recordFileCpu(inject('templateDatabase'), file, cpu - cpuAtStart);
});
