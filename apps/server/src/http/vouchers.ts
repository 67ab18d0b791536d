// The HTTP shells of the voucher upload and download. The upload body (up to about 13.4 MB of JSON) is
// read as a stream: the base64 text is decoded into a temporary file as it arrives, so memory holds one
// chunk per upload, never the whole document; the procedure then stores and records it. The download
// streams the stored bytes and holds back the last chunk until their SHA-256 matches the one recorded.
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import { problem } from '@tlr/api';
import { attachmentDisposition, stageUploadBody, type VoucherStore } from '@tlr/domain';
import { sendProblem } from './problem-response.ts';
import type { RawCall, RawHandler } from './raw-routes.ts';

/** Bytes of an upload body: 10 MiB as base64 is 13,981,016 characters; the rest is for the other fields and whitespace. */
const VOUCHER_BODY_LIMIT = 14 * 1024 * 1024 + 64 * 1024;
const JSON_TYPE = /^application\/([\w.+-]*\+)?json\s*(;|$)/i;

/** Refuses mid-body: answer, and close the connection rather than read the rest of a body we refused. */
export function refuseEarly(call: RawCall, status: 'unsupported_media_type' | 'payload_too_large', detail: string, field: string) {
  call.res.setHeader('Connection', 'close');
  sendProblem(call.res, problem(status, detail, { field }));
}

export async function* limited(body: AsyncIterable<Uint8Array>, limit: number) {
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > limit) throw Object.assign(new Error('body too large'), { tooLarge: true });
    yield chunk;
  }
}

export function voucherUpload(): RawHandler {
  return async (call: RawCall) => {
    const { req, res, ctx, caller } = call;
    const type = req.get('Content-Type');
    if (!type || !JSON_TYPE.test(type)) {
      return refuseEarly(
        call,
        'unsupported_media_type',
        `Send the voucher as JSON with Content-Type: application/json${type ? ` (it was ${JSON.stringify(type)})` : ''}.`,
        'Content-Type',
      );
    }
    if (Number(req.get('Content-Length') ?? 0) > VOUCHER_BODY_LIMIT) {
      return refuseEarly(call, 'payload_too_large', `The request body exceeds ${VOUCHER_BODY_LIMIT} bytes (a voucher is at most 10 MB decoded).`, 'body');
    }
    let staged;
    try {
      staged = await stageUploadBody(limited(req, VOUCHER_BODY_LIMIT));
    } catch (e) {
      if ((e as { tooLarge?: boolean }).tooLarge)
        return refuseEarly(call, 'payload_too_large', `The request body exceeds ${VOUCHER_BODY_LIMIT} bytes.`, 'body');
      // A refusal before the whole body was read: do not keep the connection for the rest of it.
      if (!req.readableEnded) res.setHeader('Connection', 'close');
      throw e;
    }
    try {
      const { fields } = staged;
      ctx.upload = fields.size === undefined ? undefined : staged.staged;
      // content_base64 is handed over staged; the procedure sees whether it was there at all.
      const result = await caller.vouchers.upload({
        filename: fields.filename as string,
        mime_type: fields.mime_type,
        content_base64: (fields.size === undefined ? undefined : '') as string,
      });
      res.status(ctx.response.status ?? 201);
      for (const [name, value] of Object.entries(ctx.response.headers)) res.setHeader(name, value);
      res.json(result);
    } finally {
      await staged.staged.discard();
    }
  };
}

/** Passes chunks on one behind, and the last only once the digest of everything matches. */
class VerifyDigest extends Transform {
  private held: Buffer | null = null;
  private hash = createHash('sha256');
  constructor(private readonly expected: string) {
    super();
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
