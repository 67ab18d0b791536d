// The tRPC REST adapter writes its own error body ({ ...shape, message, code: <tRPC code> }). Our
// error formatter put the finished problem in shape.data.problem; this rewrites the body to that
// problem alone, so every error on the wire is plain RFC 9457.
import type { NextFunction, Request, Response } from 'express';
import type { Problem } from '@tlr/api';
import { noteProblem } from './problem-response.ts';

export function problemBodies(_req: Request, res: Response, next: NextFunction) {
  const end = res.end.bind(res) as (chunk?: unknown, ...rest: unknown[]) => Response;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (res.statusCode >= 400 && typeof chunk === 'string') {
      try {
        const problem = (JSON.parse(chunk) as { data?: { problem?: Problem } }).data?.problem;
        if (problem) {
          noteProblem(res, problem);
          chunk = JSON.stringify(problem);
        }
      } catch {
        // not JSON: leave it
      }
    }
    return end(chunk, ...rest);
  }) as Response['end'];
  next();
}
