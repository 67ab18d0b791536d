// The EU VAT identification number (momsregistreringsnummer): a country prefix and the number in that
// country's format as VIES publishes it, a Danish one also by the CVR's modulus 11 check. One module
// for the rule: customers and suppliers check it through fields.ts; VAT treatments read its country.
import { checkCvr } from './cvr.ts';

/** The 27 member states, ISO 3166-1 alpha-2 (Greece is GR here; its VAT numbers begin EL). */
export const EU_COUNTRIES: readonly string[] = 'AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK'.split(' ');

export const isEuCountry = (code: string) => EU_COUNTRIES.includes(code);

// Each prefix's format after the prefix, as the VIES help page gives it, with its words for the detail.
// Only the format: the check digits of other states are their own algorithms, and a well-formed number
// can still be unregistered, which only VIES knows (decision 198).
const FORMATS: Record<string, { country: string; pattern: RegExp; shape: string; example: string }> = {
  AT: { country: 'Austria', pattern: /^U\d{8}$/, shape: 'U and 8 digits', example: 'ATU12345678' },
  BE: { country: 'Belgium', pattern: /^[01]\d{9}$/, shape: '10 digits, the first 0 or 1', example: 'BE0123456789' },
  BG: { country: 'Bulgaria', pattern: /^\d{9,10}$/, shape: '9 or 10 digits', example: 'BG123456789' },
  CY: { country: 'Cyprus', pattern: /^\d{8}[A-Z]$/, shape: '8 digits and a letter', example: 'CY12345678L' },
  CZ: { country: 'Czechia', pattern: /^\d{8,10}$/, shape: '8, 9 or 10 digits', example: 'CZ12345678' },
  DE: { country: 'Germany', pattern: /^\d{9}$/, shape: '9 digits', example: 'DE123456789' },
  DK: { country: 'Denmark', pattern: /^\d{8}$/, shape: '8 digits (the CVR number)', example: 'DK12345674' },
  EE: { country: 'Estonia', pattern: /^\d{9}$/, shape: '9 digits', example: 'EE123456789' },
  EL: { country: 'Greece', pattern: /^\d{9}$/, shape: '9 digits', example: 'EL123456789' },
  // First and last a letter or a digit, but not both digits (those are a person's DNI/NIE forms).
  ES: {
    country: 'Spain',
    pattern: /^(?!\d{9}$)[A-Z\d]\d{7}[A-Z\d]$/,
    shape: 'a letter or digit, 7 digits and a letter or digit, not 9 digits',
    example: 'ESB12345678',
  },
  FI: { country: 'Finland', pattern: /^\d{8}$/, shape: '8 digits', example: 'FI12345678' },
  // The 2-character key (digits or letters other than I and O) and the SIREN.
  FR: { country: 'France', pattern: /^[A-HJ-NP-Z\d]{2}\d{9}$/, shape: '2 letters or digits (not I or O) and 9 digits', example: 'FR12345678901' },
  HR: { country: 'Croatia', pattern: /^\d{11}$/, shape: '11 digits', example: 'HR12345678901' },
  HU: { country: 'Hungary', pattern: /^\d{8}$/, shape: '8 digits', example: 'HU12345678' },
  // Since 2013 7 digits and 1 or 2 letters; the older form has a letter, + or * second.
  IE: {
    country: 'Ireland',
    pattern: /^(?:\d{7}[A-W][A-IW]?|\d[A-Z+*]\d{5}[A-W])$/,
    shape: '7 digits and 1 or 2 letters (or a digit, a letter, + or *, 5 digits and a letter)',
    example: 'IE1234567FA',
  },
  IT: { country: 'Italy', pattern: /^\d{11}$/, shape: '11 digits', example: 'IT12345678901' },
  LT: { country: 'Lithuania', pattern: /^(?:\d{9}|\d{12})$/, shape: '9 or 12 digits', example: 'LT123456789' },
  LU: { country: 'Luxembourg', pattern: /^\d{8}$/, shape: '8 digits', example: 'LU12345678' },
  LV: { country: 'Latvia', pattern: /^\d{11}$/, shape: '11 digits', example: 'LV12345678901' },
  MT: { country: 'Malta', pattern: /^\d{8}$/, shape: '8 digits', example: 'MT12345678' },
  NL: { country: 'the Netherlands', pattern: /^\d{9}B\d{2}$/, shape: '9 digits, B and 2 digits', example: 'NL123456789B01' },
  PL: { country: 'Poland', pattern: /^\d{10}$/, shape: '10 digits', example: 'PL1234567890' },
  PT: { country: 'Portugal', pattern: /^\d{9}$/, shape: '9 digits', example: 'PT123456789' },
  RO: { country: 'Romania', pattern: /^\d{2,10}$/, shape: '2 to 10 digits', example: 'RO1234567890' },
  SE: { country: 'Sweden', pattern: /^\d{10}01$/, shape: '12 digits ending in 01', example: 'SE123456789701' },
  SI: { country: 'Slovenia', pattern: /^\d{8}$/, shape: '8 digits', example: 'SI12345678' },
  SK: { country: 'Slovakia', pattern: /^\d{10}$/, shape: '10 digits', example: 'SK1234567890' },
  // A UK number with this prefix for trade in goods with the EU (Windsor Framework); GD: government
  // departments (000-499), HA: health authorities (500-999).
  XI: {
    country: 'Northern Ireland',
    pattern: /^(?:\d{9}|\d{12}|GD[0-4]\d{2}|HA[5-9]\d{2})$/,
    shape: '9 or 12 digits, or GD or HA and 3 digits',
    example: 'XI123456789',
  },
};

/** The VAT number as stored: spaces, dots and hyphens removed, letters upper-cased (dk 12.34.56-74 is DK12345674). */
export const normalizeVatNumber = (text: string) => text.replace(/[\s.-]+/g, '').toUpperCase();

/** Why the text is not a valid EU VAT number (a sentence fragment for the problem detail), or undefined when it is. */
export function checkVatNumber(text: string): string | undefined {
  const vat = normalizeVatNumber(text);
  const prefix = vat.slice(0, 2);
  if (!/^[A-Z]{2}$/.test(prefix)) return 'must begin with the 2-letter prefix of an EU country, such as DE123456789 or DK12345674';
  const format = FORMATS[prefix];
  if (!format) {
    if (prefix === 'GR') return 'has the prefix GR, but Greek VAT numbers begin with EL (such as EL123456789)';
    return `has the prefix ${prefix}, which is not an EU VAT number's (the 27 member states' prefixes, EL for Greece, XI for Northern Ireland)`;
  }
  const rest = vat.slice(2);
  if (!format.pattern.test(rest)) return `must be ${prefix} and ${format.shape} for ${format.country}, such as ${format.example}`;
  // A Danish VAT number is the company's CVR number, whose check digit the CVR module knows.
  return prefix === 'DK' ? checkCvr(rest) : undefined;
}

/** The ISO 3166-1 alpha-2 code of a (valid) VAT number's country: its prefix, but GR for EL and GB for XI. */
export function vatNumberCountry(vatNumber: string): string {
  const prefix = normalizeVatNumber(vatNumber).slice(0, 2);
  return prefix === 'EL' ? 'GR' : prefix === 'XI' ? 'GB' : prefix;
}
