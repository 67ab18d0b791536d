// The format einvoice_format auto picks from what the transport knows of a receiver, and the registry
// file it knows it from (decisions 691 to 694). Through HTTP with the directory transport:
// apps/server/test/einvoice-auto-format.test.ts.
import { describe, expect, it } from 'vitest';
import { autoFormat, isDanishReceiver, parseRegistry, type ReceiverDocument } from './receivers.ts';

const takes = (...d: ReceiverDocument[]) => new Set(d);

describe('autoFormat', () => {
  it('sends Peppol BIS 3 when the transport reports nothing, the one format a receiver takes, and nothing when it takes neither', () => {
    expect(autoFormat('0184:29190925', null, 'invoice')).toBe('peppol-bis3');
    expect(autoFormat('0088:5790000436101', takes('oioubl-2.1:invoice'), 'invoice')).toBe('oioubl-2.1');
    expect(autoFormat('0088:5790000436101', takes('peppol-bis3:invoice'), 'invoice')).toBe('peppol-bis3');
    expect(autoFormat('0088:5790000436101', takes('oioubl-2.1:invoice'), 'credit_note')).toBeNull();
    expect(autoFormat('0088:5790000436101', takes(), 'invoice')).toBeNull();
  });

  it('of two, OIOUBL to a Danish receiver (NemHandel) and Peppol BIS 3 to any other', () => {
    const both = takes('oioubl-2.1:invoice', 'peppol-bis3:invoice');
    expect(autoFormat('0184:29190925', both, 'invoice')).toBe('oioubl-2.1');
    expect(autoFormat('0088:5790000436101', both, 'invoice')).toBe('oioubl-2.1');
    expect(autoFormat('9930:DE136695976', both, 'invoice')).toBe('peppol-bis3');
    expect(autoFormat('0088:4000001000005', both, 'invoice')).toBe('peppol-bis3');
    expect([isDanishReceiver('0198:dk29190925'), isDanishReceiver('0007:5561888404')]).toEqual([true, false]);
  });
});

describe('parseRegistry', () => {
  it('reads each receiver (normalised) with its documents, a format alone standing for all its kinds', () => {
    const registry = parseRegistry(JSON.stringify({ receivers: { ' 0088:5790000436101': ['oioubl-2.1'], '9930:de136695976': ['peppol-bis3:invoice'] } }));
    expect([...registry.get('0088:5790000436101')!]).toEqual(['oioubl-2.1:invoice', 'oioubl-2.1:credit_note', 'oioubl-2.1:reminder']);
    expect([...registry.get('9930:DE136695976')!]).toEqual(['peppol-bis3:invoice']);
  });

  it('refuses a file that is not such a registry whole (503), naming what is wrong', () => {
    for (const [text, why] of [
      ['{', /not JSON/],
      ['{"0088:5790000436101": ["oioubl-2.1"]}', /no "receivers" object/],
      ['{"receivers": {"0088:5790000436101": "oioubl-2.1"}}', /not a list/],
      ['{"receivers": {"0088:5790000436101": ["xrechnung"]}}', /lists "xrechnung", which is none of peppol-bis3, oioubl-2.1/],
    ] as const) {
      expect(() => parseRegistry(text), text).toThrow(why);
      try {
        parseRegistry(text);
      } catch (e) {
        expect((e as { status: number }).status).toBe(503);
      }
    }
  });
});
