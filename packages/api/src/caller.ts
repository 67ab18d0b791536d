// In-process callers (the operator CLI, the admin app, tests): the same procedures and rules as REST,
// with an explicit actor.
import type { Database } from '@tlr/db';
import { callerContext, type Actor, type ApiContext, type CallerOptions } from './context.ts';
import { createAppCaller } from './root.ts';

export function createCaller(db: Database, actor: Actor, opts: CallerOptions = {}) {
  return createAppCaller(callerContext(db, actor, opts));
}
export type Caller = ReturnType<typeof createCaller>;

/** A caller over a context the caller keeps (an HTTP shell reads the status and headers it set). */
export const callerOf = (ctx: ApiContext): Caller => createAppCaller(ctx);
