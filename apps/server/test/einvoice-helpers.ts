// Test fixtures of the e-invoice transport tests: a stand-in for the UBL renderer, the customers'
// peppol_id column, an invoice ready to send, and a local stand-in for an access point's REST endpoint.
// None of it is product code.
import { randomUUID } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Database, Db } from '@tlr/db';
import type { RenderUbl } from '@tlr/domain';
import { idem, ok, type Api, type Schemas } from './helpers.ts';

/**
 * TEST FIXTURE, not the renderer: a fixed minimal UBL Invoice made of the invoice's number, date, buyer
 * and total, with a fresh UUID, where the real renderInvoiceUbl (einvoice/ubl.ts, another branch) goes.
 * The transport tests need bytes to carry, not a valid Peppol BIS document.
 */
export const fixtureUbl: RenderUbl = async (db: Db, scope, invoiceId, kind) => {
  const [i] = await db.$queryRaw<{ invoice_number: string; issue_date: Date; customer_name: string; total: string; currency: string; peppol_id: string }[]>`
    SELECT i.invoice_number, i.issue_date, i.customer_name, i.total::text AS total, i.currency, c.peppol_id
    FROM invoices i JOIN customers c ON c.id = i.customer_id WHERE i.id = ${invoiceId}::uuid AND i.company_id = ${scope.companyId}::uuid`;
  const documentId = randomUUID();
  const [scheme, endpoint] = i!.peppol_id.split(':');
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:ID>${i!.invoice_number}</cbc:ID>
  <cbc:UUID>${documentId}</cbc:UUID>
  <cbc:IssueDate>${i!.issue_date.toISOString().slice(0, 10)}</cbc:IssueDate>
  <cbc:DocumentCurrencyCode>${i!.currency}</cbc:DocumentCurrencyCode>
  <cac:AccountingCustomerParty><cac:Party><cbc:EndpointID schemeID="${scheme}">${endpoint}</cbc:EndpointID><cac:PartyName><cbc:Name>${i!.customer_name}</cbc:Name></cac:PartyName></cac:Party></cac:AccountingCustomerParty>
  <cac:LegalMonetaryTotal><cbc:PayableAmount currencyID="${i!.currency}">${i!.total}</cbc:PayableAmount></cac:LegalMonetaryTotal>
</Invoice>
`;
  return {
    xml,
    filename: `${kind === 'invoice' ? 'faktura' : 'kreditnota'}-${i!.invoice_number}.xml`,
    documentId,
    number: i!.invoice_number,
    issueDate: i!.issue_date.toISOString().slice(0, 10),
    sender: '',
  };
};

/** A customer, with a Peppol participant id when one is given. */
export async function peppolCustomer(c: Api, _db: Database, name: string, peppolId = ''): Promise<string> {
  return (await ok(c.POST('/customers', { params: idem(), body: { name, peppol_id: peppolId } }))).data.id;
}

/** An invoice of one line (1,000.00 + 25 % VAT), approved unless `approve` is false. */
export async function invoiceFor(c: Api, customerId: string, approve = true) {
  const body = {
    customer_id: customerId,
    issue_date: '2026-11-20',
    due_date: '2026-12-04',
    lines: [{ description: 'Tømrerarbejde', quantity: 4, unit_price: 250 }],
    auto_approve: approve,
  };
  return (await ok(c.POST('/invoices', { params: idem(), body }))).data;
}

/** POST /invoices/{id}/send over Peppol (the invoice, or its credit note), with a fresh Idempotency-Key unless one is given. */
export const sendInvoice = async (c: Api, id: string, key?: string, document?: 'invoice' | 'credit_note') => {
  const r = await c.POST('/invoices/{id}/send', { params: { path: { id }, ...idem(key) }, body: { channel: 'peppol', ...(document ? { document } : {}) } });
  // Channel peppol answers the message (channel email a delivery: email.test.ts).
  return r as typeof r & { data?: { data: Schemas['EinvoiceMessage'] } };
};

/**
 * A file written whole under its final name, as an access point must write its receipts. Into a folder
 * that exists, as an access point's does: the server makes its inbox at its first poll, which a fast
 * test's first file may come before.
 */
export async function dropFile(folder: string, name: string, content: string): Promise<void> {
  await mkdir(folder, { recursive: true });
  const temp = join(folder, `.${name}.tmp`);
  await writeFile(temp, content);
  await rename(temp, join(folder, name));
}

/** A Peppol ApplicationResponse about document `uuid` with `code` (RE rejects, AP accepts, AB acknowledges). */
export const applicationResponse = (uuid: string, code: string, description: string) => `<?xml version="1.0" encoding="UTF-8"?>
<ApplicationResponse xmlns="urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:CustomizationID>urn:fdc:peppol.eu:poacc:trns:invoice_response:3</cbc:CustomizationID>
  <cbc:ProfileID>urn:fdc:peppol.eu:poacc:bis:invoice_response:3</cbc:ProfileID>
  <cbc:ID>IRR-${uuid.slice(0, 8)}</cbc:ID>
  <cbc:IssueDate>2026-11-21</cbc:IssueDate>
  <cac:DocumentResponse>
    <cac:Response>
      <cbc:ResponseCode listID="UNCL4343OpSubset">${code}</cbc:ResponseCode>
      <cbc:Description>${description}</cbc:Description>
    </cac:Response>
    <cac:DocumentReference>
      <cbc:ID>${uuid}</cbc:ID>
      <cbc:DocumentTypeCode listID="UNCL1001">380</cbc:DocumentTypeCode>
    </cac:DocumentReference>
  </cac:DocumentResponse>
</ApplicationResponse>
`;

/** A request the stand-in access point got. */
export interface Handed {
  at: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A stand-in for an access point's REST endpoint on loopback: it records every request and answers
 * what `answer` says, when it says: a status (with a small JSON body), or 'drop' to close the connection
 * without an answer.
 */
export async function accessPointStandIn() {
  const got: Handed[] = [];
  let answer: (h: Handed) => number | 'drop' | Promise<number | 'drop'> = () => 202;
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const h = { at: Date.now(), headers: req.headers, body: Buffer.concat(parts).toString('utf8') };
      got.push(h);
      void Promise.resolve(answer(h)).then((status) => {
        if (status === 'drop') return req.socket.destroy();
        res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ transmission_id: `tx-${got.length}`, status }));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/outbound`,
    got,
    answer: (fn: typeof answer) => (answer = fn),
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}
