// The S3 backend (@aws-sdk/client-s3), for AWS S3 or any S3-compatible server: PutObject is atomic by
// nature (an object appears whole or not at all). Retries and timeouts are short so that a store that
// is down answers within seconds (the API says 503 and the client retries) instead of hanging a request.
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { assertKey, ObjectNotFoundError, StorageUnavailableError, type ObjectStore } from './index.ts';
import { Agent } from 'node:https';

export interface S3Settings {
  bucket: string;
  region: string;
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  forcePathStyle: boolean;
  /** Per request (default 15 s) and for connecting (default 2 s). */
  requestTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** A CA certificate (PEM) to trust: a store with a private certificate (the backup bucket's BACKUP_S3_CA_FILE). */
  ca?: string;
}

const NOT_FOUND = new Set(['NoSuchKey', 'NotFound']);

function mapError(what: string, key: string, e: unknown): Error {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  if (NOT_FOUND.has(err.name ?? '') || err.$metadata?.httpStatusCode === 404) return new ObjectNotFoundError(key);
  // Anything else: the store refused or could not be reached. A 4xx other than 404 (a wrong bucket or
  // credentials) is a configuration fault, but to the client it is the same: the store cannot serve now.
  return new StorageUnavailableError(`voucher storage (S3) cannot ${what}: ${err.name ?? 'error'} ${(e as Error).message ?? ''}`.trim(), { cause: e });
}

export class S3Store implements ObjectStore {
  readonly backend = 's3' as const;
  private readonly client: S3Client;

  private readonly s: S3Settings;
  constructor(s: S3Settings) {
    this.s = s;
    this.client = new S3Client({
      region: s.region,
      ...(s.endpoint ? { endpoint: s.endpoint } : {}),
      ...(s.credentials ? { credentials: s.credentials } : {}),
      forcePathStyle: s.forcePathStyle,
      maxAttempts: 2,
      // Failures reach the caller as errors; the SDK would also print some of them to the console.
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {} },
      // Checksums only where S3 requires them: S3-compatible servers do not all know the newer ones.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: {
        requestTimeout: s.requestTimeoutMs ?? 15_000,
        connectionTimeout: s.connectTimeoutMs ?? 2_000,
        ...(s.ca ? { httpsAgent: new Agent({ ca: s.ca, keepAlive: true }) } : {}),
      },
    });
  }

  async putFile(key: string, filePath: string, meta: { size: number; contentType: string; sha256: string }): Promise<void> {
    assertKey(key);
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.s.bucket,
          Key: key,
          Body: createReadStream(filePath),
          ContentLength: meta.size,
          ContentType: meta.contentType,
          Metadata: { sha256: meta.sha256 },
        }),
      );
    } catch (e) {
      throw mapError('store the document', key, e);
    }
  }

  async get(key: string): Promise<Readable> {
    assertKey(key);
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.s.bucket, Key: key }));
      return r.Body as Readable;
    } catch (e) {
      throw mapError('read the document', key, e);
    }
  }

  async delete(key: string): Promise<void> {
    assertKey(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.s.bucket, Key: key }));
    } catch (e) {
      const mapped = mapError('delete the document', key, e);
      if (!(mapped instanceof ObjectNotFoundError)) throw mapped;
    }
  }

  async deletePrefix(prefix: string): Promise<number> {
    assertKey(prefix.replace(/\/$/, ''));
    let deleted = 0;
    try {
      let token: string | undefined;
      do {
        const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.s.bucket, Prefix: prefix, ContinuationToken: token }));
        const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
        if (keys.length) {
          await this.client.send(new DeleteObjectsCommand({ Bucket: this.s.bucket, Delete: { Objects: keys, Quiet: true } }));
          deleted += keys.length;
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return deleted;
    } catch (e) {
      throw mapError('delete documents', prefix, e);
    }
  }

  async check(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.s.bucket }));
    } catch (e) {
      throw mapError('be reached', this.s.bucket, e);
    }
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
