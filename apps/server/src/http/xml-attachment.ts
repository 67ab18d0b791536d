// The HTTP shell of a procedure that makes an XML document whole (an invoice's UBL, the VAT return's
// export): the procedure checks the scope and its input and answers the document and its file name;
// this sends it as an attachment (the REST adapter always JSON-encodes). Never cached: it changes with
// the books.
import type { Caller } from '@tlr/api';
import type { RawCall, RawHandler } from './raw-routes.ts';

/** The same for a CSV file (the EU sales list). */
export function csvAttachment(make: (caller: Caller, input: Record<string, unknown>) => Promise<{ filename: string; csv: string }>): RawHandler {
  return async ({ caller, input, res }: RawCall) => {
    const { filename, csv } = await make(caller, input);
    res.status(200);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
    res.setHeader('Cache-Control', 'private, no-store');
    res.end(csv);
  };
}

export function xmlAttachment(make: (caller: Caller, input: Record<string, unknown>) => Promise<{ filename: string; xml: string }>): RawHandler {
  return async ({ caller, input, res }: RawCall) => {
    const { filename, xml } = await make(caller, input);
    res.status(200);
    res.setHeader('Content-Type', 'application/xml; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
    res.setHeader('Cache-Control', 'private, no-store');
    res.end(xml);
  };
}
