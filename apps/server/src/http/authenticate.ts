// Identifies the credential (X-API-Key, or an OAuth bearer token) and counts the request against its
// rate limit. 401 carries no rate-limit headers (no credential was identified); every response after
// this point carries them, errors and 429 included.
import type { NextFunction, Request, Response } from 'express';
import { problem } from '@tlr/api';
import type { Queryable } from '@tlr/db';
import { apiKeyStillValid, authenticateApiKey, RATE_LIMIT, SpentCredentials, type Authenticated, type Credential, type RateLimitState } from '@tlr/domain';
import { sendProblem } from './problem-response.ts';

const unauthorized = (res: Response, detail: string) => sendProblem(res, problem('unauthorized', detail), { 'WWW-Authenticate': 'Bearer realm="tlr"' });

function tooMany(res: Response, rateLimit: RateLimitState) {
  sendProblem(
    res,
    problem('rate_limited', `Retry in ${rateLimit.reset} seconds.`, { title: `Rate limit of ${rateLimit.limit} requests per 60 seconds exceeded` }),
    { 'Retry-After': String(rateLimit.reset) },
  );
}

function setRateHeaders(res: Response, rateLimit: RateLimitState) {
  res.setHeader('X-RateLimit-Limit', String(rateLimit.limit));
  res.setHeader('X-RateLimit-Remaining', String(rateLimit.remaining));
  res.setHeader('X-RateLimit-Reset', String(rateLimit.reset));
}

export function authenticate(db: Queryable) {
  const spent = new SpentCredentials<Credential>();
  return async (req: Request, res: Response, next: NextFunction) => {
    // Not trimmed: HTTP already drops the spaces around a header value, and a key with anything else
    // around it (a non-breaking space pasted along) is not the key.
    const apiKey = req.get('X-API-Key');
    const authorization = req.get('Authorization');
    let auth: Authenticated | null;
    if (apiKey !== undefined) {
      const known = spent.check(apiKey);
      if (known) {
        if (!(await apiKeyStillValid(db, apiKey))) {
          spent.forget(apiKey);
          return unauthorized(res, 'The API key is invalid, expired or revoked.');
        }
        res.locals.credential = known.value;
        const state = { limit: RATE_LIMIT, remaining: 0, reset: known.reset, exceeded: true };
        setRateHeaders(res, state);
        return tooMany(res, state);
      }
      auth = await authenticateApiKey(db, apiKey);
      if (!auth) return unauthorized(res, 'The API key is invalid, expired or revoked.');
    } else if (authorization !== undefined) {
      return unauthorized(res, 'The bearer token is invalid or expired.');
    } else {
      return unauthorized(res, 'Send an API key in the X-API-Key header or an OAuth access token as Authorization: Bearer.');
    }
    const { credential, rateLimit } = auth;
    res.locals.credential = credential;
    setRateHeaders(res, rateLimit);
    if (rateLimit.exceeded) {
      spent.remember(apiKey, rateLimit.reset, credential);
      return tooMany(res, rateLimit);
    }
    next();
  };
}
