// The Danish CVR number (Det Centrale Virksomhedsregister): 8 digits, the first not 0, whose digits
// weighted 2, 7, 6, 5, 4, 3, 2, 1 sum to a multiple of 11 (the register's modulus 11 check).
// One module for the rule: customers, suppliers, the customer lookup, company creation, the settings
// endpoint, the CLI and the owner pages check a CVR through it; the SAF-T export reads its shape.

/** The CVR as stored: whitespace removed, so "12 34 56 74", as people write it, is 12345674. */
export const normalizeCvr = (text: string) => text.replace(/\s+/g, '');

/** The register's numbers run from 10000000 to 99999999 (SAF-T's DanishCvrNumber has the same bounds). */
export const CVR_SHAPE = /^[1-9]\d{7}$/;

const WEIGHTS = [2, 7, 6, 5, 4, 3, 2, 1] as const;

/** The register's modulus 11 check of 8 digits, which SE numbers (Peppol scheme 0198) pass too. */
export const passesCvrModulus11 = (digits: string) => WEIGHTS.reduce((acc, weight, i) => acc + weight * Number(digits[i]), 0) % 11 === 0;

/** Why the text is not a valid CVR number (a sentence fragment for the problem detail), or undefined when it is. */
export function checkCvr(text: string): string | undefined {
  const cvr = normalizeCvr(text);
  if (!CVR_SHAPE.test(cvr)) return 'must have 8 digits, the first not 0 (a Danish CVR number such as 12345674)';
  return passesCvrModulus11(cvr) ? undefined : 'has a wrong check digit (not a valid CVR number by the modulus 11 rule; check for a typing error)';
}
