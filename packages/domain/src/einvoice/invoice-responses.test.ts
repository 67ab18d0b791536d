// The invoice responses tlr writes: the OIOUBL ApplicationResponse of each status under the official
// OIOUBL schematron (package 1.17.2), run for real; the Peppol BIS Invoice Response against the rules of
// its transaction that can be checked without its official schematron (which the reference folder does
// not hold): the identifiers, the UNCL4343 subset, a clarification with every rejection
// (PEPPOL-T111-R001/R002), the parties' endpoints and names, the referenced document. Both read back as
// answers by tlr's own reader.
import { beforeAll, describe, expect, it } from 'vitest';
import { child, children, readXmlDocument, textOf, attributeOf } from '../xml/tree.ts';
import { oioublResponseXml, peppolResponseXml, type InvoiceResponse } from './invoice-responses.ts';
import { parseApplicationResponse } from './responses.ts';
import { validateEinvoiceHere } from './validate.ts';
import type { ResponseStatus } from './schema.ts';

const response = (status: ResponseStatus, over: Partial<InvoiceResponse> = {}): InvoiceResponse => ({
  id: '0b6e3c4a-51a1-4a55-9c61-3f4f1c2a7d10',
  issueDate: '2026-11-29',
  status,
  reason: status === 'rejected' ? 'Vi har ikke fået de aftalte 800,- kr i rabat' : '',
  sender: { endpoint: '0184:12345674', name: 'Køber & Søn ApS' },
  receiver: { endpoint: '0088:5798009811578', name: 'Den Lille Skole' },
  document: { number: 'A00095678', uuid: '9756b4d0-8815-1029-857a-e388fe63f399', issueDate: '2026-11-20', kind: 'invoice' },
  ...over,
});
const STATUSES: ResponseStatus[] = ['received', 'accepted', 'rejected'];
const read = (xml: string) => readXmlDocument(xml, { maxBytes: 1e6 });

describe('OIOUBL ApplicationResponse', () => {
  // The first run loads the stylesheet (a second or two; compiled already: rules/compiled/).
  beforeAll(
    () =>
      validateEinvoiceHere('<ApplicationResponse xmlns="urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2"/>', 'oioubl-application-response'),
    120_000,
  );

  it('is valid under the official schematron for each status, an invoice and a credit note, CVR and GLN parties', async () => {
    for (const status of STATUSES) {
      for (const kind of ['invoice', 'credit_note'] as const) {
        const xml = oioublResponseXml(response(status, { document: { ...response(status).document, kind } }))!;
        const result = await validateEinvoiceHere(xml, 'oioubl-application-response');
        expect({ status, kind, fatal: result.fatal }).toEqual({ status, kind, fatal: [] });
      }
    }
  });

  it("catches what it should: a response code outside OIOUBL's list", async () => {
    const xml = oioublResponseXml(response('accepted'))!.replace('>BusinessAccept<', '>Accepted<');
    expect((await validateEinvoiceHere(xml, 'oioubl-application-response')).fatal.map((f) => f.id)).toContain('F-APR018');
  });

  it('says each status in OIOUBL codes, the reason as the description, and reads back as an answer', () => {
    const codes = STATUSES.map((s) => textOf(child(child(child(read(oioublResponseXml(response(s))!), 'DocumentResponse'), 'Response'), 'ResponseCode')));
    expect(codes).toEqual(['TechnicalAccept', 'BusinessAccept', 'BusinessReject']);
    const answer = parseApplicationResponse(oioublResponseXml(response('rejected'))!, 'r.xml');
    expect(answer?.ids).toEqual(['A00095678', '9756b4d0-8815-1029-857a-e388fe63f399']);
    expect(answer?.answer.response).toMatchObject({ code: 'BusinessReject', description: 'Vi har ikke fået de aftalte 800,- kr i rabat' });
  });

  it('is none for a party whose id has no OIOUBL scheme (it is answered in Peppol)', () => {
    expect(oioublResponseXml(response('received', { receiver: { endpoint: '0151:47555222000', name: 'Aussie Pty' } }))).toBeNull();
  });
});

describe('Peppol BIS Invoice Response', () => {
  it("follows the transaction's rules for each status", () => {
    for (const status of STATUSES) {
      const doc = read(
        peppolResponseXml(response(status, { document: { ...response(status).document, kind: status === 'accepted' ? 'credit_note' : 'invoice' } })),
      );
      expect(doc.name).toBe('ApplicationResponse');
      expect(textOf(child(doc, 'CustomizationID'))).toBe('urn:fdc:peppol.eu:poacc:trns:invoice_response:3');
      expect(textOf(child(doc, 'ProfileID'))).toBe('urn:fdc:peppol.eu:poacc:bis:invoice_response:3');
      expect(textOf(child(doc, 'ID'))).not.toBe('');
      expect(textOf(child(doc, 'IssueDate'))).toMatch(/^\d{4}-\d\d-\d\d$/);
      for (const [name, endpoint, registration] of [
        ['SenderParty', ['0184', '12345674'], 'Køber & Søn ApS'],
        ['ReceiverParty', ['0088', '5798009811578'], 'Den Lille Skole'],
      ] as const) {
        const party = child(doc, name);
        expect([attributeOf(child(party, 'EndpointID'), 'schemeID'), textOf(child(party, 'EndpointID'))]).toEqual(endpoint);
        expect(textOf(child(child(party, 'PartyLegalEntity'), 'RegistrationName'))).toBe(registration);
      }
      const documentResponse = child(doc, 'DocumentResponse');
      const answered = child(documentResponse, 'Response');
      const code = child(answered, 'ResponseCode');
      expect(attributeOf(code, 'listID')).toBe('');
      expect(textOf(code)).toBe({ received: 'AB', accepted: 'AP', rejected: 'RE' }[status]);
      // PEPPOL-T111-R001: CA, UQ and RE carry a clarification code; R002: OTH comes with its reason.
      const reasons = children(answered, 'Status');
      if (status === 'rejected') {
        expect(
          reasons.map((s) => [textOf(child(s, 'StatusReasonCode')), attributeOf(child(s, 'StatusReasonCode'), 'listID'), textOf(child(s, 'StatusReason'))]),
        ).toEqual([['OTH', 'OPStatusReason', 'Vi har ikke fået de aftalte 800,- kr i rabat']]);
      } else expect(reasons).toEqual([]);
      const reference = child(documentResponse, 'DocumentReference');
      expect(textOf(child(reference, 'ID'))).toBe('A00095678');
      const type = child(reference, 'DocumentTypeCode');
      expect(textOf(type)).toBe(status === 'accepted' ? '381' : '380');
    }
  });

  it("reads back as an answer by tlr's own reader: RE rejects, AB and AP deliver", () => {
    expect(STATUSES.map((s) => parseApplicationResponse(peppolResponseXml(response(s)), 'r.xml')?.answer.status)).toEqual([
      'delivered',
      'delivered',
      'rejected',
    ]);
  });
});
