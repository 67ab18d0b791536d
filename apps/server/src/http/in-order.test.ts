import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { inOrder } from './in-order.ts';

const req = {} as Request;
const res = {} as Response;

/** Runs the chain and says how it ended: next() (undefined), next(err) (the error), or no call ('answered'). */
async function run(chain: RequestHandler): Promise<unknown> {
  return new Promise((resolve) => {
    const next: NextFunction = (err?: unknown) => resolve(err);
    void chain(req, res, next);
    setTimeout(() => resolve('answered'), 50);
  });
}

describe('inOrder', () => {
  it('runs the steps in order and goes on after the last', async () => {
    const seen: number[] = [];
    const step =
      (n: number): RequestHandler =>
      (_q, _s, next) => (seen.push(n), next());
    expect(await run(inOrder(step(1), step(2), step(3)))).toBeUndefined();
    expect(seen).toEqual([1, 2, 3]);
  });

  it('stops at a step that answers', async () => {
    const seen: number[] = [];
    const chain = inOrder(
      (_q, _s, next) => (seen.push(1), next()),
      () => void seen.push(2),
      (_q, _s, next) => (seen.push(3), next()),
    );
    expect(await run(chain)).toBe('answered');
    expect(seen).toEqual([1, 2]);
  });

  it('hands next(err), a thrown error and a rejected promise to Express, skipping the rest', async () => {
    const boom = new Error('boom');
    let after = 0;
    const rest: RequestHandler = (_q, _s, next) => (after++, next());
    expect(await run(inOrder((_q, _s, next) => next(boom), rest))).toBe(boom);
    expect(
      await run(
        inOrder(() => {
          throw boom;
        }, rest),
      ),
    ).toBe(boom);
    expect(await run(inOrder(async () => Promise.reject(boom), rest))).toBe(boom);
    // An async step that calls next after awaiting goes on as usual.
    expect(await run(inOrder(async (_q, _s, next) => (await Promise.resolve(), next()), rest))).toBeUndefined();
    expect(after).toBe(1);
  });
});
