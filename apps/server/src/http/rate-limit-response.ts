// What every rate-limited answer says, the API's and the OAuth endpoints' alike: the three
// X-RateLimit headers on every answer once a credential (or a client and address) was counted, and
// the 429 problem with Retry-After when the limit was reached (contract, Limits).
import type { Response } from 'express';
import { problem } from '@tlr/api';
import { RATE_WINDOW_SECONDS, type RateLimitState } from '@tlr/domain';
import { sendProblem } from './problem-response.ts';

export function setRateLimitHeaders(res: Response, state: RateLimitState): void {
  res.setHeader('X-RateLimit-Limit', String(state.limit));
  res.setHeader('X-RateLimit-Remaining', String(state.remaining));
  res.setHeader('X-RateLimit-Reset', String(state.reset));
}

/** 429 `rate_limited`; `per` names what is counted when it is not the credential ("per client and IP address"). */
export function sendRateLimited(res: Response, state: RateLimitState, per = ''): void {
  sendProblem(
    res,
    problem('rate_limited', `Retry in ${state.reset} seconds.`, {
      title: `Rate limit of ${state.limit} requests per ${RATE_WINDOW_SECONDS} seconds${per ? ` ${per}` : ''} exceeded`,
    }),
    { 'Retry-After': String(state.reset) },
  );
}
