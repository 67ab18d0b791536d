// A bank file as it arrives, written to a temporary file before any transaction opens: its size is
// bounded, its SHA-256 and whether it is valid UTF-8 are known, and the import then reads it at disk
// speed inside its transaction, whatever the speed of the client that sent it.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What a bank file may weigh: a year of a busy account in camt.053 is some tens of MB. */
export const MAX_BANK_FILE_BYTES = 200 * 1024 * 1024;

export type BankFileKind = 'camt053' | 'csv';

export interface StagedBankFile {
  kind: BankFileKind;
  path: string;
  size: number;
  sha256: string;
  /** The whole file is valid UTF-8 (a CSV that is not is read as Windows-1252 unless told otherwise). */
  utf8: boolean;
  /** The Content-Disposition filename, if the request had one. */
  dispositionName: string;
  /** Removes the temporary file (always call it, in a finally). */
  discard(): Promise<void>;
}

export class BankFileTooLarge extends Error {}

/** Writes the body to a temporary file chunk by chunk; throws BankFileTooLarge past `limit` bytes. */
export async function stageBankFile(
  body: AsyncIterable<Uint8Array>,
  kind: BankFileKind,
  opts: { limit?: number; dispositionName?: string } = {},
): Promise<StagedBankFile> {
  const limit = opts.limit ?? MAX_BANK_FILE_BYTES;
  const dir = await mkdtemp(join(tmpdir(), 'tlr-bank-'));
  const discard = () => rm(dir, { recursive: true, force: true });
  const path = join(dir, 'statement');
  const file = await open(path, 'w', 0o600);
  const hash = createHash('sha256');
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  let valid = true;
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > limit) throw new BankFileTooLarge(`The file exceeds ${limit} bytes.`);
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
    return { kind, path, size, sha256: hash.digest('hex'), utf8: valid, dispositionName: opts.dispositionName ?? '', discard };
  } catch (e) {
    await file.close().catch(() => {});
    await discard();
    throw e;
  }
}

/** The staged bytes, in 64 KB chunks. */
export const readStaged = (file: Pick<StagedBankFile, 'path'>): AsyncIterable<Uint8Array> => createReadStream(file.path, { highWaterMark: 64 * 1024 });
