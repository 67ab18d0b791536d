// GET /api/v1/vat-returns/{period}/export: the HTTP shell of the vat.export procedure, which checks the
// scope and the period and makes the document; this sends it as an XML attachment (the REST adapter
// always JSON-encodes).
import type { RawCall, RawHandler } from './raw-routes.ts';

export function vatReturnExport(): RawHandler {
  return async ({ caller, input, res }: RawCall) => {
    const { filename, xml } = await caller.vat.export(input as { period: string });
    res.status(200);
    res.setHeader('Content-Type', 'application/xml; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
    res.setHeader('Cache-Control', 'private, no-store');
    res.end(xml);
  };
}
