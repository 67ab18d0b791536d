// The domain's typed errors: a stable machine-readable code, an HTTP status, and a sentence for people.
// One mapper in the API layer turns them into RFC 9457 problem+json (see docs/errors.md).

export interface ProblemFields {
  status: number;
  code: string;
  title: string;
  detail: string;
  /** The request field or parameter at fault, when there is one. */
  field?: string;
}

export class DomainError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly field: string | undefined;
  constructor(p: ProblemFields) {
    super(p.detail);
    this.name = 'DomainError';
    this.status = p.status;
    this.code = p.code;
    this.title = p.title;
    this.field = p.field;
  }
}

export const invalidRequest = (detail: string, field?: string) =>
  new DomainError({ status: 400, code: 'invalid_request', title: 'Invalid request', detail, ...(field ? { field } : {}) });

export const notFound = (what: string, id?: string) =>
  new DomainError({ status: 404, code: 'not_found', title: 'Not found', detail: id ? `No ${what} with id ${id}.` : `${what} not found.` });

export const conflict = (code: string, detail: string) => new DomainError({ status: 409, code, title: 'Conflict', detail });

export const forbidden = (detail: string) => new DomainError({ status: 403, code: 'forbidden', title: 'Forbidden', detail });
