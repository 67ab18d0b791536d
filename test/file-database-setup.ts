// The integration project's set-up file (vitest.config.ts): before a test file runs, a database of its
// own is copied from the run's template; after it, the copy is dropped.
import { afterAll } from 'vitest';
import { copyTemplate, FILE_DATABASE_ENV } from './file-database.ts';

const own = await copyTemplate();
process.env[FILE_DATABASE_ENV] = own.url;
afterAll(async () => {
  // WITH (FORCE): pools the file left open (a shared handle, a killed server's) do not keep it.
  await own.drop();
});
