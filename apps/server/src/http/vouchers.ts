// The HTTP shells of the voucher upload and download. The upload (the upload shell of raw-upload.ts) reads
// its body (up to about 13.4 MB of JSON) as a stream: the base64 text is decoded into a temporary file
// as it arrives, so memory holds one chunk per upload, never the whole document; the procedure then
// stores and records it. The download streams the stored bytes and holds back the last chunk until
// their SHA-256 matches the one recorded.
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import { attachmentDisposition, stageUploadBody, type VoucherStore } from '@tlr/domain';
import type { RawCall, RawHandler } from './raw-routes.ts';
import { rawUpload } from './raw-upload.ts';

/** Bytes of an upload body: 10 MiB as base64 is 13,981,016 characters; the rest is for the other fields and whitespace. */
const VOUCHER_BODY_LIMIT = 14 * 1024 * 1024 + 64 * 1024;
const JSON_TYPE = /^application\/([\w.+-]*\+)?json\s*(;|$)/i;

/** The upload: JSON whose base64 content is decoded into a temporary file as it arrives (stageUploadBody). */
export function voucherUpload(): RawHandler {
  return rawUpload({
    types: [{ pattern: JSON_TYPE, kind: 'json' }],
    send: 'Send the voucher as JSON with Content-Type: application/json',
    limit: VOUCHER_BODY_LIMIT,
    what: 'The request body',
    sizeNote: 'a voucher is at most 10 MB decoded',
    stage: async (body) => {
      const { fields, staged } = await stageUploadBody(body);
      return { fields, staged, discard: staged.discard };
    },
    run: ({ ctx, caller }, { fields, staged }) => {
      ctx.upload = fields.size === undefined ? undefined : staged;
      // content_base64 is handed over staged; the procedure sees whether it was there at all.
      return caller.vouchers.upload({
        filename: fields.filename as string,
        mime_type: fields.mime_type,
        content_base64: (fields.size === undefined ? undefined : '') as string,
      });
    },
    status: 201,
  });
}

/** Passes chunks on one behind, and the last only once the digest of everything matches. */
class VerifyDigest extends Transform {
  private held: Buffer | null = null;
  private hash = createHash('sha256');
  private readonly expected: string;
  constructor(expected: string) {
    super();
    this.expected = expected;
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
    this.hash.update(chunk);
    if (this.held) this.push(this.held);
    this.held = chunk;
    done();
  }
  override _flush(done: TransformCallback) {
    const actual = this.hash.digest('hex');
    if (actual !== this.expected) return done(new Error(`stored voucher content does not match its SHA-256 (expected ${this.expected}, got ${actual})`));
    if (this.held) this.push(this.held);
    done();
  }
}

export function voucherDownload(logger: Logger, store: VoucherStore | undefined): RawHandler {
  return async ({ caller, input, res }: RawCall) => {
    const info = await caller.vouchers.content(input as { id: string });
    if (!store) throw new Error('voucher storage is not configured');
    const body = await store.get(info.storage_key);
    res.status(200);
    res.setHeader('Content-Type', info.mime_type);
    res.setHeader('Content-Disposition', attachmentDisposition(info.filename));
    res.setHeader('Content-Length', String(info.file_size));
    res.setHeader('Cache-Control', 'private, no-store');
    try {
      await pipeline(body, new VerifyDigest(info.sha256), res);
    } catch (err) {
      // Headers are out: all a failure can do is cut the transfer short of Content-Length.
      logger.error({ err, request_id: res.locals.requestId, storage_key: info.storage_key }, 'voucher download failed');
      res.destroy(err as Error);
    }
  };
}
