// The HTTP shell of POST /einvoices/inbound (the upload shell of raw-upload.ts): the body is the received
// document itself (XML, or a Factur-X / ZUGFeRD PDF carrying it; not JSON), up to 10 MB, staged, then
// read (a PDF: its embedded XML taken out) and checked against the official rules before the procedure
// opens its transaction (the rules take ~100 ms of CPU, which no connection should wait on); the
// procedure imports what passed, or stores a PDF that carries no XML as a voucher.
import { readFile } from 'node:fs/promises';
import { embeddedInvoice, invalidRequest, isPdf, MAX_EINVOICE_BYTES, prepareInbound, stageUpload, validationOwner } from '@tlr/domain';
import { reading } from './deadline.ts';
import type { RawHandler } from './raw-routes.ts';
import { rawUpload } from './raw-upload.ts';

const XML_TYPE = /^(application|text)\/([\w.+-]*\+)?xml\s*(;|$)/i;
const PDF_TYPE = /^application\/pdf\s*(;|$)/i;

export function einvoiceInbound(): RawHandler {
  return rawUpload({
    types: [
      { pattern: XML_TYPE, kind: 'xml' },
      { pattern: PDF_TYPE, kind: 'pdf' },
    ],
    send: 'Send the e-invoice as its XML with Content-Type: application/xml, or a Factur-X / ZUGFeRD PDF with Content-Type: application/pdf',
    limit: MAX_EINVOICE_BYTES,
    what: 'The document',
    sizeNote: '10 MB, as for vouchers',
    stage: async (body, kind) => ({ kind, ...(await stageUpload(body, { limit: MAX_EINVOICE_BYTES, prefix: 'tlr-einvoice-upload-' })) }),
    run: async ({ ctx, caller, res }, staged) => {
      // The validation pool serves companies in turn (decision 472).
      const owner = ctx.actor?.type === 'credential' ? ctx.actor.credential.companyId : '';
      const prepare = (xml: string, pdf?: Buffer) => reading(res, 'The e-invoice', () => validationOwner.run(owner, () => prepareInbound(xml, pdf)));
      if (staged.kind === 'pdf') {
        const pdf = await readFile(staged.path);
        if (!isPdf(pdf)) throw invalidRequest('The body is not a PDF (no %PDF- header).', 'body');
        const embedded = embeddedInvoice(pdf);
        // A PDF without an e-invoice inside is kept as a voucher; the answer says nothing was read.
        if (!embedded) ctx.inboundPdf = pdf;
        else ctx.inbound = await prepare(embedded.xml, pdf);
        return caller.einvoices.inbound({});
      }
      // Peppol documents are UTF-8 (and so is every OIOUBL document in practice): anything else is refused, not guessed.
      if (!staged.utf8) throw invalidRequest('The document is not UTF-8 text.', 'body');
      const xml = await readFile(staged.path, 'utf8');
      if (!xml.trim()) throw invalidRequest('The request has no document: send the XML as the body.', 'body');
      ctx.inbound = await prepare(xml);
      return caller.einvoices.inbound({});
    },
    status: 201,
  });
}
