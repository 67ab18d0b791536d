// The one mapper from any error to an RFC 9457 problem { type, title, status, detail, code }, and from
// a problem to the tRPC error code an in-process caller sees. Codes, statuses and titles come from
// the domain's table (error-codes.ts). A client mistake is never a 500.
import { TRPCError } from '@trpc/server';
import { isForeignKeyViolation, isUniqueViolation } from '@tlr/db';
import { DomainError, ERROR_CODES, type ErrorCode } from '@tlr/domain';

export const PROBLEM_TYPE_BASE = 'https://tlr.dk/problems/';
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  /** The request field or parameter at fault, when there is one (an RFC 9457 extension member). */
  field?: string;
  /** Every validation failure, when there were several. */
  errors?: { field: string; message: string }[];
}

export function problem(code: ErrorCode, detail: string, extra: Partial<Omit<Problem, 'code' | 'status' | 'type'>> & Record<string, unknown> = {}): Problem {
  const { status, title } = ERROR_CODES[code];
  return { type: PROBLEM_TYPE_BASE + code, title, status, detail, code, ...extra };
}

interface Issue {
  path: PropertyKey[];
  message: string;
  code?: string;
  keys?: string[];
}

/** "lines[0].quantity" from ['lines', 0, 'quantity']. */
export function fieldName(path: PropertyKey[]): string {
  return path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)), '');
}

function validationProblem(issues: Issue[], what = 'body'): Problem {
  const errors = issues.flatMap((i) =>
    i.code === 'unrecognized_keys' && i.keys
      ? i.keys.map((k) => ({ field: fieldName([...i.path, k]), message: 'is not a known field' }))
      : [{ field: fieldName(i.path) || what, message: i.message }],
  );
  const detail = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  return problem('invalid_request', detail, { field: errors[0]?.field ?? what, errors });
}

/** Retry-After (seconds) sent with every 503: the condition is momentary load or a database restart. */
export const BUSY_RETRY_AFTER = 2;

export const busyProblem = (detail: string) => problem('service_unavailable', detail);

export const internalProblem = () => problem('internal_error', 'An unexpected error occurred. Quote the X-Request-ID when contacting support.');

// "The database cannot serve this right now", however it is raised: pg's own errors (refused, reset,
// terminated by a shutdown or restart, too many connections, statement or connect timeout, a frozen
// server's read timeout), and Prisma's wrappers of them (P1001 can't reach, P1017 closed, P2024 no
// pooled connection in time, P2028 transaction could not start in time, P2010/P2039 wrapping a
// PostgreSQL code). The request can be retried, so 503 with Retry-After rather than 500.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '57014',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '25P03',
  '55P03',
  'P1001',
  'P1002',
  'P1008',
  'P1017',
  'P2024',
  'P2028',
]);
const UNAVAILABLE_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|Query read timeout|terminating connection|the database system is (shutting down|starting up|in recovery)|Can't reach database server|Server has closed the connection|Client has encountered a connection error|connection (is|was) closed|Unable to start a transaction in the given time|Transaction already closed|ECONNREFUSED|ECONNRESET|57P0[123]/i;

/**
 * What Prisma's driver adapter keeps of a socket error: a `kind` and no code or message of the driver's
 * (ECONNRESET inside a transaction is `{ kind: 'ConnectionClosed' }`; a PostgreSQL killed with SIGKILL
 * under load answered 500 through it). The transaction that was closed under it is gone too.
 */
const UNAVAILABLE_KINDS = new Set(['ConnectionClosed', 'DatabaseNotReachable', 'SocketTimeout', 'TooManyConnections', 'TransactionAlreadyClosed']);

/** The database could not serve the request for the moment (busy, restarting, unreachable or frozen). */
export function databaseUnavailable(e: unknown): boolean {
  const seen = new Set<unknown>();
  const queue = [e];
  while (queue.length) {
    const x = queue.shift();
    if (!x || typeof x !== 'object' || seen.has(x)) continue;
    seen.add(x);
    const { code, originalCode, message, meta, cause, kind } = x as Record<string, unknown>;
    for (const c of [code, originalCode]) if (typeof c === 'string' && UNAVAILABLE_CODES.has(c)) return true;
    if (typeof kind === 'string' && UNAVAILABLE_KINDS.has(kind)) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
    queue.push(cause, meta, (meta as { driverAdapterError?: unknown } | undefined)?.driverAdapterError);
  }
  return false;
}

/** @tlr/storage's StorageUnavailableError (by name: the api does not depend on a storage backend). */
const isStorageUnavailable = (e: unknown) => e instanceof Error && e.name === 'StorageUnavailableError';

/** For a procedure that needs a store the server does not have. */
export const storageUnavailable = (detail: string) => new DomainError('service_unavailable', detail);

// The tRPC adapter's own refusals (before any procedure runs).
const byTrpcCode: Partial<Record<TRPCError['code'], [ErrorCode, string]>> = {
  PARSE_ERROR: ['invalid_request', 'The request body is not valid JSON.'],
  NOT_FOUND: ['not_found', 'No such endpoint.'],
  METHOD_NOT_SUPPORTED: ['method_not_allowed', 'The endpoint does not support this method.'],
  PAYLOAD_TOO_LARGE: ['payload_too_large', 'The request body is too large.'],
  UNSUPPORTED_MEDIA_TYPE: ['unsupported_media_type', 'Send the request body as application/json.'],
  UNAUTHORIZED: ['unauthorized', 'Missing or invalid credentials.'],
  FORBIDDEN: ['forbidden', 'The credential does not grant this.'],
  TOO_MANY_REQUESTS: ['rate_limited', 'Too many requests.'],
};

export function toProblem(error: unknown): Problem {
  const cause = error instanceof TRPCError ? (error.cause ?? error) : error;
  if (cause instanceof DomainError) return problem(cause.code, cause.message, { ...cause.extensions, ...(cause.field ? { field: cause.field } : {}) });
  if (isStorageUnavailable(cause))
    return busyProblem('Voucher storage cannot be reached for the moment; nothing was stored. Retry shortly with the same Idempotency-Key.');
  if (databaseUnavailable(cause)) {
    return busyProblem('The database is busy or unreachable for the moment; retry shortly (with the same Idempotency-Key, for a create).');
  }
  // A unique index refused a write the domain did not foresee (a race it does not check for itself): the
  // request conflicts with the current state; it is never a server fault.
  if (isUniqueViolation(cause)) return problem('conflict', 'The request conflicts with a concurrent change; fetch the current state and retry.');
  // The domain checks every reference before writing; a foreign key refusing the write means what it
  // refers to was deleted meanwhile (a sandbox reset racing a posting, say).
  if (isForeignKeyViolation(cause)) return problem('conflict', 'Something the request refers to was deleted while it ran; fetch the current state and retry.');
  // Input validation only: a failed *output* validation is our bug (500), not the client's.
  const isInput = !(error instanceof TRPCError) || error.code === 'BAD_REQUEST';
  if (isInput && cause instanceof Error && cause.name === 'ZodError' && 'issues' in cause) return validationProblem(cause.issues as Issue[]);
  if (error instanceof TRPCError) {
    const known = byTrpcCode[error.code];
    if (known) return problem(known[0], error.code === 'METHOD_NOT_SUPPORTED' ? error.message : known[1]);
  }
  return internalProblem();
}

const TRPC_CODE_BY_STATUS: Record<number, TRPCError['code']> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  503: 'SERVICE_UNAVAILABLE',
};

/**
 * The error an in-process caller (and @trpc/client) sees: the tRPC code of the problem's status, the
 * problem's detail as message, and the original error as cause (so toProblem gives the same problem).
 */
export function toTrpcError(error: TRPCError): TRPCError {
  const p = toProblem(error);
  const code = TRPC_CODE_BY_STATUS[p.status] ?? 'INTERNAL_SERVER_ERROR';
  if (code === error.code && error.message === p.detail) return error;
  return new TRPCError({ code, message: p.detail, cause: error.cause ?? error });
}
