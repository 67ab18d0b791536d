// CORS for browsers (contract: General rules 2). Credentials travel in headers, never cookies, so any
// origin may call; preflights are answered here with 204.
import type { NextFunction, Request, Response } from 'express';

const ALLOW_HEADERS = 'X-API-Key, Authorization, Content-Type, Idempotency-Key, X-Request-ID';
const EXPOSE_HEADERS =
  'X-Request-ID, X-API-Version, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, X-Idempotency-Replayed, Content-Disposition';

export function cors(req: Request, res: Response, next: NextFunction) {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
  if (req.method === 'OPTIONS') {
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
    res.setHeader('Access-Control-Max-Age', '600');
    res.status(204).end();
    return;
  }
  next();
}
