// GET /api/v1/invoices/{id}/pdf and /invoices/{id}/reminders/{number}/pdf: the HTTP shells of the
// invoices.pdf and reminders.pdf procedures, which check the scope and the parameters and read what the
// document shows; this renders it and sends the bytes (the REST adapter always JSON-encodes). The PDF is
// rendered whole before the first byte, so a failure is a problem+json.
import { renderInvoicePdf, renderReminderPdf, renderStatementPdf, type InvoiceDocument, type ReminderDocument, type StatementDocument } from '@tlr/domain';
import type { Caller } from '@tlr/api';
import type { RawCall, RawHandler } from './raw-routes.ts';

export const invoicePdf = () => pdfShell((caller, input) => caller.invoices.pdf(input as { id: string }) as Promise<InvoiceDocument>, renderInvoicePdf);

export const reminderPdf = () =>
  pdfShell((caller, input) => caller.reminders.pdf(input as { id: string; number: '1' }) as Promise<ReminderDocument>, renderReminderPdf);

/** GET /quotes/{id}/pdf: the quote (tilbud), laid out by the invoice's renderer. */
export const quotePdf = () => pdfShell((caller, input) => caller.quotes.pdf(input as { id: string }) as Promise<InvoiceDocument>, renderInvoicePdf);

/** GET /customers/{id}/statement/pdf: the customer statement (kontoudtog, docs/reports.md). */
export const statementPdf = () =>
  pdfShell((caller, input) => caller.reports.customerStatementPdf(input as { id: string }) as Promise<StatementDocument>, renderStatementPdf);

function pdfShell<D extends { filename: string }>(
  read: (caller: Caller, input: Record<string, unknown>) => Promise<D>,
  render: (d: D) => Promise<Buffer>,
): RawHandler {
  return async ({ caller, input, res }: RawCall) => {
    // The procedure validates the raw query and path parameters (a bad id or document is a 400).
    const document = await read(caller, input);
    const pdf = await render(document);
    res.status(200);
    res.setHeader('Content-Type', 'application/pdf');
    res.setHeader('Content-Disposition', `inline; filename="${document.filename}"`);
    res.setHeader('Content-Length', String(pdf.length));
    // It changes with the invoice (a draft, a payment): never served from a cache.
    res.setHeader('Cache-Control', 'private, no-store');
    res.end(pdf);
  };
}
