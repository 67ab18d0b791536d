// The HTTP shell of POST /imports/saft (the upload shell of raw-upload.ts): the body (a SAF-T file, up to
// 1 GB) is staged before the procedure opens its transaction; the procedure records the import and
// stores the file for the import-saft job, and answers 202.
import { MAX_SAFT_FILE_BYTES, stageUpload } from '@tlr/domain';
import type { RawHandler } from './raw-routes.ts';
import { dispositionName, rawUpload } from './raw-upload.ts';

const XML_TYPE = /^(application|text)\/xml\s*(;|$)/i;

export function saftImport(): RawHandler {
  return rawUpload({
    types: [{ pattern: XML_TYPE, kind: 'saft' }],
    send: 'Send the SAF-T file as it is, with Content-Type: application/xml',
    limit: MAX_SAFT_FILE_BYTES,
    what: 'The file',
    // Receiving and storing a large file takes longer than the common 20 s.
    deadlineMs: 20 * 60_000,
    stage: (body) => stageUpload(body, { limit: MAX_SAFT_FILE_BYTES, prefix: 'tlr-saft-' }),
    run: ({ ctx, caller, req }, staged) => {
      ctx.saftFile = { file: staged, fileName: dispositionName(req.get('Content-Disposition')) };
      return caller.imports.saft({});
    },
    status: 202,
  });
}
