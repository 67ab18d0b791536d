// The filesystem backend: one file per object under the root, written to a temporary name in the same
// directory, fsynced, renamed into place and the directory fsynced, so a crash leaves the old object or
// the new one, never a part. Errors other than "not found" mean the disk cannot serve: unavailable.
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { assertKey, ObjectNotFoundError, StorageUnavailableError, type ObjectStore } from './index.ts';

const unavailable = (what: string, e: unknown) =>
  new StorageUnavailableError(`voucher storage (filesystem) cannot ${what}: ${(e as Error).message}`, { cause: e });
const isMissing = (e: unknown) => (e as NodeJS.ErrnoException).code === 'ENOENT';

async function fsyncPath(path: string) {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export class FilesystemStore implements ObjectStore {
  readonly backend = 'filesystem' as const;
  readonly root: string;
  constructor(root: string) {
    this.root = root;
  }

  private path(key: string) {
    assertKey(key);
    return join(this.root, key);
  }

  async putFile(key: string, filePath: string, _meta: { size: number; contentType: string; sha256: string }): Promise<void> {
    const target = this.path(key);
    const dir = dirname(target);
    const temp = join(dir, `.${randomUUID()}.partial`);
    try {
      await mkdir(dir, { recursive: true });
      await copyFile(filePath, temp);
      await fsyncPath(temp);
      await rename(temp, target);
      await fsyncPath(dir);
    } catch (e) {
      await unlink(temp).catch(() => {});
      if (
        isMissing(e) &&
        !(await stat(filePath).then(
          () => true,
          () => false,
        ))
      )
        throw e; // the source is gone: our bug
      throw unavailable('store the document', e);
    }
  }

  async get(key: string): Promise<Readable> {
    const path = this.path(key);
    try {
      const handle = await open(path, 'r');
      return handle.createReadStream();
    } catch (e) {
      if (isMissing(e)) throw new ObjectNotFoundError(key);
      throw unavailable('read the document', e);
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await unlink(this.path(key));
    } catch (e) {
      if (!isMissing(e)) throw unavailable('delete the document', e);
    }
  }

  async deletePrefix(prefix: string): Promise<number> {
    const dir = join(this.root, prefix);
    assertKey(prefix.replace(/\/$/, ''));
    try {
      const names = await readdir(dir);
      await rm(dir, { recursive: true, force: true });
      return names.filter((n) => !n.startsWith('.')).length;
    } catch (e) {
      if (isMissing(e)) return 0;
      throw unavailable('delete documents', e);
    }
  }

  async check(): Promise<void> {
    try {
      await mkdir(this.root, { recursive: true });
      const probe = join(this.root, `.probe-${randomUUID()}`);
      await (await open(probe, 'w')).close();
      await unlink(probe);
    } catch (e) {
      throw unavailable('be written', e);
    }
  }

  async close(): Promise<void> {}
}
