// The HTTP shell of POST /einvoices/inbound (the upload shell of raw-upload.ts): the body is the received
// document itself (XML, not JSON), up to 10 MB, staged, then read as UTF-8 and checked against the
// official rules before the procedure opens its transaction (the rules take ~100 ms of CPU, which no
// connection should wait on); the procedure imports what passed.
import { readFile } from 'node:fs/promises';
import { invalidRequest, MAX_EINVOICE_BYTES, prepareInbound, stageUpload, validationOwner } from '@tlr/domain';
import { reading } from './deadline.ts';
import type { RawHandler } from './raw-routes.ts';
import { rawUpload } from './raw-upload.ts';

const XML_TYPE = /^(application|text)\/([\w.+-]*\+)?xml\s*(;|$)/i;

export function einvoiceInbound(): RawHandler {
  return rawUpload({
    types: [{ pattern: XML_TYPE, kind: 'xml' }],
    send: 'Send the e-invoice as its XML with Content-Type: application/xml',
    limit: MAX_EINVOICE_BYTES,
    what: 'The document',
    sizeNote: '10 MB, as for vouchers',
    stage: (body) => stageUpload(body, { limit: MAX_EINVOICE_BYTES, prefix: 'tlr-einvoice-upload-' }),
    run: async ({ ctx, caller, res }, staged) => {
      // Peppol documents are UTF-8 (and so is every OIOUBL document in practice): anything else is refused, not guessed.
      if (!staged.utf8) throw invalidRequest('The document is not UTF-8 text.', 'body');
      const xml = await readFile(staged.path, 'utf8');
      if (!xml.trim()) throw invalidRequest('The request has no document: send the XML as the body.', 'body');
      // The validation pool serves companies in turn (decision 472).
      const owner = ctx.actor?.type === 'credential' ? ctx.actor.credential.companyId : '';
      ctx.inbound = await reading(res, 'The e-invoice', () => validationOwner.run(owner, () => prepareInbound(xml)));
      return caller.einvoices.inbound({});
    },
    status: 201,
  });
}
