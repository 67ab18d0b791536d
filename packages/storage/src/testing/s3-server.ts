// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- s3rver ships no types; ours must reach every program that imports this file
/// <reference path="./s3rver.d.ts" />
// A real S3 protocol server for tests (s3rver), on 127.0.0.1 with a fresh directory and one bucket. It
// can be stopped and started again on the same port and directory: tests take the store away mid-run
// and bring it back. Over HTTPS when given a key and certificate (pgBackRest speaks S3 only over HTTPS).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

export interface TestS3Server {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  directory: string;
  /** Stops answering (connections refused) until start(). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops and removes its directory. */
  close(): Promise<void>;
}

/** The service's settings for this store (STORAGE_BACKEND=s3 and the S3_ variables). */
export const s3Settings = (s3: TestS3Server): Record<string, string> => ({
  STORAGE_BACKEND: 's3',
  S3_ENDPOINT: s3.endpoint,
  S3_BUCKET: s3.bucket,
  S3_ACCESS_KEY_ID: s3.accessKeyId,
  S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
  S3_FORCE_PATH_STYLE: 'true',
});

export async function startS3Server(bucket = 'tlr-vouchers', tls?: { key: string; cert: string }): Promise<TestS3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'tlr-s3-'));
  const s3rver = new S3rver({ directory, silent: true, configureBuckets: [{ name: bucket, configs: [] }] });
  await s3rver.configureBuckets();
  const handler = s3rver.callback();
  let server: Server | null = null;
  let port = 0;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const s = tls ? createTlsServer(tls, handler) : createServer(handler);
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as AddressInfo).port;
        server = s;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      const s = server;
      server = null;
      s.close(() => resolve());
      s.closeAllConnections();
    });
  await start();
  return {
    endpoint: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    bucket,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    directory,
    stop,
    start,
    async close() {
      await stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
