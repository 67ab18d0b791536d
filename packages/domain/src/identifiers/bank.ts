// Where a company is paid, as its invoices print it: a Danish bank account (registreringsnummer of 4
// digits and a kontonummer of up to 10) and an IBAN, checked by its ISO 13616 mod-97 check digits.
// One module for these rules: the company profile (REST, CLI, admin app) and suppliers validate through
// it, by the field schemas of fields.ts.

/** The IBAN in its electronic form: spaces removed, letters upper-cased. */
export const normalizeIban = (iban: string) => iban.replace(/\s+/g, '').toUpperCase();

/** Printed in groups of four, as banks and invoices show it (DK50 0040 0440 1162 43). */
export const printIban = (iban: string) => normalizeIban(iban).replace(/(.{4})(?=.)/g, '$1 ');

// Lengths of the IBANs of the countries a Danish company most often banks in; others: 15 to 34.
const IBAN_LENGTHS: Record<string, number> = { DK: 18, FO: 18, GL: 18, NO: 15, SE: 24, FI: 18, DE: 22, NL: 18, GB: 22, IS: 26 };

/** Why the text is not a valid IBAN (a sentence fragment for the problem detail), or undefined when it is. */
export function checkIban(text: string): string | undefined {
  const iban = normalizeIban(text);
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban))
    return 'must be an IBAN: a country code, 2 check digits and up to 30 letters or digits, such as DK5000400440116243';
  const expected = IBAN_LENGTHS[iban.slice(0, 2)];
  if (expected !== undefined && iban.length !== expected) return `must have ${expected} characters for ${iban.slice(0, 2)} (this has ${iban.length})`;
  // Move the first four characters to the end, letters become 10..35, the number mod 97 must be 1.
  const digits = (iban.slice(4) + iban.slice(0, 4)).replace(/[A-Z]/g, (ch) => String(ch.charCodeAt(0) - 55));
  let rest = 0;
  for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  return rest === 1 ? undefined : 'has wrong check digits (not a valid IBAN; check for a typing error)';
}

export const BANK_REG_NUMBER = /^\d{4}$/;
export const BANK_ACCOUNT_NUMBER = /^\d{1,10}$/;
