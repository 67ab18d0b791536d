import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.ts';
import { assertQuoteTransition, QUOTE_STATUSES, QUOTE_TRANSITIONS } from './rules.ts';

describe('quote transitions', () => {
  it('go draft → sent → accepted, declined or expired, and no further', () => {
    const allowed = QUOTE_STATUSES.flatMap((from) => QUOTE_TRANSITIONS[from].map((to) => `${from}>${to}`));
    expect(allowed).toEqual(['draft>sent', 'sent>accepted', 'sent>declined', 'sent>expired']);
    for (const from of QUOTE_STATUSES)
      for (const to of QUOTE_STATUSES) {
        if (from === to || allowed.includes(`${from}>${to}`)) continue;
        expect(() => assertQuoteTransition(from, to), `${from}>${to}`).toThrow(DomainError);
      }
  });

  it('name the current status and the allowed ones when refused', () => {
    try {
      assertQuoteTransition('draft', 'accepted');
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({ code: 'invalid_transition', extensions: { current_status: 'draft', allowed_statuses: ['sent'] } });
      expect((e as Error).message).toBe('A quote that is draft cannot become accepted; allowed next: sent.');
    }
  });
});
