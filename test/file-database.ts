// Each test file's own database, copied from the run's migrated template (test/global-setup.ts) before
// the file runs and dropped after it (test/file-database-setup.ts): what `fileDatabaseUrl()` names, for
// the file's services, server processes, CLI runs and direct queries.
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { dropDatabase } from '@tlr/db';
import { copyDatabase } from '@tlr/db/test-databases';
import type {} from './global-setup.ts';

export const FILE_DATABASE_ENV = 'TLR_TEST_DATABASE_URL';

/** Copies the template into a new database of this file's; returns its URL. */
export async function copyTemplate(label = 'f'): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const serverUrl = inject('databaseServerUrl');
  const template = inject('templateDatabase');
  const name = `${template}_${label}_${randomBytes(4).toString('hex')}`;
  const url = await copyDatabase(serverUrl, template, name);
  return { url, name, drop: () => dropDatabase(serverUrl, name) };
}

/** This test file's database (set up before the file's first line runs). */
export function fileDatabaseUrl(): string {
  const url = process.env[FILE_DATABASE_ENV];
  if (!url) throw new Error(`${FILE_DATABASE_ENV} is unset: the file runs outside the integration project's set-up (vitest.config.ts).`);
  return url;
}

const closers = new Map<string, (() => Promise<unknown>)[]>();

/** Runs `close` before the database of `url` is dropped (a handle a helper keeps for the file). */
export function beforeDrop(url: string, close: () => Promise<unknown>): void {
  closers.set(url, [...(closers.get(url) ?? []), close]);
}

/** Closes what was registered for `url` (test/file-database-setup.ts, at the end of the file). */
export async function closeBeforeDrop(url: string): Promise<void> {
  const list = closers.get(url) ?? [];
  closers.delete(url);
  await Promise.all(list.map((close) => close().catch(() => {})));
}
