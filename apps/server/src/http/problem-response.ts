// Writes problem+json responses from Express middleware (the tRPC adapter's errors are rewritten
// to the same shape by problem-bodies.ts).
import type { Response } from 'express';
import { PROBLEM_CONTENT_TYPE, type Problem } from '@tlr/api';

export function sendProblem(res: Response, p: Problem, headers: Record<string, string> = {}): void {
  res.status(p.status);
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
  res.end(JSON.stringify(p));
}
