// The one mapper from any error to an RFC 9457 problem: { type, title, status, detail, code }.
// Stable codes are listed in docs/errors.md. A client mistake is never a 500.
import { TRPCError } from '@trpc/server';
import { isUniqueViolation } from '@tlr/db';
import { DomainError } from '@tlr/domain';

export const PROBLEM_TYPE_BASE = 'https://tlr.dk/problems/';
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  /** The request field or parameter at fault, when there is one (an RFC 9457 extension member). */
  field?: string;
  /** Every validation failure, when there were several. */
  errors?: { field: string; message: string }[];
}

export function problem(status: number, code: string, title: string, detail: string, extra: Partial<Problem> = {}): Problem {
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

export function validationProblem(issues: Issue[], what = 'request body'): Problem {
  const errors = issues.flatMap((i) =>
    i.code === 'unrecognized_keys' && i.keys
      ? i.keys.map((k) => ({ field: fieldName([...i.path, k]), message: 'is not a known field' }))
      : [{ field: fieldName(i.path) || what, message: i.message }],
  );
  const detail = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  return problem(400, 'invalid_request', 'Invalid request', detail, { field: errors[0]?.field ?? what, errors });
}

const byTrpcCode: Partial<Record<TRPCError['code'], [number, string, string, string]>> = {
  PARSE_ERROR: [400, 'invalid_request', 'Invalid request', 'The request body is not valid JSON.'],
  NOT_FOUND: [404, 'not_found', 'Not found', 'No such endpoint.'],
  METHOD_NOT_SUPPORTED: [405, 'method_not_allowed', 'Method not allowed', 'The endpoint does not support this method.'],
  PAYLOAD_TOO_LARGE: [413, 'payload_too_large', 'Payload too large', 'The request body is too large.'],
  UNSUPPORTED_MEDIA_TYPE: [415, 'unsupported_media_type', 'Unsupported media type', 'Send the request body as application/json.'],
  UNAUTHORIZED: [401, 'unauthorized', 'Unauthorized', 'Missing or invalid credentials.'],
  FORBIDDEN: [403, 'forbidden', 'Forbidden', 'The credential does not grant this.'],
  TOO_MANY_REQUESTS: [429, 'rate_limited', 'Rate limit exceeded', 'Too many requests.'],
};

/** Retry-After (seconds) sent with a 503: the condition is momentary load, not an outage. */
export const BUSY_RETRY_AFTER = 2;

export const busyProblem = (detail: string) => problem(503, 'service_unavailable', 'Service unavailable', detail);

// Prisma: no pooled connection within maxWait (P2024), or a transaction could not start in time (P2028).
const BUSY_PRISMA_CODES = new Set(['P2024', 'P2028']);

export const internalProblem = () =>
  problem(500, 'internal_error', 'Internal server error', 'An unexpected error occurred. Quote the X-Request-ID when contacting support.');

export function toProblem(error: unknown): Problem {
  const cause = error instanceof TRPCError ? error.cause : error;
  if (cause instanceof DomainError) {
    return problem(cause.status, cause.code, cause.title, cause.message, cause.field ? { field: cause.field } : {});
  }
  if (cause && typeof cause === 'object' && BUSY_PRISMA_CODES.has((cause as { code?: string }).code ?? '')) {
    return busyProblem('The service is busy; retry in a moment (with the same Idempotency-Key, for a create).');
  }
  // A unique index refused a write the domain did not foresee (a race it does not check for itself): the
  // request conflicts with the current state; it is never a server fault.
  if (isUniqueViolation(cause)) {
    return problem(409, 'conflict', 'Conflict', 'The request conflicts with a concurrent change; fetch the current state and retry.');
  }
  // Input validation only: a failed *output* validation is our bug (500), not the client's.
  const isInput = !(error instanceof TRPCError) || error.code === 'BAD_REQUEST';
  if (isInput && cause && typeof cause === 'object' && 'issues' in cause && (cause as unknown as Error).name === 'ZodError') {
    return validationProblem((cause as { issues: Issue[] }).issues);
  }
  if (error instanceof TRPCError) {
    const known = byTrpcCode[error.code];
    if (known) {
      const [status, code, title, detail] = known;
      // The adapter's own messages (e.g. for a wrong content type) are more precise than ours.
      const own = error.code === 'UNSUPPORTED_MEDIA_TYPE' || error.code === 'METHOD_NOT_SUPPORTED' ? error.message : detail;
      return problem(status, code, title, own);
    }
  }
  return internalProblem();
}
