// Unknown paths answer 404 and known paths with another method 405 (with Allow): the tRPC adapter
// would answer both with a 404. A request that carries credentials is authenticated (and counted)
// first, so its 404/405 carries the rate-limit headers like every authenticated response; one without
// credentials learns of the missing endpoint rather than of missing credentials. The route is matched
// once, before authentication, which reads it to run a GET by id's read along (decision 148).
import type { NextFunction, Request, Response } from 'express';
import { matchRoute, problem } from '@tlr/api';
import { sendProblem } from './problem-response.ts';

const hasCredentials = (req: Request) => req.get('X-API-Key') !== undefined || req.get('Authorization') !== undefined;

function refuse(req: Request, res: Response, allowed: readonly string[]): void {
  if (allowed.length === 0) return sendProblem(res, problem('not_found', `No endpoint ${req.path} exists under /api/v1.`));
  const allow = [...allowed, 'OPTIONS'].join(', ');
  sendProblem(res, problem('method_not_allowed', `${req.path} accepts ${allow}, not ${req.method}.`), { Allow: allow });
}

/** Before authentication: matches the route, and answers requests without credentials that have none. */
export function routeGuardAnonymous(req: Request, res: Response, next: NextFunction) {
  const { route, allowed } = matchRoute(req.method, req.path);
  // The REST adapter runs this route's procedure without matching again.
  res.locals.route = route;
  res.locals.allowed = allowed;
  if (route || hasCredentials(req)) return next();
  refuse(req, res, allowed);
}

/** After authentication: answers authenticated requests that have no route. */
export function routeGuard(req: Request, res: Response, next: NextFunction) {
  if (res.locals.route) return next();
  refuse(req, res, res.locals.allowed as readonly string[]);
}
