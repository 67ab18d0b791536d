// An uploaded file as it arrives, written to a temporary file before any transaction opens: its size
// is bounded, its SHA-256 and whether it is valid UTF-8 are known, memory holds one chunk. The HTTP
// upload shell (apps/server raw-upload.ts) stages bank statements, SAF-T imports and received
// e-invoices here (vouchers decode their JSON body into one: vouchers.ts).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface StagedUpload {
  path: string;
  size: number;
  sha256: string;
  /** The whole file is valid UTF-8. */
  utf8: boolean;
  /** Removes the temporary file (always call it, in a finally). */
  discard(): Promise<void>;
}

export class UploadTooLarge extends Error {}

/** A limit in words: 10 MB, 1 GB (binary units, as every limit of the service), else MB with a decimal. */
export function byteSize(n: number): string {
  if (n % 2 ** 30 === 0) return `${n / 2 ** 30} GB`;
  if (n % 2 ** 20 === 0) return `${n / 2 ** 20} MB`;
  return n >= 2 ** 20 ? `${(n / 2 ** 20).toFixed(1)} MB` : `${n} bytes`;
}

/** The body as it streams, counted: UploadTooLarge past `limit` bytes, before the chunk that passes it is handed on. */
export async function* bounded(body: AsyncIterable<Uint8Array>, limit: number): AsyncGenerator<Uint8Array> {
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > limit) throw new UploadTooLarge(`The body exceeds ${limit} bytes.`);
    yield chunk;
  }
}

/** Writes the body to a temporary file chunk by chunk; throws UploadTooLarge past `limit` bytes. */
export async function stageUpload(body: AsyncIterable<Uint8Array>, opts: { limit: number; prefix: string }): Promise<StagedUpload> {
  const dir = await mkdtemp(join(tmpdir(), opts.prefix));
  const discard = () => rm(dir, { recursive: true, force: true });
  const path = join(dir, 'upload');
  const file = await open(path, 'w', 0o600);
  const hash = createHash('sha256');
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  let valid = true;
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > opts.limit) throw new UploadTooLarge(`The file exceeds ${opts.limit} bytes.`);
      hash.update(chunk);
      if (valid) {
        try {
          utf8.decode(chunk, { stream: true });
        } catch {
          valid = false;
        }
      }
      await file.write(chunk);
    }
    if (valid) {
      try {
        utf8.decode();
      } catch {
        valid = false;
      }
    }
    await file.close();
    return { path, size, sha256: hash.digest('hex'), utf8: valid, discard };
  } catch (e) {
    await file.close().catch(() => {});
    await discard();
    throw e;
  }
}

/** The staged bytes, in 64 KB chunks. */
export const readStaged = (file: Pick<StagedUpload, 'path'>): AsyncIterable<Uint8Array> => createReadStream(file.path, { highWaterMark: 64 * 1024 });
