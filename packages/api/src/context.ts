// What every procedure sees: the database, the caller's credential, and a place to put the HTTP
// status and headers of a success response (the REST adapter reads them in responseMeta).
import type { Database } from '@tlr/db';
import type { CompanyScope, Credential } from '@tlr/domain';

export interface ApiContext {
  db: Database;
  credential: Credential | null;
  requestId: string;
  /** Request headers the procedures read (Idempotency-Key). */
  headers: Record<string, string | string[] | undefined>;
  response: { status?: number; headers: Record<string, string> };
}

export function companyScope(ctx: ApiContext): CompanyScope {
  const c = ctx.credential!;
  return { companyId: c.companyId, livemode: c.livemode };
}

/** A context for internal callers (operator CLI, admin app): every scope, no HTTP. */
export function internalContext(db: Database, credential: Credential | null = null): ApiContext {
  return { db, credential, requestId: 'internal', headers: {}, response: { headers: {} } };
}
