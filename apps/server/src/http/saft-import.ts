// The HTTP shell of POST /imports/saft: the body (a SAF-T file, up to 1 GB) is written to a temporary
// file as it arrives (memory holds one chunk) before the procedure opens its transaction; the
// procedure records the import and stores the file for the import-saft job, and answers 202.
import { requireScopes } from '@tlr/api';
import { MAX_SAFT_FILE_BYTES, stageUpload, UploadTooLarge } from '@tlr/domain';
import { dispositionName } from './bank-statements.ts';
import { extendDeadline } from './deadline.ts';
import type { RawCall, RawHandler } from './raw-routes.ts';
import { refuseEarly } from './vouchers.ts';

const XML_TYPE = /^(application|text)\/xml\s*(;|$)/i;

export function saftImport(): RawHandler {
  return async (call: RawCall) => {
    const { req, res, ctx, caller } = call;
    requireScopes(ctx.actor, ['accounts:write', 'transactions:write']);
    const type = req.get('Content-Type');
    if (!type || !XML_TYPE.test(type)) {
      return refuseEarly(
        call,
        'unsupported_media_type',
        `Send the SAF-T file as it is, with Content-Type: application/xml${type ? ` (it was ${JSON.stringify(type)})` : ''}.`,
        'Content-Type',
      );
    }
    const tooLarge = () => refuseEarly(call, 'payload_too_large', `The file exceeds ${MAX_SAFT_FILE_BYTES} bytes (1 GB).`, 'body');
    if (Number(req.get('Content-Length') ?? 0) > MAX_SAFT_FILE_BYTES) return tooLarge();
    // Receiving and storing a large file takes longer than the common 20 s.
    extendDeadline(res, 20 * 60_000);
    let staged;
    try {
      staged = await stageUpload(req, { limit: MAX_SAFT_FILE_BYTES, prefix: 'tlr-saft-' });
    } catch (e) {
      if (e instanceof UploadTooLarge) return tooLarge();
      if (!req.readableEnded) res.setHeader('Connection', 'close');
      throw e;
    }
    try {
      ctx.saftFile = { file: staged, fileName: dispositionName(req.get('Content-Disposition')) };
      const result = await caller.imports.saft({});
      res.status(ctx.response.status ?? 202);
      for (const [name, value] of Object.entries(ctx.response.headers)) res.setHeader(name, value);
      res.json(result);
    } finally {
      await staged.discard();
    }
  };
}
