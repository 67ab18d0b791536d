// Quote rules, pure: the statuses and the transition table, checked the way an invoice's are.
import { assertTransitionIn } from '../invoices/rules.ts';

export const QUOTE_STATUSES = ['draft', 'sent', 'accepted', 'declined', 'expired'] as const;
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];

/**
 * Where each status may go. A draft is sent (numbered; or deleted); a sent quote is accepted (an invoice
 * is made of it), declined, or expires after valid_until; those three are final. Staying in the same
 * status is a no-op, not a transition.
 */
export const QUOTE_TRANSITIONS: Record<QuoteStatus, readonly QuoteStatus[]> = {
  draft: ['sent'],
  sent: ['accepted', 'declined', 'expired'],
  accepted: [],
  declined: [],
  expired: [],
};

/** Throws 409 invalid_transition naming the statuses that are allowed from `from`. */
export const assertQuoteTransition = (from: QuoteStatus, to: QuoteStatus): void => assertTransitionIn(QUOTE_TRANSITIONS, from, to, 'A quote');
