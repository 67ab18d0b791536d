// The Peppol participant identifier (endpoint id) `<scheme>:<id>`: the scheme is a 4-digit ICD from Peppol's
// code list of electronic address schemes (EAS), and the id is in that scheme's format, with its check digits
// where it has them. One module for the rule: customers, suppliers, the company's settings and the customer
// lookup check it through fields.ts; e-invoices read its scheme and id (decisions 204 to 206).
import { checkIban } from './bank.ts';
import { checkCvr, passesCvrModulus11 } from './cvr.ts';
import { checkVatNumber } from './vat-number.ts';

interface Scheme {
  name: string;
  /** What the id after `<scheme>:` (upper-cased) must match. */
  pattern: RegExp;
  shape: string;
  example?: string;
  /** The check digits, when the shape fits. */
  check?: (id: string) => string | undefined;
  /** An EU VAT scheme: the prefix of the VAT numbers it holds. */
  vatPrefix?: string;
}

const wrongCheckDigit = (what: string) => `has a wrong check digit (not a valid ${what}; check for a typing error)`;
const digitsOf = (id: string) => [...id.replace(/\D/g, '')].map(Number);

// GS1's check digit (GLN, EAN): from the right, the digits before it weighted 3, 1, 3, ...
function gs1(id: string) {
  const d = digitsOf(id);
  const sum = d.slice(0, -1).reduce((acc, n, i, all) => acc + n * ((all.length - i) % 2 === 1 ? 3 : 1), 0);
  return (10 - (sum % 10)) % 10 === d.at(-1) ? undefined : wrongCheckDigit('GLN by the GS1 check digit rule');
}
// Luhn (a Swedish organisationsnummer): every second digit from the right doubled, digit sums added.
function luhn(id: string) {
  const sum = digitsOf(id)
    .reverse()
    .reduce((acc, n, i) => acc + (i % 2 === 1 ? (n * 2 > 9 ? n * 2 - 9 : n * 2) : n), 0);
  return sum % 10 === 0 ? undefined : wrongCheckDigit('Swedish organisationsnummer by the Luhn rule');
}
// The Norwegian organisasjonsnummer: weights 3, 2, 7, 6, 5, 4, 3, 2; 11 minus the remainder is the last digit.
function norwegianModulus11(id: string) {
  const d = digitsOf(id);
  const sum = [3, 2, 7, 6, 5, 4, 3, 2].reduce((acc, w, i) => acc + w * d[i]!, 0);
  return (11 - (sum % 11)) % 11 === d[8] ? undefined : wrongCheckDigit('Norwegian organisasjonsnummer by the modulus 11 rule');
}
// The Belgian enterprise number: its last 2 digits are 97 minus the first 8 modulo 97.
const belgianModulus97 = (id: string) =>
  97 - (Number(id.slice(0, 8)) % 97) === Number(id.slice(8)) ? undefined : wrongCheckDigit('Belgian enterprise number by the modulus 97 rule');
// The Australian ABN: 1 subtracted from the first digit, weighted 10, 1, 3, 5, ..., 19, a multiple of 89.
function abn(id: string) {
  const d = digitsOf(id);
  d[0]! -= 1;
  const sum = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19].reduce((acc, w, i) => acc + w * d[i]!, 0);
  return sum % 89 === 0 ? undefined : wrongCheckDigit('Australian Business Number by the modulus 89 rule');
}
const seNumber = (id: string) => (passesCvrModulus11(id.slice(2)) ? undefined : wrongCheckDigit('SE number by the modulus 11 rule'));

// Schemes whose formats no code list gives: what Peppol allows of any participant id (POLICY 2 of its
// policy for the use of identifiers: at most 130 characters, here with the scheme and colon, and no spaces).
const ANY = { pattern: /^[!-~]{1,125}$/, shape: '1 to 125 letters, digits or signs without spaces' };
const any = (name: string): Scheme => ({ name, ...ANY });
const digits = (name: string, count: string, example: string): Scheme => ({
  name,
  pattern: new RegExp(`^\\d{${count.replace('-', ',')}}$`),
  shape: `${count.replace('-', ' to ')} digits`,
  example,
});
// The EU's VAT schemes: the VAT number with its country's prefix, as identifiers/vat-number.ts checks it.
const euVat = (prefix: string, country: string, example: string): Scheme => ({
  name: country,
  pattern: new RegExp(`^${prefix}[A-Z\\d+*]+$`),
  shape: `the VAT number with its prefix ${prefix}`,
  example,
  check: checkVatNumber,
  vatPrefix: prefix,
});
const otherVat = (country: string): Scheme => ({ name: country, pattern: /^[A-Z\d]{2,30}$/, shape: 'a VAT number of 2 to 30 letters and digits' });

/**
 * The electronic address schemes a Peppol BIS Billing 3.0 EndpointID may have (its rule PEPPOL-EN16931-CL008,
 * release 3.0.19), each with its id's format from Peppol's participant identifier code list. Check digits
 * are computed where the BIS rules do (GLN, the Swedish, Norwegian, Belgian and Australian numbers), for the
 * Danish CVR and SE numbers (the CVR's modulus 11; the BIS checks only a CVR's shape) and where a module of
 * ours already knows them (IBAN, EU VAT), so that no stored id can make an e-invoice fail those rules.
 */
const SCHEMES: Record<string, Scheme> = {
  '0002': { name: 'a French SIREN or SIRET number', pattern: /^(?:\d{9}|\d{14})$/, shape: '9 or 14 digits', example: '784301772' },
  '0007': { ...digits('a Swedish organisationsnummer', '10', '2120000787'), check: luhn },
  '0009': digits('a French SIRET number', '14', '78430177200025'),
  '0037': digits('a Finnish LY-tunnus (OVT)', '8-17', '1234567800001'),
  '0060': { name: 'a D-U-N-S number', pattern: /^(?:\d{9}|\d{11})$/, shape: '9 or 11 digits', example: '812810734' },
  '0088': { ...digits('a GLN (GS1 location number, EAN)', '13', '5790000436101'), check: gs1 },
  '0096': digits('a Danish P-number', '10', '1012345678'),
  '0097': digits('an FTI Ediforum Italia id', '11-16', '12345671234'),
  '0106': digits('a Dutch KvK number', '8-17', '12345678'),
  '0130': any('Directorates of the European Commission'),
  '0135': any('SIA Object Identifiers (Italy)'),
  '0142': any('SECETI Object Identifiers (Italy)'),
  '0147': any('a Standard Company Code (Japan)'),
  '0151': { ...digits('an Australian Business Number', '11', '51824753556'), check: abn },
  '0154': any('an identification number of economic subjects (ICO)'),
  '0158': any('an identification number of economic subject (ICO) by the Act on State Statistics'),
  '0170': any('a Teikoku Company Code (Japan)'),
  '0177': any('Odette International'),
  '0183': { name: 'a Swiss UID number', pattern: /^CHE\d{9}$/, shape: 'CHE and 9 digits', example: 'CHE123456789' },
  // The code list writes 8 digits; the BIS rule PEPPOL-COMMON-R042 also accepts DK and 8 digits.
  '0184': {
    name: 'a Danish CVR number',
    pattern: /^(?:DK)?\d{8}$/,
    shape: '8 digits (or DK and 8 digits)',
    example: '12345674',
    check: (id) => checkCvr(id.replace(/^DK/, '')),
  },
  '0188': digits('a Japanese Corporate Number', '13', '1234567890123'),
  '0190': digits('a Dutch OIN', '20', '00000001820029336000'),
  '0191': digits('an Estonian company code', '8', '10137025'),
  '0192': { ...digits('a Norwegian organisasjonsnummer', '9', '974760673'), check: norwegianModulus11 },
  '0193': { name: 'a UBL.BE party identifier', pattern: /^[!-~]{1,50}$/, shape: 'at most 50 letters, digits or signs without spaces' },
  '0194': any('KOIOS Open Technical Dictionary'),
  '0195': any('a Singapore UEN'),
  '0196': digits('an Icelandic kennitala', '10', '1234567890'),
  // The code list writes the SE number as DK and 8 digits; like a CVR it passes modulus 11.
  '0198': { name: 'a Danish SE number', pattern: /^DK\d{8}$/, shape: 'DK and 8 digits', example: 'DK12345674', check: seNumber },
  '0199': {
    name: 'a Legal Entity Identifier (LEI)',
    pattern: /^[A-Z\d]{18}\d{2}$/,
    shape: '18 letters or digits and 2 digits',
    example: '5493001KJTIIGC8Y1R12',
  },
  '0200': digits('a Lithuanian legal entity code', '9', '111963319'),
  '0201': { name: 'an Italian IPA code', pattern: /^[A-Z\d]{6}$/, shape: '6 letters or digits', example: 'UFY9MH' },
  '0202': any('an Italian certified e-mail address (PEC)'),
  '0203': any('an eDelivery network participant identifier'),
  '0204': {
    name: 'a German Leitweg-ID',
    pattern: /^\d{2,12}(?:-[A-Z\d]{1,30})?-\d{2}$/,
    shape: 'up to 12 digits, optionally - and up to 30 letters or digits, then - and 2 digits',
    example: '991-33333TEST-33',
  },
  '0205': { name: 'an Italian CODDEST', pattern: /^[A-Z\d]{7}$/, shape: '7 letters or digits', example: 'ABC1234' },
  '0208': {
    name: 'a Belgian enterprise number',
    pattern: /^[01]\d{9}$/,
    shape: '10 digits, the first 0 or 1',
    example: '0403170701',
    check: belgianModulus97,
  },
  '0209': any('GS1 identification keys'),
  '0210': { name: 'an Italian codice fiscale', pattern: /^(?:[A-Z\d]{16}|\d{11})$/, shape: '16 letters or digits, or 11 digits', example: '12345678901' },
  '0211': { name: 'an Italian partita IVA', pattern: /^(?:IT)?\d{11}$/, shape: 'IT and 11 digits', example: 'IT00743110157' },
  '0212': { name: 'a Finnish organisation identifier', pattern: /^\d{7}-\d$/, shape: '7 digits, - and a digit', example: '1234567-8' },
  '0213': euVat('FI', 'Finland', 'FI20774740'),
  '0215': { name: 'a Finnish net service ID', pattern: /^[A-Z\d]{1,35}$/, shape: 'up to 35 letters or digits', example: 'TE003701011385TEST' },
  '0216': { name: 'a Finnish OVT code', pattern: /^0037\d{8}[A-Z\d]{0,5}$/, shape: '0037, 8 digits and up to 5 letters or digits', example: '003701234567' },
  '0217': digits('a Dutch KvK establishment number', '12', '000012345678'),
  '0218': { name: 'a Latvian unified registration number', pattern: /^(?:\d{9}|\d{11})$/, shape: '9 or 11 digits', example: '40003521600' },
  '0221': { name: 'a Japanese qualified invoice issuer number', pattern: /^T\d{13}$/, shape: 'T and 13 digits', example: 'T1234567890123' },
  '0225': { name: 'a French CTC electronic address', pattern: /^[A-Z\d_-]{1,125}$/, shape: 'letters, digits, - and _', example: '784301772_00025' },
  '0230': any('a Malaysian National e-Invoicing Framework id'),
  '0235': { name: 'a UAE Tax Identification Number', pattern: /^1\d{9}$/, shape: '10 digits, the first 1', example: '1234567890' },
  '0240': digits('a Luxembourg register of legal persons number', '11', '20001234567'),
  '9910': euVat('HU', 'Hungary', 'HU12892312'),
  '9913': any('a Business Registers Network id (EU)'),
  '9914': euVat('AT', 'Austria', 'ATU13585627'),
  '9915': any('an Austrian administration code'),
  '9918': { name: 'an IBAN', pattern: /^[A-Z]{2}\d{2}[A-Z\d]{11,30}$/, shape: 'an IBAN', example: 'DK5000400440116243', check: checkIban },
  '9919': {
    name: 'an Austrian Unternehmensregister number',
    pattern: /^[A-Z]\d{3}[A-Z]\d{3}[A-Z]$/,
    shape: 'a letter, 3 digits, a letter, 3 digits and a letter',
    example: 'A123B456C',
  },
  '9920': euVat('ES', 'Spain', 'ESB12345678'),
  '9922': otherVat('Andorra'),
  '9923': otherVat('Albania'),
  '9924': otherVat('Bosnia and Herzegovina'),
  '9925': euVat('BE', 'Belgium', 'BE0403170701'),
  '9926': euVat('BG', 'Bulgaria', 'BG175074752'),
  '9927': otherVat('Switzerland'),
  '9928': euVat('CY', 'Cyprus', 'CY10259033P'),
  '9929': euVat('CZ', 'Czechia', 'CZ25123891'),
  '9930': euVat('DE', 'Germany', 'DE136695976'),
  '9931': euVat('EE', 'Estonia', 'EE100931558'),
  '9932': otherVat('the United Kingdom'),
  '9933': euVat('EL', 'Greece', 'EL094259216'),
  '9934': euVat('HR', 'Croatia', 'HR33392005961'),
  '9935': euVat('IE', 'Ireland', 'IE6433435F'),
  '9936': otherVat('Liechtenstein'),
  '9937': euVat('LT', 'Lithuania', 'LT119511515'),
  '9938': euVat('LU', 'Luxembourg', 'LU15027442'),
  '9939': euVat('LV', 'Latvia', 'LV40003521600'),
  '9940': otherVat('Monaco'),
  '9941': otherVat('Montenegro'),
  '9942': otherVat('North Macedonia'),
  '9943': euVat('MT', 'Malta', 'MT11679112'),
  '9944': euVat('NL', 'the Netherlands', 'NL004495445B01'),
  '9945': euVat('PL', 'Poland', 'PL8567346215'),
  '9946': euVat('PT', 'Portugal', 'PT501964843'),
  '9947': euVat('RO', 'Romania', 'RO18547290'),
  '9948': otherVat('Serbia'),
  '9949': euVat('SI', 'Slovenia', 'SI50223054'),
  '9950': euVat('SK', 'Slovakia', 'SK2022749619'),
  '9951': otherVat('San Marino'),
  '9952': otherVat('Turkey'),
  '9953': otherVat('the Holy See (Vatican City State)'),
  '9957': euVat('FR', 'France', 'FR40303265045'),
  '9959': { name: 'a US Employer Identification Number', pattern: /^\d{2}-?\d{7}$/, shape: '9 digits (a - after the second allowed)', example: '123456789' },
};

// Where the code list has no VAT scheme for a prefix: Italy's partita IVA, Sweden's organisation number
// (the 10 digits inside its VAT number) and Northern Ireland's XI numbers under the UK's VAT scheme.
const VAT_NUMBER_FALLBACKS: Readonly<Record<string, (vatNumber: string) => string>> = {
  IT: (v) => `0211:${v}`,
  SE: (v) => `0007:${v.slice(2, 12)}`,
  XI: (v) => `9932:${v}`,
};

/**
 * The participant id an EU VAT number gives a party that names none of its own: the VAT scheme of its
 * prefix (9910–9957, Finland's 0213), else the fallback above; '' for a prefix with neither (DK: a Danish
 * party is addressed by its CVR, 0184).
 */
export function peppolIdOfVatNumber(vatNumber: string): string {
  const prefix = vatNumber.slice(0, 2);
  const scheme = Object.entries(SCHEMES).find(([, s]) => s.vatPrefix === prefix)?.[0];
  return scheme ? `${scheme}:${vatNumber}` : (VAT_NUMBER_FALLBACKS[prefix]?.(vatNumber) ?? '');
}

/** The schemes (ICD codes) accepted, as Peppol BIS Billing 3.0 lists them for an EndpointID. */
export const PEPPOL_SCHEMES: readonly string[] = Object.keys(SCHEMES).sort();

/** The participant identifier scheme Peppol's SML and SMP write before the id; accepted and dropped. */
const UPIS = 'ISO6523-ACTORID-UPIS::';

/**
 * The id as stored: spaces removed, letters upper-cased (Peppol compares participant ids case-insensitively)
 * and a leading `iso6523-actorid-upis::` dropped, so `iso6523-actorid-upis::0088:5790 0004 36101` is
 * `0088:5790000436101`.
 */
export function normalizePeppolId(text: string): string {
  const id = text.replace(/\s+/g, '').toUpperCase();
  return id.startsWith(UPIS) ? id.slice(UPIS.length) : id;
}

/** Why the text is not a valid Peppol participant identifier (a sentence fragment for the problem detail), or undefined when it is. */
export function checkPeppolId(text: string): string | undefined {
  const m = /^(\d{4}):(.+)$/.exec(normalizePeppolId(text));
  if (!m)
    return 'must be a Peppol participant identifier: a 4-digit scheme, a colon and the id, such as 0184:12345674 (a CVR number) or 0088:5790000436101 (a GLN)';
  const [, code, id] = m as unknown as [string, string, string];
  const scheme = SCHEMES[code];
  if (!scheme)
    return `has the scheme ${code}, which is not in Peppol's list of electronic address schemes (such as 0184 for a CVR number, 0198 for an SE number, 0088 for a GLN)`;
  if (!scheme.pattern.test(id)) return `must be ${code}: and ${scheme.shape} for ${scheme.name}${scheme.example ? `, such as ${code}:${scheme.example}` : ''}`;
  return scheme.check?.(id);
}

/** The scheme and id of a valid Peppol participant identifier (UBL's EndpointID `schemeID` and value); throws on an invalid one. */
export function parsePeppolId(text: string): { scheme: string; id: string } {
  const why = checkPeppolId(text);
  if (why) throw new Error(`Not a Peppol participant identifier: ${text} ${why}`);
  const id = normalizePeppolId(text);
  return { scheme: id.slice(0, 4), id: id.slice(5) };
}

/** The company's own endpoint on its e-invoices: its `peppol_id`, or else its CVR number in scheme 0184, or "" (decision 206). */
export const companyPeppolId = (company: { peppol_id: string; cvr: string | null }) => company.peppol_id || (company.cvr ? `0184:${company.cvr}` : '');

/** The VAT number prefix of a Peppol EU VAT scheme (9930 → DE), or undefined for a scheme that holds no VAT numbers. */
export const peppolVatPrefix = (scheme: string): string | undefined => SCHEMES[scheme]?.vatPrefix;
