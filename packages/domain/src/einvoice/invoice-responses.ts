// Invoice responses: what the company tells the sender of a document it received. "received" when the
// document is imported, "accepted" when its expense is booked, "rejected" (with the reason) when a person
// rejects it (POST /einvoices/{id}/reject, which cancels the draft expense). Each is an outbound message
// of kind application_response, queued in the transaction that says it and handed to the access point
// by the same delivery as an invoice sent (delivery.ts): Peppol Invoice Response (BIS 3,
// `ApplicationResponse`) to a Peppol or EN 16931 sender, an OIOUBL `ApplicationResponse` to an OIOUBL
// one. A unique (answered message, status) makes each go out at most once, however many callers say it.
import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';
import type { Db } from '@tlr/db';
import { fromDate, toDate, today } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError, notFound } from '../errors.ts';
import { announceExpense, type ExpenseRow } from '../expenses/expense-rows.ts';
import { newId } from '../ids.ts';
import { checkPeppolId, companyPeppolId, normalizePeppolId } from '../identifiers/peppol-id.ts';
import { oioublEndpoint } from './oioubl.ts';
import { rememberQueued } from './outbound.ts';
import type { EinvoiceFormat, EinvoiceStatus, ResponseStatus } from './schema.ts';
import { einvoiceMessageView, type EinvoiceMessageRow } from './views.ts';

const NS = {
  ApplicationResponse: 'urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2',
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
} as const;

/** What a response says about which document, between whom. */
export interface InvoiceResponse {
  /** The response's own id (the message's) and UUID. */
  id: string;
  issueDate: string;
  status: ResponseStatus;
  /** Why it was rejected; "" otherwise. */
  reason: string;
  /** The company, answering: its endpoint `<scheme>:<id>` and name. */
  sender: { endpoint: string; name: string };
  /** The document's seller, answered. */
  receiver: { endpoint: string; name: string };
  document: { number: string; uuid: string; issueDate: string; kind: 'invoice' | 'credit_note' };
}

/**
 * Peppol's invoice response codes (UNCL4343 subset): AB the message is acknowledged (received), AP
 * accepted, RE rejected. A rejection carries a clarification code (PEPPOL-T111-R001): OTH, with the
 * person's reason as its text (PEPPOL-T111-R002).
 */
const PEPPOL_CODES: Record<ResponseStatus, string> = { received: 'AB', accepted: 'AP', rejected: 'RE' };
const PEPPOL_CUSTOMIZATION = 'urn:fdc:peppol.eu:poacc:trns:invoice_response:3';
const PEPPOL_PROFILE = 'urn:fdc:peppol.eu:poacc:bis:invoice_response:3';

function peppolEndpoint(parent: XMLBuilder, endpoint: string) {
  const i = endpoint.indexOf(':');
  parent.ele(NS.cbc, 'cbc:EndpointID', { schemeID: endpoint.slice(0, i) }).txt(endpoint.slice(i + 1));
}

/** A Peppol BIS 3 Invoice Response. */
export function peppolResponseXml(r: InvoiceResponse): string {
  const doc = create({ version: '1.0', encoding: 'UTF-8' }).ele(NS.ApplicationResponse, 'ApplicationResponse', {
    'xmlns:cac': NS.cac,
    'xmlns:cbc': NS.cbc,
  });
  doc.ele(NS.cbc, 'cbc:CustomizationID').txt(PEPPOL_CUSTOMIZATION);
  doc.ele(NS.cbc, 'cbc:ProfileID').txt(PEPPOL_PROFILE);
  doc.ele(NS.cbc, 'cbc:ID').txt(r.id);
  doc.ele(NS.cbc, 'cbc:IssueDate').txt(r.issueDate);
  for (const [name, party] of [
    ['cac:SenderParty', r.sender],
    ['cac:ReceiverParty', r.receiver],
  ] as const) {
    const p = doc.ele(NS.cac, name);
    peppolEndpoint(p, party.endpoint);
    p.ele(NS.cac, 'cac:PartyLegalEntity')
      .ele(NS.cbc, 'cbc:RegistrationName')
      .txt(party.name || party.endpoint);
  }
  const documentResponse = doc.ele(NS.cac, 'cac:DocumentResponse');
  const response = documentResponse.ele(NS.cac, 'cac:Response');
  // No listID on the code nor on the document type: the transaction's structure declares none (its current examples write none).
  response.ele(NS.cbc, 'cbc:ResponseCode').txt(PEPPOL_CODES[r.status]);
  response.ele(NS.cbc, 'cbc:EffectiveDate').txt(r.issueDate);
  if (r.status === 'rejected') {
    const status = response.ele(NS.cac, 'cac:Status');
    status.ele(NS.cbc, 'cbc:StatusReasonCode', { listID: 'OPStatusReason' }).txt('OTH');
    status.ele(NS.cbc, 'cbc:StatusReason').txt(r.reason);
  }
  const reference = documentResponse.ele(NS.cac, 'cac:DocumentReference');
  reference.ele(NS.cbc, 'cbc:ID').txt(r.document.number);
  if (r.document.issueDate) reference.ele(NS.cbc, 'cbc:IssueDate').txt(r.document.issueDate);
  reference.ele(NS.cbc, 'cbc:DocumentTypeCode').txt(r.document.kind === 'credit_note' ? '381' : '380');
  return doc.end({ prettyPrint: false });
}

/**
 * OIOUBL's response codes (responsecode-1.1): the document was received as a message (TechnicalAccept,
 * only under the technical response profile, F-APR057/058), accepted (BusinessAccept) or rejected
 * (BusinessReject, with the reason as the response's Description) under the basic billing profile.
 */
const OIOUBL_CODES: Record<ResponseStatus, string> = { received: 'TechnicalAccept', accepted: 'BusinessAccept', rejected: 'BusinessReject' };
const OIOUBL_PROFILES: Record<ResponseStatus, string> = {
  received: 'Procurement-TecRes-1.0',
  accepted: 'Procurement-BilSim-1.0',
  rejected: 'Procurement-BilSim-1.0',
};
/** OIOUBL's UUID form (F-LIB097, F-APR026): a document's own UUID is named only when it has it. */
const OIOUBL_UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** An OIOUBL 2.1 ApplicationResponse; null when a party's id has no OIOUBL scheme (decision 667): it is answered in Peppol's. */
export function oioublResponseXml(r: InvoiceResponse): string | null {
  const sender = oioublEndpoint(r.sender.endpoint);
  const receiver = oioublEndpoint(r.receiver.endpoint);
  if (!sender || !receiver) return null;
  const doc = create({ version: '1.0', encoding: 'UTF-8' }).ele(NS.ApplicationResponse, 'ApplicationResponse', {
    'xmlns:cac': NS.cac,
    'xmlns:cbc': NS.cbc,
  });
  doc.ele(NS.cbc, 'cbc:UBLVersionID').txt('2.1');
  doc.ele(NS.cbc, 'cbc:CustomizationID').txt('OIOUBL-2.1');
  doc.ele(NS.cbc, 'cbc:ProfileID', { schemeAgencyID: '320', schemeID: 'urn:oioubl:id:profileid-1.6' }).txt(OIOUBL_PROFILES[r.status]);
  doc.ele(NS.cbc, 'cbc:ID').txt(r.id);
  doc.ele(NS.cbc, 'cbc:UUID').txt(r.id);
  doc.ele(NS.cbc, 'cbc:IssueDate').txt(r.issueDate);
  for (const [name, party, endpoint] of [
    ['cac:SenderParty', r.sender, sender],
    ['cac:ReceiverParty', r.receiver, receiver],
  ] as const) {
    const p = doc.ele(NS.cac, name);
    const scheme = { ...(endpoint.schemeAgencyID ? { schemeAgencyID: endpoint.schemeAgencyID } : {}), schemeID: endpoint.schemeID };
    p.ele(NS.cbc, 'cbc:EndpointID', scheme).txt(endpoint.id);
    p.ele(NS.cac, 'cac:PartyIdentification').ele(NS.cbc, 'cbc:ID', scheme).txt(endpoint.id);
    p.ele(NS.cac, 'cac:PartyName')
      .ele(NS.cbc, 'cbc:Name')
      .txt(party.name || endpoint.id);
    const legal = p.ele(NS.cac, 'cac:PartyLegalEntity');
    legal.ele(NS.cbc, 'cbc:RegistrationName').txt(party.name || endpoint.id);
    legal.ele(NS.cbc, 'cbc:CompanyID', { schemeID: endpoint.schemeID === 'DK:CVR' ? 'DK:CVR' : 'ZZZ' }).txt(endpoint.id);
  }
  const documentResponse = doc.ele(NS.cac, 'cac:DocumentResponse');
  const response = documentResponse.ele(NS.cac, 'cac:Response');
  response.ele(NS.cbc, 'cbc:ReferenceID').txt(r.document.number);
  response.ele(NS.cbc, 'cbc:ResponseCode', { listAgencyID: '320', listID: 'urn:oioubl:codelist:responsecode-1.1' }).txt(OIOUBL_CODES[r.status]);
  if (r.reason) response.ele(NS.cbc, 'cbc:Description').txt(r.reason);
  const reference = documentResponse.ele(NS.cac, 'cac:DocumentReference');
  reference.ele(NS.cbc, 'cbc:ID').txt(r.document.number);
  if (OIOUBL_UUID.test(r.document.uuid)) reference.ele(NS.cbc, 'cbc:UUID').txt(r.document.uuid);
  if (r.document.issueDate) reference.ele(NS.cbc, 'cbc:IssueDate').txt(r.document.issueDate);
  reference
    .ele(NS.cbc, 'cbc:DocumentTypeCode', { listAgencyID: '320', listID: 'urn:oioubl:codelist:responsedocumenttypecode-1.1' })
    .txt(r.document.kind === 'credit_note' ? 'CreditNote' : 'Invoice');
  return doc.end({ prettyPrint: false });
}

/**
 * A party's endpoint as a response addresses it: normalised when it is a Peppol id tlr's checks accept,
 * else as the document wrote it (`<scheme>:<id>`: the sender uses it, and the access point knows whether
 * it is reachable); '' when there is none.
 */
const addressable = (id: string) => (!/^\d{4}:\S/.test(id) ? '' : checkPeppolId(id) ? id : normalizePeppolId(id));

type Received = Pick<
  EinvoiceMessageRow,
  | 'id'
  | 'document_kind'
  | 'document_format'
  | 'document_number'
  | 'document_uuid'
  | 'issue_date'
  | 'sender_peppol_id'
  | 'receiver_peppol_id'
  | 'counterpart_name'
>;

/**
 * Queues the response `status` to the received message `m`, in the caller's transaction; the message
 * queued, or null when there is nobody to answer (the document names no sender endpoint, or the company
 * has none: no Peppol id and no CVR) or this status was answered already (the unique constraint: two
 * callers at once make one, the second finds it).
 */
export async function queueInvoiceResponse(db: Db, scope: CompanyScope, m: Received, status: ResponseStatus, reason = ''): Promise<EinvoiceMessageRow | null> {
  const receiver = addressable(m.sender_peppol_id);
  if (!receiver) return null;
  const company = await db.company.findUniqueOrThrow({ where: { id: scope.companyId }, select: { name: true, peppol_id: true, cvr: true } });
  // The endpoint the document was sent to, which the sender knows; else the company's own (decision 206).
  const sender = addressable(m.receiver_peppol_id) || companyPeppolId(company);
  if (!sender) return null;
  const id = newId();
  const response: InvoiceResponse = {
    id,
    issueDate: today(),
    status,
    reason,
    sender: { endpoint: sender, name: company.name },
    receiver: { endpoint: receiver, name: m.counterpart_name },
    document: {
      number: m.document_number,
      uuid: m.document_uuid,
      issueDate: m.issue_date ? fromDate(m.issue_date) : '',
      kind: m.document_kind === 'credit_note' ? 'credit_note' : 'invoice',
    },
  };
  // An OIOUBL sender is answered in OIOUBL; every other (Peppol BIS 3, EN 16931 UBL or CII) in Peppol's Invoice Response.
  const oioubl = m.document_format === 'oioubl-2.1' ? oioublResponseXml(response) : null;
  const format: EinvoiceFormat = oioubl ? 'oioubl-2.1' : 'peppol-bis3';
  const xml = oioubl ?? peppolResponseXml(response);
  const [row] = await db.$queryRaw<EinvoiceMessageRow[]>`
    INSERT INTO einvoice_messages (id, company_id, direction, document_kind, document_format, document_number, channel, receiver_peppol_id,
      sender_peppol_id, counterpart_name, issue_date, status, next_attempt_at, document_xml, document_uuid, response_to_id, response_status,
      response_reason, updated_at)
    VALUES (${id}::uuid, ${scope.companyId}::uuid, 'outbound', 'application_response', ${format}, ${m.document_number}, 'peppol', ${receiver},
      ${sender}, ${m.counterpart_name}, ${toDate(response.issueDate)}::date, ${'queued' satisfies EinvoiceStatus}, now(), ${xml}, ${id}, ${m.id}::uuid,
      ${status}, ${reason}, now())
    ON CONFLICT (response_to_id, response_status) DO NOTHING
    RETURNING *`;
  if (!row) return null;
  rememberQueued(db, { id: row.id, due: row.next_attempt_at! });
  return row;
}

/** "accepted" to the sender of the received document whose draft expense this is, when it is one: booking says it. */
export async function acceptReceivedDocument(db: Db, scope: CompanyScope, expenseId: string): Promise<void> {
  const m = await db.einvoiceMessage.findFirst({
    where: { company_id: scope.companyId, expense_id: expenseId, direction: 'inbound' },
    omit: { document_xml: true },
  });
  if (m) await queueInvoiceResponse(db, scope, m, 'accepted');
}

/**
 * POST /einvoices/{id}/reject: a received document is rejected with a reason. Its draft expense is
 * cancelled (nothing was posted, so nothing is reversed) and "rejected" goes to the sender. A document
 * whose expense was booked is accepted already (409 einvoice_not_rejectable: cancel the expense and ask
 * the supplier for a credit note); one rejected before is 409 too, naming the response sent.
 */
export async function rejectEinvoice(db: Db, scope: CompanyScope, id: string, reason: string) {
  const [m] = await db.$queryRaw<EinvoiceMessageRow[]>`
    SELECT * FROM einvoice_messages WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`;
  if (!m) throw notFound('e-invoice', id);
  if (m.direction !== 'inbound') {
    throw new DomainError('einvoice_not_rejectable', `E-invoice ${id} was sent from here; only a received one is rejected.`, 'id');
  }
  const earlier = await db.einvoiceMessage.findFirst({ where: { response_to_id: id, response_status: 'rejected' }, select: { id: true } });
  const [expense] = m.expense_id
    ? await db.$queryRaw<ExpenseRow[]>`SELECT * FROM expenses WHERE id = ${m.expense_id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`
    : [];
  if (earlier || (expense && expense.status === 'cancelled' && !expense.posted_transaction_id)) {
    throw new DomainError('einvoice_not_rejectable', `E-invoice ${id} was rejected already.`, 'id', {
      ...(earlier ? { message_id: earlier.id } : {}),
    });
  }
  if (expense && expense.status !== 'draft') {
    throw new DomainError(
      'einvoice_not_rejectable',
      `E-invoice ${id} is accepted: its expense ${expense.id} is ${expense.status}. Cancel the expense (PUT /expenses/{id}/status {"status":"cancelled"}) and ask the supplier for a credit note.`,
      'id',
      { expense_id: expense.id, current_status: expense.status },
    );
  }
  if (expense) {
    const cancelled = await db.expense.update({ where: { id: expense.id }, data: { status: 'cancelled' } });
    await announceExpense(db, scope, 'expense.updated', cancelled);
  }
  const response = await queueInvoiceResponse(db, scope, m, 'rejected', reason);
  return {
    data: response ? einvoiceMessageView(response) : null,
    ...(response
      ? {}
      : {
          detail:
            'The document names no sender endpoint to answer (or the company has neither a Peppol id nor a CVR): the expense is cancelled, and no response is sent.',
        }),
  };
}
