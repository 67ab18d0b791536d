// Where voucher documents are kept: one small interface with two real backends, chosen by
// configuration: the filesystem (default) and S3-compatible object storage (what several servers share).
// Errors that mean "the store cannot serve this now" are StorageUnavailableError (the API answers 503).
import type { Readable } from 'node:stream';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '@tlr/config';
import { FilesystemStore } from './filesystem.ts';
import { S3Store, type S3Settings } from './s3.ts';

export interface ObjectStore {
  readonly backend: 'filesystem' | 's3';
  /** Stores the file at `key` atomically: nobody ever sees part of it under `key`; a failure leaves nothing there. */
  putFile(key: string, filePath: string, meta: { size: number; contentType: string; sha256: string }): Promise<void>;
  /** The stored bytes; ObjectNotFoundError when there are none. */
  get(key: string): Promise<Readable>;
  /** Idempotent: a missing key is no error. */
  delete(key: string): Promise<void>;
  /** Deletes every object whose key starts with `prefix` ("<company id>/"); returns how many. */
  deletePrefix(prefix: string): Promise<number>;
  /** Resolves when the store answers; throws StorageUnavailableError otherwise. */
  check(): Promise<void>;
  close(): Promise<void>;
}

export class StorageUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageUnavailableError';
  }
}

export class ObjectNotFoundError extends Error {
  constructor(key: string) {
    super(`no stored object ${key}`);
    this.name = 'ObjectNotFoundError';
  }
}

/** Keys are ours (company/voucher.ext): anything else is a bug, never a path outside the store. */
export function assertKey(key: string): void {
  if (!/^[a-z0-9][a-z0-9._/-]*$/.test(key) || key.includes('..') || key.includes('//') || key.length > 200)
    throw new Error(`invalid storage key ${JSON.stringify(key)}`);
}

export type StorageSettings = Pick<
  Config,
  | 'STORAGE_BACKEND'
  | 'STORAGE_DIR'
  | 'DATA_DIR'
  | 'S3_ENDPOINT'
  | 'S3_REGION'
  | 'S3_BUCKET'
  | 'S3_ACCESS_KEY_ID'
  | 'S3_SECRET_ACCESS_KEY'
  | 'S3_FORCE_PATH_STYLE'
>;

/** The directory of the filesystem backend: STORAGE_DIR, else DATA_DIR/vouchers. */
export const storageDir = (c: Pick<StorageSettings, 'STORAGE_DIR' | 'DATA_DIR'>) => c.STORAGE_DIR ?? join(c.DATA_DIR, 'vouchers');

export function createObjectStore(c: StorageSettings): ObjectStore {
  if (c.STORAGE_BACKEND === 'filesystem') return new FilesystemStore(storageDir(c));
  const s3: S3Settings = {
    bucket: c.S3_BUCKET!,
    region: c.S3_REGION,
    ...(c.S3_ENDPOINT ? { endpoint: c.S3_ENDPOINT } : {}),
    ...(c.S3_ACCESS_KEY_ID && c.S3_SECRET_ACCESS_KEY ? { credentials: { accessKeyId: c.S3_ACCESS_KEY_ID, secretAccessKey: c.S3_SECRET_ACCESS_KEY } } : {}),
    forcePathStyle: c.S3_FORCE_PATH_STYLE ?? Boolean(c.S3_ENDPOINT),
  };
  return new S3Store(s3);
}

export { FilesystemStore } from './filesystem.ts';
export { S3Store, type S3Settings } from './s3.ts';

/**
 * The second location of voucher documents: the backup bucket (BACKUP_S3_*), at the same keys
 * as in the voucher store; undefined when no bucket is set.
 */
export function backupVoucherStore(
  c: Pick<
    Config,
    'BACKUP_S3_ENDPOINT' | 'BACKUP_S3_BUCKET' | 'BACKUP_S3_REGION' | 'BACKUP_S3_ACCESS_KEY_ID' | 'BACKUP_S3_SECRET_ACCESS_KEY' | 'BACKUP_S3_CA_FILE'
  >,
): ObjectStore | undefined {
  if (!c.BACKUP_S3_ENDPOINT) return undefined;
  return new S3Store({
    bucket: c.BACKUP_S3_BUCKET!,
    region: c.BACKUP_S3_REGION,
    endpoint: c.BACKUP_S3_ENDPOINT,
    credentials: { accessKeyId: c.BACKUP_S3_ACCESS_KEY_ID!, secretAccessKey: c.BACKUP_S3_SECRET_ACCESS_KEY! },
    forcePathStyle: true,
    ...(c.BACKUP_S3_CA_FILE ? { ca: readFileSync(c.BACKUP_S3_CA_FILE, 'utf8') } : {}),
  });
}
