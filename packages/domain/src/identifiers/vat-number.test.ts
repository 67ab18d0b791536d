import { describe, expect, it } from 'vitest';
import { checkVatNumber, EU_COUNTRIES, isEuCountry, normalizeVatNumber, vatNumberCountry } from './vat-number.ts';

// For each prefix: numbers of the country's format, and one that misses it (too short, too long, a
// letter where a digit goes); each refusal names the prefix's format.
const CASES: Record<string, { valid: string[]; invalid: string[] }> = {
  AT: { valid: ['ATU13585627'], invalid: ['AT13585627', 'ATU1358562'] },
  BE: { valid: ['BE0403170701', 'BE1000000000'], invalid: ['BE403170701', 'BE2403170701'] },
  BG: { valid: ['BG175074752', 'BG7523169263'], invalid: ['BG17507475', 'BG75231692631'] },
  CY: { valid: ['CY10259033P'], invalid: ['CY102590339', 'CY1025903P'] },
  CZ: { valid: ['CZ25123891', 'CZ699001237', 'CZ7103192745'], invalid: ['CZ2512389', 'CZ71031927451'] },
  DE: { valid: ['DE136695976'], invalid: ['DE13669597', 'DE1366959761'] },
  DK: { valid: ['DK12345674', 'DK29190925'], invalid: ['DK1234567', 'DK123456740'] },
  EE: { valid: ['EE100931558'], invalid: ['EE10093155', 'EE10093155A'] },
  EL: { valid: ['EL094259216'], invalid: ['EL09425921', 'EL0942592160'] },
  ES: { valid: ['ESB12345678', 'ESX1234567L', 'ESA1234567B'], invalid: ['ES123456789', 'ESB1234567'] },
  FI: { valid: ['FI20774740'], invalid: ['FI2077474', 'FI207747400'] },
  FR: { valid: ['FR40303265045', 'FRK7399859412', 'FRAB123456789'], invalid: ['FRIO123456789', 'FR4030326504', 'FR403032650451'] },
  HR: { valid: ['HR33392005961'], invalid: ['HR3339200596', 'HR333920059612'] },
  HU: { valid: ['HU12892312'], invalid: ['HU1289231', 'HU128923121'] },
  IE: { valid: ['IE6433435F', 'IE6433435OA', 'IE8D79739I', 'IE1+23456B'], invalid: ['IE6433435', 'IE64334351F', 'IE6433435FZ'] },
  IT: { valid: ['IT00743110157'], invalid: ['IT0074311015', 'IT007431101571'] },
  LT: { valid: ['LT119511515', 'LT100001919017'], invalid: ['LT1195115151', 'LT11951151'] },
  LU: { valid: ['LU15027442'], invalid: ['LU1502744', 'LU150274421'] },
  LV: { valid: ['LV40003521600'], invalid: ['LV4000352160', 'LV400035216001'] },
  MT: { valid: ['MT11679112'], invalid: ['MT1167911', 'MT116791121'] },
  NL: { valid: ['NL004495445B01'], invalid: ['NL004495445', 'NL004495445A01', 'NL04495445B01'] },
  PL: { valid: ['PL8567346215'], invalid: ['PL856734621', 'PL85673462151'] },
  PT: { valid: ['PT501964843'], invalid: ['PT50196484', 'PT5019648431'] },
  RO: { valid: ['RO18547290', 'RO12', 'RO1234567890'], invalid: ['RO1', 'RO12345678901'] },
  SE: { valid: ['SE556188840401'], invalid: ['SE556188840402', 'SE5561888404'] },
  SI: { valid: ['SI50223054'], invalid: ['SI5022305', 'SI502230541'] },
  SK: { valid: ['SK2022749619'], invalid: ['SK202274961', 'SK20227496191'] },
  XI: { valid: ['XI123456789', 'XI123456789012', 'XIGD001', 'XIHA599'], invalid: ['XI1234567890', 'XIGD500', 'XIHA499'] },
};

describe('EU VAT numbers', () => {
  it('has a format for each member state and Northern Ireland', () => {
    const prefixes = Object.keys(CASES);
    expect(prefixes).toHaveLength(28);
    for (const country of EU_COUNTRIES) expect(prefixes, country).toContain(country === 'GR' ? 'EL' : country);
  });

  it.each(Object.entries(CASES))('%s: accepts its format and refuses what misses it', (prefix, { valid, invalid }) => {
    for (const vat of valid) expect(checkVatNumber(vat), vat).toBeUndefined();
    for (const vat of invalid) expect(checkVatNumber(vat), vat).toMatch(new RegExp(`^must be ${prefix} and .+, such as ${prefix}`));
  });

  it('checks a Danish number by the CVR modulus 11 rule', () => {
    expect(checkVatNumber('DK12345678')).toMatch(/wrong check digit .* modulus 11/);
    expect(checkVatNumber('DK01234567')).toMatch(/the first not 0/);
  });

  it('names an unknown prefix, a missing one and GR for Greece', () => {
    expect(checkVatNumber('GB123456789')).toMatch(/^has the prefix GB, which is not an EU VAT number's/);
    expect(checkVatNumber('NO123456789MVA')).toMatch(/prefix NO/);
    expect(checkVatNumber('GR094259216')).toBe('has the prefix GR, but Greek VAT numbers begin with EL (such as EL123456789)');
    for (const text of ['12345674', '', '1DK2345674']) expect(checkVatNumber(text), text).toMatch(/^must begin with the 2-letter prefix of an EU country/);
  });

  it('normalises spaces, dots, hyphens and case, before checking too', () => {
    expect(normalizeVatNumber(' dk 12.34.56-74 ')).toBe('DK12345674');
    expect(normalizeVatNumber('nl0044.95.445.b01')).toBe('NL004495445B01');
    expect(checkVatNumber('de 136 695 976')).toBeUndefined();
    expect(checkVatNumber('se 5561888404-01')).toBeUndefined();
  });

  it("answers a number's ISO country and which countries are in the EU", () => {
    expect(vatNumberCountry('DE136695976')).toBe('DE');
    expect(vatNumberCountry('el094259216')).toBe('GR');
    expect(vatNumberCountry('XI123456789')).toBe('GB');
    expect(EU_COUNTRIES).toHaveLength(27);
    expect(isEuCountry('GR')).toBe(true);
    expect(isEuCountry('DK')).toBe(true);
    for (const code of ['EL', 'GB', 'XI', 'NO', 'dk']) expect(isEuCountry(code), code).toBe(false);
  });
});
