import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Prisma } from '@tlr/db';
import { DomainError } from '@tlr/domain';
import { fieldName, toProblem, toTrpcError } from './problem.ts';

const wrapped = (cause: unknown, code: TRPCError['code'] = 'INTERNAL_SERVER_ERROR') => new TRPCError({ code, cause: cause as Error });

describe('toProblem', () => {
  it("keeps a domain error's status (from the code table), code and field", () => {
    const p = toProblem(wrapped(new DomainError('period_locked', 'x', 'date')));
    expect(p).toMatchObject({ status: 422, code: 'period_locked', title: 'Period locked', field: 'date', type: 'https://tlr.dk/problems/period_locked' });
  });

  it('names every invalid input field, nested ones with their index', () => {
    const result = z.object({ lines: z.array(z.object({ debit: z.number() })) }).safeParse({ lines: [{ debit: 'x' }] });
    const p = toProblem(wrapped(result.error, 'BAD_REQUEST'));
    expect(p).toMatchObject({ status: 400, code: 'invalid_request', field: 'lines[0].debit' });
    expect(fieldName(['a', 2, 'b'])).toBe('a[2].b');
  });

  it("treats a failed output validation as our fault (500), not the client's", () => {
    const result = z.object({ id: z.string() }).safeParse({});
    expect(toProblem(wrapped(result.error)).status).toBe(500);
  });

  it('answers a pool or transaction timeout and a refused connection with 503 service_unavailable', () => {
    for (const code of ['P2024', 'P2028', 'ECONNREFUSED', '57P01']) {
      expect(toProblem(wrapped(Object.assign(new Error('timeout'), { code })))).toMatchObject({ status: 503, code: 'service_unavailable' });
    }
  });

  // Found by killing PostgreSQL with SIGKILL under 16 writers of POST /customers: a connection that dies
  // inside a transaction reaches toProblem as Prisma's pg adapter's DriverAdapterError, whose socket
  // errors keep only a kind (ECONNRESET -> { kind: 'ConnectionClosed' }, ECONNREFUSED ->
  // 'DatabaseNotReachable', ETIMEDOUT -> 'SocketTimeout'; 53300 -> 'TooManyConnections'), with no code or
  // message of the driver's; it answered 500 internal_error without Retry-After.
  it("answers the pg adapter's lost connection (DriverAdapterError, kind only) with 503 service_unavailable", () => {
    for (const cause of [{ kind: 'ConnectionClosed' }, { kind: 'DatabaseNotReachable' }, { kind: 'SocketTimeout' }, { kind: 'TooManyConnections' }]) {
      const adapterError = Object.assign(new Error(cause.kind), { name: 'DriverAdapterError', cause });
      expect(toProblem(wrapped(adapterError)), cause.kind).toMatchObject({ status: 503, code: 'service_unavailable' });
    }
  });

  it('answers an unforeseen unique violation with 409 conflict', () => {
    const e = new Prisma.PrismaClientKnownRequestError('Unique constraint failed', { code: 'P2002', clientVersion: '7.10.0' });
    expect(toProblem(wrapped(e))).toMatchObject({ status: 409, code: 'conflict' });
  });

  it('never leaks an unexpected error', () => {
    const p = toProblem(new Error('connection string postgresql://secret@db'));
    expect(p).toMatchObject({ status: 500, code: 'internal_error' });
    expect(JSON.stringify(p)).not.toContain('secret');
  });
});

describe('toTrpcError', () => {
  it('gives an in-process caller the tRPC code of the problem, the detail as message, and keeps the cause', () => {
    const cases: [DomainError, TRPCError['code']][] = [
      [new DomainError('forbidden', 'no'), 'FORBIDDEN'],
      [new DomainError('not_found', 'no'), 'NOT_FOUND'],
      [new DomainError('invalid_request', 'no'), 'BAD_REQUEST'],
      [new DomainError('already_reversed', 'no'), 'CONFLICT'],
      [new DomainError('period_locked', 'no'), 'UNPROCESSABLE_CONTENT'],
      [new DomainError('unauthorized', 'no'), 'UNAUTHORIZED'],
    ];
    for (const [domain, code] of cases) {
      const e = toTrpcError(wrapped(domain));
      expect(e.code).toBe(code);
      expect(e.message).toBe('no');
      expect(e.cause).toBe(domain);
      // mapping twice changes nothing
      expect(toProblem(toTrpcError(e))).toEqual(toProblem(e));
    }
  });
});
