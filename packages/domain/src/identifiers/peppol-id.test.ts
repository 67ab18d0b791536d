import { describe, expect, it } from 'vitest';
import { checkPeppolId, companyPeppolId, normalizePeppolId, parsePeppolId, PEPPOL_SCHEMES, peppolIdOfVatNumber } from './peppol-id.ts';

// The EndpointID schemes of Peppol BIS Billing 3.0.19 (rule PEPPOL-EN16931-CL008's list), sorted.
const BIS_SCHEMES =
  '0002 0007 0009 0037 0060 0088 0096 0097 0106 0130 0135 0142 0147 0151 0154 0158 0170 0177 0183 0184 0188 0190 0191 0192 0193 0194 0195 0196 0198 0199 0200 0201 0202 0203 0204 0205 0208 0209 0210 0211 0212 0213 0215 0216 0217 0218 0221 0225 0230 0235 0240 9910 9913 9914 9915 9918 9919 9920 9922 9923 9924 9925 9926 9927 9928 9929 9930 9931 9932 9933 9934 9935 9936 9937 9938 9939 9940 9941 9942 9943 9944 9945 9946 9947 9948 9949 9950 9951 9952 9953 9957 9959';

/** The example a refusal gives for the scheme, or undefined for a scheme without a fixed format. */
const exampleOf = (code: string) => /such as (\S+)$/.exec(checkPeppolId(`${code}:${'9'.repeat(126)}`) ?? '')?.[1];

describe('Peppol participant identifiers', () => {
  it('knows the schemes Peppol BIS Billing 3.0 allows for an endpoint, no more', () => {
    expect(PEPPOL_SCHEMES.join(' ')).toBe(BIS_SCHEMES);
  });

  it.each(BIS_SCHEMES.split(' '))('%s: accepts its own example and refuses what misses its format, naming the format', (code) => {
    const example = exampleOf(code);
    expect(checkPeppolId(example ?? `${code}:AB12C`), example).toBeUndefined();
    expect(checkPeppolId(`${code}:${'9'.repeat(126)}`)).toMatch(new RegExp(`^must be ${code}: and .+ for .+`));
  });

  it('takes any printable characters without spaces in a scheme without a fixed format, at most 130 in all', () => {
    expect(checkPeppolId('0202:fatture@pec.example.it')).toBeUndefined();
    expect(checkPeppolId('0195:SGUEN201234567A')).toBeUndefined();
    expect(checkPeppolId(`0130:${'A'.repeat(125)}`)).toBeUndefined();
    expect(checkPeppolId(`0130:${'A'.repeat(126)}`)).toBe(
      'must be 0130: and 1 to 125 letters, digits or signs without spaces for Directorates of the European Commission',
    );
    expect(checkPeppolId('0130:æøå')).toMatch(/^must be 0130: and 1 to 125 letters, digits or signs without spaces/);
  });

  it('checks the check digits where the scheme has them', () => {
    const wrong = (rule: RegExp) => expect.stringMatching(new RegExp(`^has a wrong check digit \\(not a valid ${rule.source}`));
    expect(checkPeppolId('0088:5790000436101')).toBeUndefined();
    expect(checkPeppolId('0088:5790000436102')).toEqual(wrong(/GLN by the GS1 check digit rule/));
    expect(checkPeppolId('0088:5790000436110')).toEqual(wrong(/GLN/));
    expect(checkPeppolId('0184:12345678')).toMatch(/^has a wrong check digit \(not a valid CVR number by the modulus 11 rule/);
    expect(checkPeppolId('0184:01234567')).toMatch(/^must have 8 digits, the first not 0/);
    expect(checkPeppolId('0184:DK29190925')).toBeUndefined();
    expect(checkPeppolId('0198:DK29190925')).toBeUndefined();
    expect(checkPeppolId('0198:DK29190926')).toEqual(wrong(/SE number by the modulus 11 rule/));
    expect(checkPeppolId('0007:2120000788')).toEqual(wrong(/Swedish organisationsnummer by the Luhn rule/));
    expect(checkPeppolId('0192:974760674')).toEqual(wrong(/Norwegian organisasjonsnummer by the modulus 11 rule/));
    expect(checkPeppolId('0208:0403170702')).toEqual(wrong(/Belgian enterprise number by the modulus 97 rule/));
    expect(checkPeppolId('0151:51824753557')).toEqual(wrong(/Australian Business Number/));
    expect(checkPeppolId('9918:DK5000400440116244')).toMatch(/^has wrong check digits \(not a valid IBAN/);
    expect(checkPeppolId('9930:DE13669597')).toBe('must be DE and 9 digits for Germany, such as DE123456789');
    expect(checkPeppolId('9933:GR094259216')).toBe('must be 9933: and the VAT number with its prefix EL for Greece, such as 9933:EL094259216');
  });

  it('writes the Danish schemes as their code list does', () => {
    expect(checkPeppolId('0184:1234567')).toBe('must be 0184: and 8 digits (or DK and 8 digits) for a Danish CVR number, such as 0184:12345674');
    expect(checkPeppolId('0198:29190925')).toBe('must be 0198: and DK and 8 digits for a Danish SE number, such as 0198:DK12345674');
    expect(checkPeppolId('0096:123456789')).toBe('must be 0096: and 10 digits for a Danish P-number, such as 0096:1012345678');
  });

  it('names an unknown scheme, and refuses an id without its scheme', () => {
    for (const code of ['1234', '9901', '9902', '0000'])
      expect(checkPeppolId(`${code}:12345674`)).toBe(
        `has the scheme ${code}, which is not in Peppol's list of electronic address schemes (such as 0184 for a CVR number, 0198 for an SE number, 0088 for a GLN)`,
      );
    for (const text of ['12345674', '0184-12345674', '0184 12345674', '184:12345674', 'DK:CVR:12345674', '0184:', ':12345674', ''])
      expect(checkPeppolId(text), text).toMatch(/^must be a Peppol participant identifier: a 4-digit scheme, a colon and the id, such as 0184:12345674/);
  });

  it('normalises case, spaces and the iso6523-actorid-upis:: prefix, before checking too', () => {
    expect(normalizePeppolId(' iso6523-actorid-upis::0088:5790 0004 36101 ')).toBe('0088:5790000436101');
    expect(normalizePeppolId('0198:dk29190925')).toBe('0198:DK29190925');
    expect(normalizePeppolId('ISO6523-ACTORID-UPIS::9930:de136695976')).toBe('9930:DE136695976');
    expect(checkPeppolId('iso6523-actorid-upis::0184:2919 0925')).toBeUndefined();
    expect(checkPeppolId('9944:nl004495445b01')).toBeUndefined();
  });

  it('parses a valid id into its scheme and id, and refuses to parse an invalid one', () => {
    expect(parsePeppolId('iso6523-actorid-upis::0088:5790000436101')).toEqual({ scheme: '0088', id: '5790000436101' });
    expect(parsePeppolId('0204:991-33333test-33')).toEqual({ scheme: '0204', id: '991-33333TEST-33' });
    expect(() => parsePeppolId('0088:5790000436102')).toThrow(/wrong check digit/);
  });

  it("makes the company's own endpoint its CVR number in scheme 0184 unless it has set one", () => {
    expect(companyPeppolId({ peppol_id: '0088:5790000436101', cvr: '12345674' })).toBe('0088:5790000436101');
    expect(companyPeppolId({ peppol_id: '', cvr: '12345674' })).toBe('0184:12345674');
    expect(companyPeppolId({ peppol_id: '', cvr: null })).toBe('');
  });
});

describe('peppolIdOfVatNumber', () => {
  it("addresses an EU VAT number in its country's scheme, or the national register where the list has none, and every id it gives is valid", () => {
    const cases = [
      ['DE136695976', '9930:DE136695976'],
      ['FI20774740', '0213:FI20774740'],
      ['IT00743110157', '0211:IT00743110157'],
      ['SE556188840401', '0007:5561888404'],
      ['DK29190925', ''],
    ] as const;
    for (const [vat, id] of cases) {
      expect(peppolIdOfVatNumber(vat), vat).toBe(id);
      if (id) expect(checkPeppolId(id), id).toBeUndefined();
    }
  });
});
