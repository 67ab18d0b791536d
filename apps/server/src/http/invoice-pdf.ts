// GET /api/v1/invoices/{id}/pdf: the HTTP shell of the invoices.pdf procedure, which checks the scope
// and the id and reads what the document shows; this renders it and sends the bytes (the REST adapter
// always JSON-encodes). The PDF is rendered whole before the first byte, so a failure is a problem+json.
import { renderInvoicePdf, type InvoiceDocument } from '@tlr/domain';
import type { RawCall, RawHandler } from './raw-routes.ts';

export function invoicePdf(): RawHandler {
  return async ({ caller, input, res }: RawCall) => {
    // The procedure validates the raw query and path parameters (a bad id or document is a 400).
    const document = (await caller.invoices.pdf(input as { id: string })) as InvoiceDocument;
    const pdf = await renderInvoicePdf(document);
    res.status(200);
    res.setHeader('Content-Type', 'application/pdf');
    res.setHeader('Content-Disposition', `inline; filename="${document.filename}"`);
    res.setHeader('Content-Length', String(pdf.length));
    // It changes with the invoice (a draft, a payment): never served from a cache.
    res.setHeader('Cache-Control', 'private, no-store');
    res.end(pdf);
  };
}
