// The HTTP shell of POST /einvoices/inbound: the body is the received document itself (XML, not JSON).
// It is read here up to 10 MB, decoded as UTF-8 and checked against the official rules before the
// procedure opens its transaction (the rules take ~100 ms of CPU, which no connection should wait
// on); the procedure imports what passed. The scopes are checked first, so that a key that may not
// import costs no validation.
import { MAX_EINVOICE_BYTES, invalidRequest, prepareInbound } from '@tlr/domain';
import { requireScopes } from '@tlr/api';
import type { RawCall, RawHandler } from './raw-routes.ts';
import { limited, refuseEarly } from './vouchers.ts';

const XML_TYPE = /^(application|text)\/([\w.+-]*\+)?xml\s*(;|$)/i;

export function einvoiceInbound(): RawHandler {
  return async (call: RawCall) => {
    const { req, res, ctx, caller } = call;
    requireScopes(ctx.actor, ['expenses:write', 'vouchers:write']);
    const type = req.get('Content-Type');
    if (!type || !XML_TYPE.test(type)) {
      return refuseEarly(
        call,
        'unsupported_media_type',
        `Send the e-invoice as its XML with Content-Type: application/xml${type ? ` (it was ${JSON.stringify(type)})` : ''}.`,
        'Content-Type',
      );
    }
    if (Number(req.get('Content-Length') ?? 0) > MAX_EINVOICE_BYTES) {
      return refuseEarly(call, 'payload_too_large', `The document exceeds ${MAX_EINVOICE_BYTES} bytes (10 MB, as for vouchers).`, 'body');
    }
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of limited(req, MAX_EINVOICE_BYTES)) chunks.push(Buffer.from(chunk));
    } catch (e) {
      if ((e as { tooLarge?: boolean }).tooLarge) return refuseEarly(call, 'payload_too_large', `The document exceeds ${MAX_EINVOICE_BYTES} bytes.`, 'body');
      throw e;
    }
    let xml: string;
    try {
      // Peppol documents are UTF-8 (and so is every OIOUBL document in practice): anything else is refused, not guessed.
      xml = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
    } catch {
      throw invalidRequest('The document is not UTF-8 text.', 'body');
    }
    if (!xml.trim()) throw invalidRequest('The request has no document: send the XML as the body.', 'body');
    ctx.inbound = await prepareInbound(xml);
    const result = await caller.einvoices.inbound({});
    res.status(ctx.response.status ?? 201);
    for (const [name, value] of Object.entries(ctx.response.headers)) res.setHeader(name, value);
    res.json(result);
  };
}
