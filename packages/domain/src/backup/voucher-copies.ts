// Voucher documents copied to the second location: each stored object not yet copied is read
// from the voucher store, checked against its SHA-256, written to the backup store, and recorded.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { stagingDir } from '../files/staged-upload.ts';
import { pipeline } from 'node:stream/promises';
import type { Db } from '@tlr/db';
import type { VoucherStore } from '../vouchers/vouchers.ts';

/**
 * Copies up to `limit` voucher objects that have no copy yet, oldest first; returns how many. An object
 * whose bytes do not match its recorded SHA-256 is not copied (a damaged copy is no backup) and fails the run.
 */
export async function copyVouchers(db: Db, from: Pick<VoucherStore, 'get'>, to: Pick<VoucherStore, 'putFile'>, limit = 100): Promise<number> {
  const todo = await db.$queryRaw<{ storage_key: string; sha256: string; file_size: number; mime_type: string }[]>`
    SELECT v.storage_key, v.sha256, v.file_size, v.mime_type FROM vouchers v
    WHERE NOT EXISTS (SELECT 1 FROM voucher_copies c WHERE c.storage_key = v.storage_key)
    ORDER BY v.uploaded_at, v.id LIMIT ${limit}`;
  if (!todo.length) return 0;
  const dir = await stagingDir('tlr-voucher-copy-');
  try {
    for (const v of todo) {
      const file = join(dir, 'object');
      const hash = createHash('sha256');
      const hashing = async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          hash.update(chunk);
          yield chunk;
        }
      };
      await pipeline(await from.get(v.storage_key), hashing, createWriteStream(file));
      const sha256 = hash.digest('hex');
      if (sha256 !== v.sha256) throw new Error(`voucher object ${v.storage_key} has SHA-256 ${sha256}, ${v.sha256} recorded: not copied`);
      await to.putFile(v.storage_key, file, { size: v.file_size, contentType: v.mime_type, sha256 });
      await db.$executeRaw`INSERT INTO voucher_copies (storage_key, sha256) VALUES (${v.storage_key}, ${sha256}) ON CONFLICT DO NOTHING`;
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return todo.length;
}
