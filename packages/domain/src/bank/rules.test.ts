import { describe, expect, it } from 'vitest';
import { fiPaymentId } from '../identifiers/fi-payment.ts';
import { candidateTokens, fiPaymentIdsIn, rankSuggestions, sameParty } from './rules.ts';

describe('fiPaymentIdsIn', () => {
  const id = fiPaymentId('1042'); // 000000000010427 or so: a valid +71 id
  it('finds an id alone, after +71< and glued to 71', () => {
    expect(fiPaymentIdsIn(`Indbetaling ${id}`)).toEqual([id]);
    expect(fiPaymentIdsIn(`+71<${id} +81234567<`)).toEqual([id]);
    expect(fiPaymentIdsIn(`71${id}`)).toEqual([id]);
  });
  it('ignores 15 digits whose check digit fails, and longer digit runs', () => {
    const wrong = id.slice(0, 14) + String((Number(id[14]) + 1) % 10);
    expect(fiPaymentIdsIn(`Ref ${wrong}`)).toEqual([]);
    expect(fiPaymentIdsIn(`Konto 9${id}9`)).toEqual([]);
  });
});

describe('candidateTokens', () => {
  it('keeps the words with digits, also without leading zeros', () => {
    expect(candidateTokens('Faktura nr. 1042, kunde A-17; 0099')).toEqual(['1042', 'A-17', '0099', '99']);
    expect(candidateTokens('Husleje marts')).toEqual([]);
  });
});

describe('sameParty', () => {
  const supplier = { name: 'Kontorland A/S', iban: 'DK5000400440116243' };
  const line = { counterparty_name: '', counterparty_iban: '', text: '' };
  it('knows the supplier by IBAN, by name in the counterparty or in the text', () => {
    expect(sameParty(supplier, { ...line, counterparty_iban: 'dk50 0040 0440 1162 43' })).toMatch(/IBAN/);
    expect(sameParty(supplier, { ...line, counterparty_name: 'KONTORLAND A/S' })).toMatch(/name/);
    expect(sameParty(supplier, { ...line, text: 'Betaling til Kontorland A/S fak 77' })).toMatch(/in the text/);
  });
  it('does not take another party or a name too short to tell', () => {
    expect(sameParty(supplier, { ...line, counterparty_name: 'Papirhuset' })).toBeUndefined();
    expect(sameParty({ name: 'AB', iban: '' }, { ...line, counterparty_name: 'AB' })).toBeUndefined();
  });
});

describe('rankSuggestions', () => {
  it('orders by score, keeps each registration once with its best reasons', () => {
    const ranked = rankSuggestions([
      { type: 'invoice', id: 'b', score: 50, reasons: ['number'] },
      { type: 'invoice', id: 'a', score: 90, reasons: ['exact'] },
      { type: 'invoice', id: 'b', score: 100, reasons: ['fi'] },
      { type: 'expense', id: 'b', score: 30, reasons: ['amount'] },
    ]);
    expect(ranked.map((s) => `${s.type}:${s.id}:${s.score}`)).toEqual(['invoice:b:100', 'invoice:a:90', 'expense:b:30']);
  });
});
