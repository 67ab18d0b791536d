// The compiled rules committed under rules/compiled/ (validate.ts) fit the rules' sources as they are: a
// change of a stylesheet without `npm run einvoice:rules` would leave every fresh checkout compiling for
// minutes at its first document.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMPILED_RULES, compiledRuleNames } from './validate.ts';

describe('the committed compiled rules', () => {
  it('are one per stylesheet, named by the hash of its sources as they are now', async () => {
    expect(readdirSync(COMPILED_RULES).sort()).toEqual((await compiledRuleNames()).sort());
  });
});
