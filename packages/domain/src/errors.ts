// The domain's typed errors: a stable machine-readable code (error-codes.ts gives its HTTP status and
// title), and a sentence for people. One mapper in the API layer turns them into RFC 9457
// problem+json (see docs/errors.md).
import { ERROR_CODES, type ErrorCode } from './error-codes.ts';

export class DomainError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly title: string;
  /** The request field or parameter at fault, when there is one. */
  readonly field: string | undefined;
  /** Extension members of the problem (e.g. the allowed next statuses of an invoice). */
  readonly extensions: Record<string, unknown>;
  constructor(code: ErrorCode, detail: string, field?: string, extensions: Record<string, unknown> = {}) {
    super(detail);
    this.name = 'DomainError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.title = ERROR_CODES[code].title;
    this.field = field;
    this.extensions = extensions;
  }
}

export const invalidRequest = (detail: string, field?: string) => new DomainError('invalid_request', detail, field);

export const notFound = (what: string, id?: string) => new DomainError('not_found', id ? `No ${what} with id ${id}.` : `${what} not found.`);

export const forbidden = (detail: string) => new DomainError('forbidden', detail);

export const unauthorized = (detail = 'Missing or invalid credentials.') => new DomainError('unauthorized', detail);
