import { describe, expect, it } from 'vitest';
import { parseApplicationResponse, parseReceipt } from './responses.ts';

const response = (code: string, extra = '') => `<?xml version="1.0"?>
<ApplicationResponse xmlns="urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2"
  xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
  xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:ID>R-1</cbc:ID><cbc:IssueDate>2026-11-21</cbc:IssueDate>
  <cac:DocumentResponse>
    <cac:Response><cbc:ResponseCode listID="UNCL4343OpSubset">${code}</cbc:ResponseCode><cbc:Description>Forkert pris</cbc:Description>
      <cac:Status><cbc:StatusReasonCode listID="OPStatusReason">REF</cbc:StatusReasonCode><cbc:StatusReason>Ukendt ordre</cbc:StatusReason></cac:Status>
    </cac:Response>
    <cac:DocumentReference><cbc:ID>6f1c3e7a-0000-4000-8000-000000000001</cbc:ID>${extra}</cac:DocumentReference>
  </cac:DocumentResponse>
</ApplicationResponse>`;

describe('ApplicationResponse', () => {
  it('RE rejects, every other code delivers; the answer names the referenced ids and what it said', () => {
    expect(parseApplicationResponse(response('RE', '<cbc:UUID>u-2</cbc:UUID>'), 'r.xml')).toEqual({
      ids: ['6f1c3e7a-0000-4000-8000-000000000001', 'u-2'],
      answer: {
        status: 'rejected',
        response: { source: 'application_response', file: 'r.xml', id: 'R-1', issue_date: '2026-11-21', code: 'RE', description: 'Forkert pris Ukendt ordre' },
      },
    });
    for (const code of ['AB', 'AP', 'IP', 'UQ', 'CA', 'PD']) expect(parseApplicationResponse(response(code), 'r.xml')?.answer.status).toBe('delivered');
  });

  it('is null for another document (an incoming invoice is not an answer)', () => {
    expect(parseApplicationResponse('<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><ID>1</ID></Invoice>', 'i.xml')).toBeNull();
  });

  it('refuses a DOCTYPE (no entity is ever expanded) and an answer without code or reference', () => {
    expect(() => parseApplicationResponse(`<!DOCTYPE a [<!ENTITY x "y">]>${response('AP')}`, 'r.xml')).toThrow(/DOCTYPE/);
    expect(() => parseApplicationResponse(response(''), 'r.xml')).toThrow(/ResponseCode/);
  });

  it('decodes entities in what it keeps, and checks its date by the calendar', () => {
    const answer = parseApplicationResponse(response('RE').replace('Forkert pris', 'Pris &amp; m&#230;ngde'), 'r.xml');
    expect(answer?.answer.response.description).toBe('Pris & mængde Ukendt ordre');
    expect(() => parseApplicationResponse(response('AP').replace('2026-11-21', '2026-02-31'), 'r.xml')).toThrow(
      /IssueDate "2026-02-31" must be a valid calendar date/,
    );
  });
});

describe('receipts', () => {
  it('take the message id from the file name and keep the response', () => {
    expect(parseReceipt('{"status":"delivered","response":{"transmission_id":"t-1"}}', 'abc.receipt.json')).toEqual({
      ids: ['abc'],
      answer: { status: 'delivered', response: { transmission_id: 't-1', source: 'receipt', file: 'abc.receipt.json' } },
    });
    expect(parseReceipt('{"status":"rejected","response":"no such receiver"}', 'abc.receipt.json').answer.response).toEqual({
      detail: 'no such receiver',
      source: 'receipt',
      file: 'abc.receipt.json',
    });
  });

  it('refuses another status and malformed JSON', () => {
    expect(() => parseReceipt('{"status":"maybe"}', 'a.receipt.json')).toThrow(/receipt/);
    expect(() => parseReceipt('{', 'a.receipt.json')).toThrow();
  });
});
