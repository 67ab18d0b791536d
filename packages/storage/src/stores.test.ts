// Both backends through the same table: the filesystem, and S3 against a real S3 protocol server.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilesystemStore, ObjectNotFoundError, S3Store, StorageUnavailableError, type ObjectStore } from './index.ts';
import { startS3Server, type TestS3Server } from './testing/s3-server.ts';

const work = mkdtempSync(join(tmpdir(), 'tlr-store-test-'));
let s3: TestS3Server;
const stores: Record<string, () => ObjectStore> = {};

beforeAll(async () => {
  s3 = await startS3Server();
  const s3Store = new S3Store({
    bucket: s3.bucket,
    region: 'us-east-1',
    endpoint: s3.endpoint,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    forcePathStyle: true,
    connectTimeoutMs: 500,
    requestTimeoutMs: 3000,
  });
  const fsStore = new FilesystemStore(join(work, 'store'));
  stores.filesystem = () => fsStore;
  stores.s3 = () => s3Store;
});
afterAll(async () => {
  await s3?.close();
  rmSync(work, { recursive: true, force: true });
});

const file = (bytes: Buffer) => {
  const path = join(work, `src-${randomBytes(6).toString('hex')}`);
  writeFileSync(path, bytes);
  return path;
};
const meta = (bytes: Buffer) => ({ size: bytes.length, contentType: 'application/pdf', sha256: 'x'.repeat(64) });
async function read(stream: Readable) {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(c as Buffer);
  return Buffer.concat(parts);
}
const key = (prefix = 'c0ffee00-0000-0000-0000-000000000001') => `${prefix}/${randomBytes(8).toString('hex')}.pdf`;

describe.each(['filesystem', 's3'])('%s store', (backend) => {
  const store = () => stores[backend]!();

  it('gives back exactly what was stored, 10 MB too', async () => {
    for (const bytes of [Buffer.from('hej'), randomBytes(10 * 1024 * 1024)]) {
      const k = key();
      await store().putFile(k, file(bytes), meta(bytes));
      expect((await read(await store().get(k))).equals(bytes)).toBe(true);
    }
  });

  it('overwrites a key whole, deletes idempotently, and a missing key is ObjectNotFoundError', async () => {
    const k = key();
    await store().putFile(k, file(Buffer.from('first')), meta(Buffer.from('first')));
    await store().putFile(k, file(Buffer.from('second version')), meta(Buffer.from('second version')));
    expect((await read(await store().get(k))).toString()).toBe('second version');
    await store().delete(k);
    await store().delete(k);
    await expect(store().get(k)).rejects.toBeInstanceOf(ObjectNotFoundError);
  });

  it('deletes a prefix and nothing else', async () => {
    const a = 'aaaaaaaa-0000-0000-0000-000000000001';
    const b = 'bbbbbbbb-0000-0000-0000-000000000001';
    const keys = [key(a), key(a), key(b)];
    for (const k of keys) await store().putFile(k, file(Buffer.from(k)), meta(Buffer.from(k)));
    expect(await store().deletePrefix(`${a}/`)).toBe(2);
    await expect(store().get(keys[0]!)).rejects.toBeInstanceOf(ObjectNotFoundError);
    expect((await read(await store().get(keys[2]!))).toString()).toBe(keys[2]);
    expect(await store().deletePrefix(`${a}/`)).toBe(0);
  });

  it('refuses keys that are not ours', async () => {
    for (const bad of ['../etc/passwd', '/abs.pdf', 'A/B.pdf', 'a//b', ''])
      await expect(store().putFile(bad, file(Buffer.from('x')), meta(Buffer.from('x')))).rejects.toThrow(/invalid storage key/);
  });

  it('answers check() when it can serve', async () => {
    await expect(store().check()).resolves.toBeUndefined();
  });
});

describe('when the store cannot serve', () => {
  it('filesystem: a root that cannot be a directory is StorageUnavailableError, and leaves no partial file', async () => {
    const blocked = join(work, 'blocked');
    writeFileSync(blocked, 'a file where the store directory should be');
    const store = new FilesystemStore(join(blocked, 'store'));
    await expect(store.putFile(key(), file(Buffer.from('x')), meta(Buffer.from('x')))).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(store.check()).rejects.toBeInstanceOf(StorageUnavailableError);
    // A directory we cannot write to (effective for a normal user; root writes anyway, so only then).
    const ro = join(work, 'ro');
    const roStore = new FilesystemStore(ro);
    await roStore.check();
    chmodSync(ro, 0o500);
    if (process.getuid?.() !== 0)
      await expect(roStore.putFile(key(), file(Buffer.from('x')), meta(Buffer.from('x')))).rejects.toBeInstanceOf(StorageUnavailableError);
    chmodSync(ro, 0o700);
    expect(readdirSync(ro).filter((n) => n.includes('partial'))).toEqual([]);
  });

  it('s3: a stopped server is StorageUnavailableError within seconds, and the store works again once it is back', async () => {
    const store = stores.s3!();
    const k = key();
    await s3.stop();
    try {
      const started = Date.now();
      await expect(store.putFile(k, file(Buffer.from('x')), meta(Buffer.from('x')))).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(store.check()).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(store.get(k)).rejects.toBeInstanceOf(StorageUnavailableError);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await s3.start();
    }
    await store.putFile(k, file(Buffer.from('back')), meta(Buffer.from('back')));
    expect((await read(await store.get(k))).toString()).toBe('back');
    expect(existsSync(s3.directory)).toBe(true);
  });
});
