import { describe, expect, it } from 'vitest';
import type { DomainError } from '../../errors.ts';
import { columnsByName } from './columns.ts';

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    const d = e as DomainError;
    return { code: d.code, field: d.field, detail: d.message, ...d.extensions };
  }
  throw new Error('expected a refusal');
};

describe('columnsByName', () => {
  it('reads the layouts the presets do not know by their names, to column numbers', () => {
    expect(columnsByName(['Bogført', 'Posteringstekst', 'Beløb i DKK', 'Saldo'], {})).toEqual({
      mapping: { date: '1', text: '2', amount: '3', balance: '4' },
    });
    expect(columnsByName(['Dato', 'Tekst', 'Ind', 'Ud'], {})).toEqual({ mapping: { date: '1', text: '2', credit: '3', debit: '4' } });
    expect(columnsByName(['\ufeffPosteringsdato ', 'Valørdato', 'BESKRIVELSE', 'Beløb:', 'Valuta'], {})).toEqual({
      mapping: { date: '1', value_date: '2', text: '3', amount: '4', currency: '5' },
    });
  });
  it('takes a value date for the date when the header names no booking date', () => {
    expect(columnsByName(['Rentedato', 'Tekst', 'Beløb'], {})).toEqual({ mapping: { date: '1', text: '2', amount: '3' } });
  });
  it('tells what a header lacks', () => {
    expect(columnsByName(['Dato', 'Beløb'], {})).toEqual({ missing: ['a text'] });
    expect(columnsByName(['Dato', 'Tekst', 'Ind'], {})).toEqual({ missing: ['an amount (or money out and money in)'] });
  });
  it('refuses a header that fits two readings, listing the columns and the choices', () => {
    const r = refusal(() => columnsByName(['Dato', 'Bogføringsdato', 'Tekst', 'Beløb', 'Ind', 'Ud'], {}));
    expect(r).toMatchObject({
      code: 'bank_file_invalid',
      field: 'header',
      columns: ['Dato', 'Bogføringsdato', 'Tekst', 'Beløb', 'Ind', 'Ud'],
      choices: [
        { column: 'amount_or_debit_credit', parameter: 'amount_column, or debit_column and credit_column', options: ['Beløb', 'Ud', 'Ind'] },
        { column: 'date', parameter: 'date_column', options: ['Dato', 'Bogføringsdato'] },
      ],
    });
    expect(r.detail).toContain('the booking date is "Dato" or "Bogføringsdato" (choose with date_column)');
  });
  it('lets the parameters choose: a given column is no longer a candidate', () => {
    expect(columnsByName(['Dato', 'Bogføringsdato', 'Tekst', 'Beløb'], { date: 'Bogføringsdato' })).toEqual({ mapping: { text: '3', amount: '4' } });
    expect(columnsByName(['Dato', 'Tekst', 'Beløb', 'Ind', 'Ud'], { amount: 'Beløb' })).toEqual({ mapping: { date: '1', text: '2' } });
  });
});
