// The HTTP shell of POST /einvoices/inbound (the upload shell of raw-upload.ts): the body is the received
// document itself (XML, or a Factur-X / ZUGFeRD PDF carrying it; not JSON), up to 10 MB, staged, then
// read (a PDF: its embedded XML taken out) and checked against the official rules before the procedure
// opens its transaction (the rules take ~100 ms of CPU, which no connection should wait on); the
// procedure imports what passed, or stores a PDF that carries no XML as a voucher. A long document
// (decision 491: more than 500 lines or 50 attachments, or above 10 MB, up to 32 MB) is not read here: it
// is stored as an import for the import-einvoice job, and the answer is 202 with the import.
import { readFile } from 'node:fs/promises';
import {
  DomainError,
  embeddedInvoice,
  invalidRequest,
  isLongEinvoice,
  isPdf,
  MAX_EINVOICE_BYTES,
  MAX_LARGE_EINVOICE_BYTES,
  parseEinvoiceYielding,
  prepareInbound,
  stageUpload,
  validationOwner,
} from '@tlr/domain';
import { reading } from './deadline.ts';
import type { RawHandler } from './raw-routes.ts';
import { dispositionName, rawUpload } from './raw-upload.ts';

const XML_TYPE = /^(application|text)\/([\w.+-]*\+)?xml\s*(;|$)/i;
const PDF_TYPE = /^application\/pdf\s*(;|$)/i;

export function einvoiceInbound(): RawHandler {
  return rawUpload({
    types: [
      { pattern: XML_TYPE, kind: 'xml' },
      { pattern: PDF_TYPE, kind: 'pdf' },
    ],
    send: 'Send the e-invoice as its XML with Content-Type: application/xml, or a Factur-X / ZUGFeRD PDF with Content-Type: application/pdf',
    limit: MAX_LARGE_EINVOICE_BYTES,
    what: 'The document',
    sizeNote: '32 MB; above 10 MB it is imported by a job',
    stage: async (body, kind) => ({ kind, ...(await stageUpload(body, { limit: MAX_LARGE_EINVOICE_BYTES, prefix: 'tlr-einvoice-upload-' })) }),
    run: async ({ ctx, caller, req, res }, staged) => {
      // The validation pool serves companies in turn (decision 472).
      const owner = ctx.actor?.type === 'credential' ? ctx.actor.credential.companyId : '';
      const prepare = (xml: string, pdf?: Buffer) => reading(res, 'The e-invoice', () => validationOwner.run(owner, () => prepareInbound(xml, pdf)));
      if (staged.kind === 'pdf') {
        // A PDF is read here whole: it keeps the request's bound.
        if (staged.size > MAX_EINVOICE_BYTES)
          throw new DomainError('payload_too_large', `The PDF exceeds ${MAX_EINVOICE_BYTES} bytes (10 MB, as for vouchers).`, 'body');
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
      // Long: always the job's, 202 with the import (decision 491); the answer does not depend on the machine's load.
      if (isLongEinvoice(xml, staged.size)) {
        // Read here (well-formed, no DOCTYPE, a root and namespace taken, its numbers numbers: 0.4–0.7 s at
        // 10,000 lines, a slice at a time so that other requests go on: decision 687): a hostile or
        // malformed file is the same 400 at once; the job runs the rules.
        await reading(res, 'The e-invoice', () => parseEinvoiceYielding(xml));
        ctx.longInbound = { file: staged, fileName: dispositionName(req.get('Content-Disposition')) };
        return caller.einvoices.inboundLong({});
      }
      ctx.inbound = await prepare(xml);
      return caller.einvoices.inbound({});
    },
    status: 201,
  });
}
