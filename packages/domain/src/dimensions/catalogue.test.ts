// The journal writer's dimension rule (decisions 581, 583) as a pure function: unknown names and codes,
// retired values (allowed on a reversal and an asset's capitalisation), required dimensions (not on reversals, closing entries, imports).
import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.ts';
import { lineDimensionRefs, type DimensionCatalogue } from './catalogue.ts';

const catalogue: DimensionCatalogue = new Map([
  [
    'Projekt',
    {
      id: 'd1',
      name: 'Projekt',
      required: new Set(['acc-cost']),
      values: new Map([
        ['A', { id: 'vA', retired: false }],
        ['B', { id: 'vB', retired: true }],
      ]),
    },
  ],
]);
const number = (id: string) => (id === 'acc-cost' ? '2030' : '6470');
const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof DomainError ? { code: e.code, field: e.field } : e;
  }
  return undefined;
};

describe('lineDimensionRefs', () => {
  it('turns names and codes into value ids, line by line', () => {
    const refs = lineDimensionRefs(
      catalogue,
      { source: 'manual', lines: [{ accountId: 'acc-bank' }, { accountId: 'acc-cost', dimensions: { Projekt: 'A' } }] },
      number,
    );
    expect(refs).toEqual([[], [{ dimensionId: 'd1', valueId: 'vA' }]]);
  });

  it('refuses an unknown dimension or code naming the line and the dimension', () => {
    expect(
      refusal(() => lineDimensionRefs(catalogue, { source: 'manual', lines: [{ accountId: 'acc-bank', dimensions: { Afdeling: 'X' } }] }, number)),
    ).toEqual({
      code: 'invalid_request',
      field: 'lines[0].dimensions.Afdeling',
    });
    expect(refusal(() => lineDimensionRefs(catalogue, { source: 'manual', lines: [{ accountId: 'acc-bank', dimensions: { Projekt: 'Z' } }] }, number))).toEqual(
      {
        code: 'invalid_request',
        field: 'lines[0].dimensions.Projekt',
      },
    );
  });

  it('refuses a retired value on a new line, and lets a reversal carry it', () => {
    const lines = [{ accountId: 'acc-cost', dimensions: { Projekt: 'B' } }];
    expect(refusal(() => lineDimensionRefs(catalogue, { source: 'manual', lines }, number))).toEqual({
      code: 'dimension_value_retired',
      field: 'lines[0].dimensions.Projekt',
    });
    expect(lineDimensionRefs(catalogue, { source: 'reversal', reversesId: 't1', lines }, number)).toEqual([[{ dimensionId: 'd1', valueId: 'vB' }]]);
    // An asset's capitalisation moves a cost posted with the value (decision 841).
    expect(lineDimensionRefs(catalogue, { source: 'asset', lines }, number)).toEqual([[{ dimensionId: 'd1', valueId: 'vB' }]]);
  });

  it('refuses a line on an account that requires the dimension, except for reversals, closing entries and imports', () => {
    const lines = [{ accountId: 'acc-bank' }, { accountId: 'acc-cost' }];
    expect(refusal(() => lineDimensionRefs(catalogue, { source: 'invoice', lines }, number))).toEqual({
      code: 'dimension_required',
      field: 'lines[1].dimensions.Projekt',
    });
    for (const posting of [{ source: 'year_end' as const }, { source: 'import' as const }, { source: 'manual' as const, reversesId: 't1' }])
      expect(lineDimensionRefs(catalogue, { ...posting, lines }, number)).toEqual([[], []]);
  });
});
