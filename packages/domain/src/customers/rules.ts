// Pure rules for customers: how e-mail and telephone numbers are normalised for lookups.

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/** Digits only; a Danish +45 / 0045 prefix is dropped so "+45 12 34 56 78" finds "12345678". */
export function normalisePhone(phone: string): string {
  const trimmed = phone.trim();
  let digits = trimmed.replace(/\D/g, '');
  if (trimmed.startsWith('+45') && digits.length === 10) digits = digits.slice(2);
  else if (digits.startsWith('0045') && digits.length === 12) digits = digits.slice(4);
  return digits;
}
