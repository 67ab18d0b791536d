// FI payments (Fælles Indbetalingskort, Danish "FIK"), card type +71: the company's FI creditor number
// (kreditornummer) and the 15-digit payment id (betalings-id) an approved invoice carries, by which the
// payer's bank reports whose payment it is. One module for the rules: the settings schema checks the
// creditor number through fields.ts, the approval derives the id, the PDF prints the payment line and
// the e-invoice names both in its PaymentMeans (decisions 245 to 249).

/** The creditor number as stored: spaces removed. */
export const normalizeFiCreditorNumber = (text: string) => text.replace(/\s+/g, '');

/** Why the text is not an FI creditor number (a sentence fragment for the problem detail), or undefined when it is. */
export function checkFiCreditorNumber(text: string): string | undefined {
  return /^8\d{7}$/.test(normalizeFiCreditorNumber(text))
    ? undefined
    : 'must be an FI creditor number (kreditornummer): 8 digits, the first 8, such as 81234567';
}

/** A +71 payment id has 14 digits of reference and a check digit. */
const REFERENCE_DIGITS = 14;

/**
 * The FI modulus 10 check digit of `digits`: from the right, the digits weighted 2, 1, 2, 1, ... (the
 * check digit itself would take weight 1), each product's digit sum added; the check digit makes the
 * total a multiple of 10. This is Luhn's rule.
 */
export function fiCheckDigit(digits: string): number {
  if (!/^\d+$/.test(digits)) throw new Error(`An FI check digit is computed over digits, not "${digits}"`);
  const sum = [...digits]
    .reverse()
    .map(Number)
    .reduce((acc, d, i) => {
      const product = d * (i % 2 === 0 ? 2 : 1);
      return acc + (product > 9 ? product - 9 : product);
    }, 0);
  return (10 - (sum % 10)) % 10;
}

/**
 * The +71 payment id of an invoice: its number (the unified document number, digits) left-padded with
 * zeros to 14 digits, then the check digit. 173 -> 000000000001735.
 */
export function fiPaymentId(invoiceNumber: string): string {
  if (!/^\d+$/.test(invoiceNumber) || invoiceNumber.length > REFERENCE_DIGITS) {
    throw new Error(`An FI payment id is made of an invoice number of 1 to ${REFERENCE_DIGITS} digits, not "${invoiceNumber}"`);
  }
  const reference = invoiceNumber.padStart(REFERENCE_DIGITS, '0');
  return `${reference}${fiCheckDigit(reference)}`;
}

/** Whether `id` is a 15-digit +71 payment id whose last digit is its check digit. */
export const isFiPaymentId = (id: string) => /^\d{15}$/.test(id) && fiCheckDigit(id.slice(0, REFERENCE_DIGITS)) === Number(id.slice(REFERENCE_DIGITS));

/** The payment line as the payer types it into the bank: `+71<payment id> +<creditor number><`. */
export const fiPaymentLine = (paymentId: string, creditorNumber: string) => `+71<${paymentId} +${creditorNumber}<`;

/** The PaymentID of a UBL PaymentMeans with code 93 (FIK): the card type, #, the payment id (Danish rule DK-R-010). */
export const fiUblPaymentId = (paymentId: string) => `71#${paymentId}`;
