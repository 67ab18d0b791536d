// Identifies the credential (X-API-Key, or an OAuth bearer token) and counts the request against its
// rate limit. 401 carries no rate-limit headers (no credential was identified); every response after
// this point carries them, errors and 429 included.
import type { NextFunction, Request, Response } from 'express';
import { problem, readAlong, type Route } from '@tlr/api';
import type { Queryable } from '@tlr/db';
import {
  apiKeyStillValid,
  authenticateApiKey,
  authenticateBearer,
  bearerStillValid,
  RATE_LIMIT,
  SpentCredentials,
  type Authenticated,
  type Credential,
} from '@tlr/domain';
import { sendProblem } from './problem-response.ts';
import { sendRateLimited, setRateLimitHeaders } from './rate-limit-response.ts';

const unauthorized = (res: Response, detail: string, error?: string) =>
  sendProblem(res, problem('unauthorized', detail), { 'WWW-Authenticate': `Bearer realm="tlr"${error ? `, error="${error}"` : ''}` });

const API_KEY = { valid: apiKeyStillValid, authenticate: authenticateApiKey, refused: 'The API key is invalid, expired or revoked.', challenge: undefined };
// RFC 6750 3: a bearer token that was presented and refused is named in the challenge.
const BEARER = {
  valid: bearerStillValid,
  authenticate: authenticateBearer,
  refused: 'The access token is invalid, expired or revoked.',
  challenge: 'invalid_token',
};

export function authenticate(db: Queryable) {
  const spent = new SpentCredentials<Credential>();
  return async (req: Request, res: Response, next: NextFunction) => {
    // Not trimmed: HTTP already drops the spaces around a header value, and a key with anything else
    // around it (a non-breaking space pasted along) is not the key.
    const apiKey = req.get('X-API-Key');
    const authorization = req.get('Authorization');
    // RFC 6750 2.1: the scheme is case-insensitive; the token is everything after one space.
    const bearer = apiKey === undefined && authorization !== undefined ? /^Bearer ([^\s]+)$/i.exec(authorization)?.[1] : undefined;
    const presented = apiKey ?? bearer;
    if (presented === undefined) {
      if (authorization !== undefined) return unauthorized(res, 'The Authorization header must be "Bearer <access token>" (tlr_at_...).');
      return unauthorized(res, 'Send an API key in the X-API-Key header or an OAuth access token as Authorization: Bearer.');
    }
    const kind = apiKey !== undefined ? API_KEY : BEARER;
    const known = spent.check(presented);
    if (known) {
      if (!(await kind.valid(db, presented))) {
        spent.forget(presented);
        return unauthorized(res, kind.refused, kind.challenge);
      }
      res.locals.credential = known.value;
      const state = { limit: RATE_LIMIT, remaining: 0, reset: known.reset, exceeded: true };
      setRateLimitHeaders(res, state);
      return sendRateLimited(res, state);
    }
    // A GET by id reads its row in the same statement (decision 148).
    const auth: Authenticated | null = await kind.authenticate(db, presented, readAlong(res.locals.route as Route | undefined, req.path));
    if (!auth) return unauthorized(res, kind.refused, kind.challenge);
    const { credential, rateLimit } = auth;
    res.locals.credential = credential;
    res.locals.prefetched = auth.prefetched;
    setRateLimitHeaders(res, rateLimit);
    if (rateLimit.exceeded) {
      spent.remember(presented, rateLimit.reset, credential);
      return sendRateLimited(res, rateLimit);
    }
    next();
  };
}
