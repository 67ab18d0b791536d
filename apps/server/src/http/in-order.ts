// Middlewares that every API request passes, run in order as one Express layer. Express's router pays
// for each layer it walks (path matching, its `next` bookkeeping and allocations, about 0.5 KB a layer);
// a GET by id walked some twenty (docs/history/perf-log.md, ninth session). The behaviour is the router's: a step
// that answers stops the walk, `next(err)` and a thrown or rejected error go to Express's error
// handlers, and `next()` from the last step goes on to the next layer.
import type { NextFunction, Request, RequestHandler, Response } from 'express';

export function inOrder(...steps: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    let index = 0;
    const step = (err?: unknown): void => {
      // (None of these steps calls next('route') or next('router'); they would skip the remaining steps.)
      if (err !== undefined && err !== null) return next(err);
      const current = steps[index++];
      if (!current) return next();
      try {
        const result: unknown = current(req, res, step);
        if (result instanceof Promise) result.catch(next);
      } catch (e) {
        next(e);
      }
    };
    step();
  };
}
