// Writes problem+json responses (from Express middleware and the REST adapter), noting the problem
// for the log and the request log.
import type { Response } from 'express';
import { PROBLEM_CONTENT_TYPE, type Problem } from '@tlr/api';

/** What the log line and the request log record say about a refused request. */
function noteProblem(res: Response, p: Pick<Problem, 'code' | 'field'>): void {
  res.locals.problem = { code: p.code, field: p.field };
}

export function sendProblem(res: Response, p: Problem, headers: Record<string, string> = {}): void {
  noteProblem(res, p);
  res.status(p.status);
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
  res.end(JSON.stringify(p));
}
