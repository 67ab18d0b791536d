// Unknown paths answer 404 and known paths with another method 405 (with Allow): the tRPC adapter
// would answer both with a 404. A request that carries credentials is authenticated (and counted)
// first, so its 404/405 carries the rate-limit headers like every authenticated response; one without
// credentials learns of the missing endpoint rather than of missing credentials.
import type { NextFunction, Request, Response } from 'express';
import { matchRoute, problem } from '@tlr/api';
import { sendProblem } from './problem-response.ts';

const hasCredentials = (req: Request) => req.get('X-API-Key') !== undefined || req.get('Authorization') !== undefined;

function refuseUnknown(req: Request, res: Response): boolean {
  const { route, allowed } = matchRoute(req.method, req.path);
  if (route) {
    // The REST adapter runs this route's procedure without matching again.
    res.locals.route = route;
    return false;
  }
  if (allowed.length === 0) {
    sendProblem(res, problem('not_found', `No endpoint ${req.path} exists under /api/v1.`));
    return true;
  }
  const allow = [...allowed, 'OPTIONS'].join(', ');
  sendProblem(res, problem('method_not_allowed', `${req.path} accepts ${allow}, not ${req.method}.`), { Allow: allow });
  return true;
}

/** Before authentication: answers requests without credentials. */
export function routeGuardAnonymous(req: Request, res: Response, next: NextFunction) {
  if (hasCredentials(req) || !refuseUnknown(req, res)) next();
}

/** After authentication: answers authenticated requests. */
export function routeGuard(req: Request, res: Response, next: NextFunction) {
  if (!refuseUnknown(req, res)) next();
}
