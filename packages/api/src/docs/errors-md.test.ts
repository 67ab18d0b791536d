import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '@tlr/domain';
import { errorsMarkdown, ERRORS_MD } from './errors-md.ts';

describe('docs/errors.md', () => {
  it('is what the code table generates (run `npm run docs:errors` after changing the table)', () => {
    expect(readFileSync(ERRORS_MD, 'utf8')).toBe(errorsMarkdown());
  });

  it('lists every code once, with its status', () => {
    const md = errorsMarkdown();
    for (const [code, spec] of Object.entries(ERROR_CODES)) {
      expect(md.match(new RegExp(`\\| \`${code}\` \\|`, 'g')), code).toHaveLength(1);
      expect(md, code).toContain(`| ${spec.status} | \`${code}\``);
    }
  });
});
