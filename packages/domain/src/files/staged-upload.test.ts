import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stagingDir, sweepStaged } from './staged-upload.ts';

describe('sweepStaged', () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  it("removes what a process that no longer runs staged, and keeps a running process's and anything not staged", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tlr-sweep-test-'));
    dirs.push(dir);
    // The id of a process that has ended.
    const gone = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid;
    expect(gone).toBeGreaterThan(0);
    const names = [
      `tlr-bank-${gone}-a1b2c3`,
      `tlr-einvoice-upload-${gone}-d4e5f6`,
      `tlr-voucher-copy-${gone}-x`,
      `tlr-saft-${process.pid}-g7h8i9`,
      `tlr-bank-${process.ppid}-j1`,
      'tlr-einvoice-sef',
      'tlr-bank-k2',
      'other-1-x',
    ];
    for (const n of names) await mkdir(join(dir, n));
    const removed = await sweepStaged(dir);
    expect(removed.sort()).toEqual(names.slice(0, 3).sort());
    expect((await readdir(dir)).sort()).toEqual(names.slice(3).sort());
  });

  it("names a staging folder by the process's id, so that a later start can tell", async () => {
    const at = await stagingDir('tlr-bank-');
    dirs.push(at);
    expect(at).toMatch(new RegExp(`tlr-bank-${process.pid}-\\w+$`));
  });
});
