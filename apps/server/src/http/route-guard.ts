// Unknown paths answer 404 and known paths with another method 405 (with Allow), before any
// authentication: the tRPC adapter would answer both with a 404.
import type { NextFunction, Request, Response } from 'express';
import { allowedMethods, problem } from '@tlr/api';
import { sendProblem } from './problem-response.ts';

export function routeGuard(req: Request, res: Response, next: NextFunction) {
  const allowed = allowedMethods(req.path);
  if (allowed.length === 0) {
    sendProblem(res, problem(404, 'not_found', 'Not found', `No endpoint ${req.path} exists under /api/v1.`));
    return;
  }
  if (!allowed.includes(req.method)) {
    const allow = [...allowed, 'OPTIONS'].join(', ');
    sendProblem(res, problem(405, 'method_not_allowed', 'Method not allowed', `${req.path} accepts ${allow}, not ${req.method}.`), { Allow: allow });
    return;
  }
  next();
}
