// An uploaded file as it arrives, written to a temporary file before any transaction opens: its size
// is bounded, its SHA-256 and whether it is valid UTF-8 are known, memory holds one chunk. The HTTP
// upload shell (apps/server raw-upload.ts) stages bank statements, SAF-T imports and received
// e-invoices here (vouchers decode their JSON body into one: vouchers.ts).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, readdir, rm } from 'node:fs/promises';
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

/**
 * A temporary folder of this process for a staged file: `<prefix><pid>-XXXXXX` under TMPDIR. Removed by
 * its user on every path; what a process that died (kill -9, out of memory) left is swept at the next
 * start (sweepStaged), told apart by its process id.
 */
export const stagingDir = (prefix: StagingPrefix): Promise<string> => mkdtemp(join(tmpdir(), `${prefix}${process.pid}-`));

/** The prefixes of the service's temporary folders (never the compiled e-invoice rules, tlr-einvoice-sef, which are kept). */
const STAGING_PREFIXES = ['tlr-bank-', 'tlr-saft-', 'tlr-einvoice-upload-', 'tlr-voucher-', 'tlr-voucher-copy-', 'tlr-archive-'] as const;
export type StagingPrefix = (typeof STAGING_PREFIXES)[number];
const STAGED_NAME = new RegExp(`^(?:${STAGING_PREFIXES.join('|')})(\\d+)-`);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: a process of another user has that id; it is alive.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Removes the staged files of processes that no longer run (a crash leaves its staged uploads behind):
 * run at the server's start. A live process's (another server on this machine) are left alone.
 * Answers the folders removed.
 */
export async function sweepStaged(dir = tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const pid = Number(STAGED_NAME.exec(name)?.[1] ?? NaN);
    if (!Number.isSafeInteger(pid) || pid === process.pid || alive(pid)) continue;
    await rm(join(dir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/** Writes the body to a temporary file chunk by chunk; throws UploadTooLarge past `limit` bytes. */
export async function stageUpload(body: AsyncIterable<Uint8Array>, opts: { limit: number; prefix: StagingPrefix }): Promise<StagedUpload> {
  const dir = await stagingDir(opts.prefix);
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
