// What a bank line says about whom it pays, pure: the FI payment ids and invoice numbers in its text,
// whether it names a supplier, and the order suggestions are shown in (find-candidates.ts, auto-match.ts).
import { isFiPaymentId } from '../identifiers/fi-payment.ts';

/** A registration an unmatched line may pay, with why it was thought of (best first: score). */
export interface Suggestion {
  type: 'invoice' | 'expense' | 'transaction';
  id: string;
  score: number;
  reasons: string[];
}

/**
 * The valid +71 payment ids in a text: 15 digits standing alone (or after `+71<` / `71`), whose check
 * digit holds, so a 15-digit account number is not taken for one by chance.
 */
export function fiPaymentIdsIn(text: string): string[] {
  const ids = new Set<string>();
  for (const m of text.matchAll(/(?<!\d)(?:71)?(\d{15})(?!\d)/g)) if (isFiPaymentId(m[1]!)) ids.add(m[1]!);
  return [...ids];
}

/** The words of a text that could be an invoice number: those holding a digit, at most 40 characters (leading zeros kept and dropped). */
export function candidateTokens(text: string): string[] {
  const tokens = new Set<string>();
  for (const word of text.split(/[^\p{L}\p{N}-]+/u)) {
    if (!/\d/.test(word) || word.length > 40) continue;
    tokens.add(word);
    const digits = word.replace(/^0+(?=\d)/, '');
    if (digits !== word) tokens.add(digits);
  }
  return [...tokens];
}

const letters = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
const compactIban = (s: string) => s.replace(/\s+/g, '').toUpperCase();

/**
 * Why the line names the supplier, or undefined: the counterparty's IBAN is the supplier's, or the
 * supplier's name (at least 3 letters, case, spaces and punctuation aside) is the counterparty's or
 * appears in it or in the text.
 */
export function sameParty(
  supplier: { name: string; iban: string },
  line: { counterparty_name: string; counterparty_iban: string; text: string },
): string | undefined {
  if (supplier.iban && line.counterparty_iban && compactIban(supplier.iban) === compactIban(line.counterparty_iban))
    return `the supplier's IBAN ${supplier.iban}`;
  const name = letters(supplier.name);
  if (name.length < 3) return undefined;
  const party = letters(line.counterparty_name);
  if (party && (party.includes(name) || (party.length >= 3 && name.includes(party)))) return `the supplier's name ${supplier.name}`;
  if (letters(line.text).includes(name)) return `the supplier's name ${supplier.name} in the text`;
  return undefined;
}

/** Suggestions best first, each registration once (its best reason set), at most 10. */
export function rankSuggestions(all: readonly Suggestion[]): Suggestion[] {
  const best = new Map<string, Suggestion>();
  for (const s of all) {
    const key = `${s.type}:${s.id}`;
    const seen = best.get(key);
    if (!seen || s.score > seen.score) best.set(key, s);
  }
  return [...best.values()].sort((a, b) => b.score - a.score || a.id.localeCompare(b.id)).slice(0, 10);
}
