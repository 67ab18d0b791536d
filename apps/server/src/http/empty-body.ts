// A POST without a body (POST /sandbox/reset takes none) arrives without a Content-Type, which the
// REST adapter would refuse with 415. An empty body is read as an empty JSON object instead.
import type { NextFunction, Request, Response } from 'express';

export function emptyBody(req: Request, _res: Response, next: NextFunction) {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (!hasBody && req.body === undefined && req.method !== 'GET') {
    req.body = {};
    req.headers['content-type'] ??= 'application/json';
  }
  next();
}
