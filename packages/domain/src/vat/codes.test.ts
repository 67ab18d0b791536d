import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../money.ts';
import { parseCsv } from '../ledger/standard-chart.ts';
import { BOX_OF_KIND, isReverseCharge, isSalesKind, returnFigures, VAT_CODES, vatLines, type VatTreatment } from './codes.ts';

// The standard Danish set: one row per tax, followed by its repartition lines (base and tax, invoice and refund).
function standardSet() {
  const rows = parseCsv(readFileSync(join(import.meta.dirname, '..', '..', '..', '..', 'prisma', 'seed', 'dk-chart', 'account.tax-dk.csv'), 'utf8'));
  const out = new Map<string, { rate: string; use: string; base: string[]; tax: { account: string; factor: string }[] }>();
  let current: { rate: string; use: string; base: string[]; tax: { account: string; factor: string }[] } | undefined;
  for (const r of rows) {
    if (r.id) out.set(r.name!, (current = { rate: r.amount!, use: r.type_tax_use!, base: [], tax: [] }));
    if (r['repartition_line_ids/document_type'] !== 'invoice' || !current) continue;
    const tags = r['repartition_line_ids/tag_ids']!;
    if (r['repartition_line_ids/repartition_type'] === 'base') current.base.push(...tags.split(',').filter(Boolean));
    else if (r['repartition_line_ids/account_id'])
      current.tax.push({ account: r['repartition_line_ids/account_id']!.replace('dk_coa_', ''), factor: r['repartition_line_ids/factor_percent'] || '100' });
  }
  return out;
}

// The standard set's base tags and the return's fields they name.
const TAG_FIELDS: Record<string, string> = {
  '+R-A-V': 'box_a_goods',
  '+R-A-Y': 'box_a_services',
  '+R-B-MR': 'box_b_goods_reported',
  '+R-B-UR': 'box_b_goods_not_reported',
  '+R-C-MR': 'box_b_services',
  '+R-C-UR': 'box_c',
};

describe('the seeded VAT codes', () => {
  const set = standardSet();
  it.each(VAT_CODES.map((c) => [c.code, c] as const))('%s agrees with its row of the standard set', (_, c) => {
    const std = set.get(c.standard_code);
    expect(std, c.standard_code).toBeDefined();
    expect(std!.use).toBe(isSalesKind(c.kind) ? 'sale' : 'purchase');
    expect(new Decimal(std!.rate).equals(c.rate)).toBe(true);
    // The base tag names the box; the standard set leaves exports untagged, which we report in rubrik C.
    const tagged = std!.base.map((t) => TAG_FIELDS[t]).filter(Boolean);
    if (tagged.length) expect(BOX_OF_KIND[c.kind]).toBe(tagged[0]);
    // The tax lines post to the code's accounts, the deductible one with the code's share.
    const accounts = std!.tax.map((t) => t.account).sort();
    expect(accounts).toEqual([c.account_number, c.offset_account_number].filter(Boolean).sort());
    const deducted = std!.tax.find((t) => t.account === '7740');
    if (deducted && c.code !== 'KDELVIS') expect(new Decimal(deducted.factor).equals(c.deductible_percent)).toBe(true);
    expect(c.code.length).toBeLessThanOrEqual(9);
  });
});

describe('vatLines', () => {
  const t = (kind: VatTreatment['kind'], deductible = '100'): VatTreatment => ({
    code: 'X',
    kind,
    rate: new Decimal(25),
    accountId: 'vat',
    offsetAccountId: 'offset',
    deductiblePercent: new Decimal(deductible),
  });
  const sides = (r: ReturnType<typeof vatLines>) => r.lines.map((l) => [l.accountId, l.debit.toFixed(2), l.credit.toFixed(2)]);

  it('a sale credits the output VAT account; a negative (credit) VAT debits it', () => {
    expect(sides(vatLines(t('output'), new Decimal('250.00'), ''))).toEqual([['vat', '0.00', '250.00']]);
    expect(sides(vatLines(t('output'), new Decimal('-250.00'), ''))).toEqual([['vat', '250.00', '0.00']]);
  });

  it('a purchase deducts its share: repræsentation 25 % of 62.50 is 15.63, and 46.87 is a cost', () => {
    const r = vatLines(t('input', '25'), new Decimal('62.50'), '');
    expect(sides(r)).toEqual([['vat', '15.63', '0.00']]);
    expect(r.nonDeductible.toFixed(2)).toBe('46.87');
  });

  it('a reverse charge owes the VAT and deducts it: net zero when fully deductible', () => {
    expect(isReverseCharge('eu_purchase_goods')).toBe(true);
    const r = vatLines(t('eu_purchase_goods'), new Decimal('500.00'), '');
    expect(sides(r)).toEqual([
      ['vat', '0.00', '500.00'],
      ['offset', '500.00', '0.00'],
    ]);
    expect(r.nonDeductible.isZero()).toBe(true);
  });

  it('a stated share overrides the code: 40 % of 100.00 deducted, 60.00 a cost', () => {
    const r = vatLines(t('domestic_reverse_charge_purchase'), new Decimal('100.00'), '', new Decimal(40));
    expect(sides(r)).toEqual([
      ['vat', '0.00', '100.00'],
      ['offset', '40.00', '0.00'],
    ]);
    expect(r.nonDeductible.toFixed(2)).toBe('60.00');
  });
});

describe('returnFigures', () => {
  const s = (debit: string, credit: string) => ({ debit: new Decimal(debit), credit: new Decimal(credit) });
  it('reads owed fields as credit balances, deducted ones as debit balances, boxes by side, and nets the rounded fields', () => {
    const r = returnFigures(
      new Map([
        ['7680', s('250.00', '10250.49')], // salgsmoms 10000.49 -> 10000
        ['7700', s('0', '500.50')], // 500.50 -> 501
        ['7740', s('3000.50', '0')], // købsmoms 3000.50 -> 3001
        ['7780', s('100.00', '0')], // elafgift 100
      ]),
      new Map([
        ['eu_sale_goods', s('1000.00', '41000.00')], // rubrik B varer: 40000 (a credit note of 1000 reduces it)
        ['eu_purchase_goods', s('2002.00', '0')], // rubrik A varer
        ['export', s('0', '7000.40')],
        ['output', s('0', '40001.96')], // domestic sales: in no box
      ]),
    );
    const k = Object.fromEntries(Object.entries(r.kroner).map(([f, v]) => [f, v.toNumber()]));
    expect(k).toMatchObject({
      output_vat: 10000,
      vat_on_goods_purchased_abroad: 501,
      vat_on_services_purchased_abroad: 0,
      input_vat: 3001,
      electricity_duty: 100,
      box_a_goods: 2002,
      box_b_goods_reported: 40000,
      box_c: 7000,
      box_b_services: 0,
      // 10000 + 501 + 0 - 3001 - 100
      net_vat: 7400,
    });
    // Exact: 10000.49 + 500.50 - 3000.50 - 100.00
    expect(r.exact.net_vat.toFixed(2)).toBe('7400.49');
  });
});
