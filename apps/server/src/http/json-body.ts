// Request bodies before the REST adapter: JSON or nothing, and a JSON object when present. The adapter
// would answer a wrong content type with a garbled message, spread an array into an object and read
// an empty body as "expected string, received undefined".
import type { NextFunction, Request, Response } from 'express';
import { inspectInput, matchRoute, problem } from '@tlr/api';
import { sendProblem } from './problem-response.ts';

const JSON_TYPE = /^application\/([\w.+-]*\+)?json\s*(;|$)/i;
const hasBody = (req: Request) => Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;

/** Runs before express.json(): refuses what is not JSON. */
export function requireJsonContent(req: Request, res: Response, next: NextFunction) {
  const type = req.get('Content-Type');
  if (hasBody(req) && req.method !== 'GET' && !(type && JSON_TYPE.test(type))) {
    return sendProblem(
      res,
      problem(
        'unsupported_media_type',
        `Send the request body as JSON with Content-Type: application/json${type ? ` (it was ${JSON.stringify(type)})` : ''}.`,
        { field: 'Content-Type' },
      ),
    );
  }
  next();
}

/** Runs after express.json(): the body must be a JSON object, and may be left out only where nothing is required. */
export function requireJsonObject(req: Request, res: Response, next: NextFunction) {
  if (req.method === 'GET') return next();
  const refuse = (detail: string) => sendProblem(res, problem('invalid_request', detail, { field: 'body' }));
  if (!hasBody(req)) {
    const { route } = matchRoute(req.method, req.path);
    if (route && !route.acceptsEmptyBody) return refuse('The request body must be a JSON object; it is empty.');
    // The adapter refuses a body-less request without a JSON content type (a DELETE, a POST without body).
    req.body = {};
    req.headers['content-type'] = 'application/json';
    return next();
  }
  if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
    return refuse(`The request body must be a JSON object, not ${Array.isArray(req.body) ? 'an array' : req.body === null ? 'null' : `a ${typeof req.body}`}.`);
  }
  // Here, before the REST adapter: its own handling of a deeply nested body overflows the stack.
  const fault = inspectInput(req.body);
  if (fault) return sendProblem(res, problem('invalid_request', `${fault.field}: ${fault.message}`, { field: fault.field }));
  next();
}

/** Query parameters (search, lookup values, dates) pass the same inspection as bodies. */
export function inspectQuery(req: Request, res: Response, next: NextFunction) {
  const fault = inspectInput(req.query, 'query');
  if (fault) return sendProblem(res, problem('invalid_request', `${fault.field}: ${fault.message}`, { field: fault.field }));
  next();
}
