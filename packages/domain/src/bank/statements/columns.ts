// A Danish bank's CSV read by its column names: when no preset fits the header, the header's own names
// say which column is the date, the text and the amount (or money out and money in), in any of the
// names the banks' exports use. A header that fits two readings is refused with the columns and the
// choices, never guessed. Pure; docs/bank-statements.md ("Columns by name"), decisions 655-658.
import { DomainError } from '../../errors.ts';
import type { CsvColumn, CsvMapping } from './options.ts';

/**
 * The names each column goes by in the banks' exports (compared case-insensitively, spaces collapsed,
 * a trailing colon or period dropped). Danish first, then the English of the banks' English pages.
 */
export const HEADER_NAMES = {
  date: ['Dato', 'Bogføringsdato', 'Bogført', 'Bogført dato', 'Bogføringsdag', 'Posteringsdato', 'Transaktionsdato', 'Date', 'Booking date', 'Posting date'],
  value_date: ['Rentedato', 'Valørdato', 'Valør', 'Rentedag', 'Valuteringsdato', 'Value date'],
  text: ['Tekst', 'Beskrivelse', 'Posteringstekst', 'Transaktionstekst', 'Text', 'Description'],
  amount: ['Beløb', 'Beløb i DKK', 'Beløb DKK', 'Beløb (DKK)', 'Beløb i kr.', 'Bogført beløb', 'Amount', 'Amount DKK'],
  debit: ['Ud', 'Udbetaling', 'Udbetalinger', 'Hævet', 'Debet', 'Debit'],
  credit: ['Ind', 'Indbetaling', 'Indbetalinger', 'Indsat', 'Kredit', 'Credit'],
  balance: ['Saldo', 'Saldo i DKK', 'Saldo DKK', 'Bogført saldo', 'Balance'],
  currency: ['Valuta', 'Currency'],
  counterparty: ['Modpart', 'Modtager/afsender', 'Afsender/modtager'],
  reference: ['Reference', 'Betalingsreference', 'Betalings-id', 'Betalingsid'],
} as const satisfies Record<CsvColumn, readonly string[]>;

/** A header name as compared: BOM, case, runs of spaces and a trailing colon or period do not count. */
export const headerKey = (s: string) =>
  s
    .replace(/^\ufeff/, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[:.]$/, '')
    .toLowerCase();

const NAME_OF = new Map<string, CsvColumn>();
for (const [column, names] of Object.entries(HEADER_NAMES) as [CsvColumn, readonly string[]][]) {
  for (const n of names) NAME_OF.set(headerKey(n), column);
}

/** What a column of a reading is called in words. */
const ROLE: Record<CsvColumn, string> = {
  date: 'the booking date',
  value_date: 'the value date',
  text: 'the text',
  amount: 'the amount',
  debit: 'money out',
  credit: 'money in',
  balance: 'the balance',
  currency: 'the currency',
  counterparty: 'the counterparty',
  reference: 'the reference',
};

export interface ByName {
  mapping: CsvMapping;
}
export interface Unreadable {
  /** The required columns the header does not name. */
  missing: string[];
}

/**
 * The reading of a header by its names, the columns `given` (the request's *_column parameters) taking
 * precedence. Answers the mapping (by column number, so a repeated name is never taken for the other),
 * what is missing for one, or throws the 400 of a header that fits two readings.
 */
export function columnsByName(header: readonly string[], given: CsvMapping): ByName | Unreadable {
  const taken = new Set<number>();
  for (const ref of Object.values(given)) {
    const i = /^\d+$/.test(ref) ? Number(ref) - 1 : header.findIndex((h) => headerKey(h) === headerKey(ref));
    if (i >= 0) taken.add(i);
  }
  const found = new Map<CsvColumn, number[]>();
  header.forEach((h, i) => {
    const column = NAME_OF.get(headerKey(h));
    if (column === undefined || taken.has(i)) return;
    found.set(column, [...(found.get(column) ?? []), i]);
  });
  const at = (c: CsvColumn) => found.get(c) ?? [];
  const name = (i: number) => JSON.stringify(header[i]!.trim());
  const choices: { column: CsvColumn | 'amount_or_debit_credit'; parameter: string; options: string[] }[] = [];

  // The amount: one signed column, or money out and money in; a header with both fits two readings.
  const amountGiven = given.amount !== undefined || given.debit !== undefined || given.credit !== undefined;
  if (amountGiven) {
    found.delete('amount');
    if (given.amount !== undefined || (given.debit !== undefined && given.credit !== undefined)) {
      found.delete('debit');
      found.delete('credit');
    }
  } else if (at('amount').length && (at('debit').length || at('credit').length)) {
    choices.push({
      column: 'amount_or_debit_credit',
      parameter: 'amount_column, or debit_column and credit_column',
      options: [...at('amount').map(name), ...[...at('debit'), ...at('credit')].map(name)],
    });
  }
  // A value date is the date when the header names no booking date.
  if (given.date === undefined && !at('date').length && at('value_date').length === 1 && given.value_date === undefined) {
    found.set('date', at('value_date'));
    found.delete('value_date');
  }
  for (const [column, indexes] of found) {
    if (indexes.length > 1 && given[column] === undefined) {
      choices.push({ column, parameter: `${column}_column`, options: indexes.map(name) });
    }
  }
  if (choices.length) {
    const words = choices.map((c) =>
      c.column === 'amount_or_debit_credit'
        ? `the amount is ${c.options.filter((_, i) => i < at('amount').length).join(' or ')}, or money out and in are ${c.options.slice(at('amount').length).join(' and ')} (choose with amount_column, or debit_column and credit_column)`
        : `${ROLE[c.column]} is ${c.options.join(' or ')} (choose with ${c.parameter})`,
    );
    throw new DomainError(
      'bank_file_invalid',
      `The CSV header (${header.map((h) => JSON.stringify(h.trim())).join(', ')}) fits more than one reading: ${words.join('; ')}.`.slice(0, 2000),
      'header',
      {
        columns: header.map((h) => h.trim()),
        choices: choices.map((c) => ({ column: c.column, parameter: c.parameter, options: c.options.map((o) => JSON.parse(o) as string) })),
      },
    );
  }

  const mapping: CsvMapping = {};
  for (const [column, indexes] of found) {
    if (given[column] === undefined && indexes.length === 1) mapping[column] = String(indexes[0]! + 1);
  }
  const has = (c: CsvColumn) => given[c] !== undefined || mapping[c] !== undefined;
  const missing: string[] = [];
  if (!has('date')) missing.push('a date');
  if (!has('text')) missing.push('a text');
  if (!has('amount') && !(has('debit') && has('credit'))) missing.push('an amount (or money out and money in)');
  return missing.length ? { missing } : { mapping };
}
