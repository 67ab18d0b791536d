// How a mutation runs: in one database transaction, and, when its meta says `idempotent`, under the
// caller's Idempotency-Key (contract: Conventions 2). The key is claimed, the procedure run and its
// response stored in that one transaction, so the change and its stored response commit together or
// not at all; a repeat on the same endpoint gets the stored status and body with
// X-Idempotency-Replayed: true and changes nothing; the same key on another endpoint is a 400.
// Two identical calls at the same moment (on any servers) race for the key's row: the second waits
// for the first to commit and then replays it.
import { userInfo } from 'node:os';
import type { Database, Db } from '@tlr/db';
import {
  actingAs,
  claimIdempotencyKey,
  flushEvents,
  holdEvents,
  IDEMPOTENCY_KEY_MAX,
  invalidRequest,
  storeIdempotentResponse,
  type Claim,
  type GivenActor,
} from '@tlr/domain';
import type { ApiContext } from './context.ts';
import { inspectInput } from './inspect.ts';
import type { ApiMeta } from './trpc.ts';

interface Result {
  ok: boolean;
  data?: unknown;
}

/** Leaves the transaction (rolling it back) with the procedure's failed result. */
class Rollback<R> {
  readonly result: R;
  constructor(result: R) {
    this.result = result;
  }
}
class Replay {
  readonly claim: Extract<Claim, { claimed: false }>;
  constructor(claim: Extract<Claim, { claimed: false }>) {
    this.claim = claim;
  }
}

/** The control trail's name for the caller (trail/actor.ts); null: nobody identified. */
export function trailActor(actor: ApiContext['actor']): GivenActor | null {
  switch (actor?.type) {
    case 'credential':
      return { type: actor.credential.type === 'oauth_token' ? 'oauth_token' : 'api_key', id: actor.credential.id };
    case 'owner':
    case 'staff':
      return { type: actor.type, id: actor.userId };
    case 'operator':
      return { type: 'operator', id: null, name: `operator CLI (${userInfo().username})` };
    default:
      return null;
  }
}

async function inTransaction<R extends Result>(ctx: ApiContext, work: (tx: Db) => Promise<R>, timeoutMs?: number): Promise<R> {
  const db: Database = ctx.db;
  const actor = trailActor(ctx.actor);
  // Every registration the work makes records who made it and from which request (control trail): the
  // actor rides on the transaction's BEGIN.
  const run = <T>(fn: () => Promise<T>) => (actor ? actingAs(actor, ctx.requestId, fn) : fn());
  try {
    return await run(() =>
      db.prisma.$transaction(
        async (tx) => {
          // The events the work records are written in one statement at its end (with the stored
          // response, for an idempotent create), not one round trip each.
          holdEvents(tx);
          const result = await work(tx);
          if (!result.ok) throw new Rollback(result);
          await flushEvents(tx);
          return result;
        },
        { ...db.transactionOptions, ...(timeoutMs ? { timeout: timeoutMs } : {}) },
      ),
    );
  } catch (e) {
    if (e instanceof Rollback) return e.result as R;
    throw e;
  }
}

function idempotencyKeyOf(key: string | undefined, required: boolean): string | undefined {
  if (key === undefined || key.trim() === '') {
    if (required) throw invalidRequest('The Idempotency-Key header is required on this endpoint.', 'Idempotency-Key');
    return undefined;
  }
  const fault = inspectInput(key, 'Idempotency-Key');
  if (fault) throw invalidRequest(`The Idempotency-Key header ${fault.message}.`, 'Idempotency-Key');
  if (key.length > IDEMPOTENCY_KEY_MAX) {
    throw invalidRequest(`The Idempotency-Key header has more than ${IDEMPOTENCY_KEY_MAX} characters.`, 'Idempotency-Key');
  }
  return key;
}

/**
 * The endpoint a key is bound to: method and concrete path (the same key on the reversal of another
 * transaction is another endpoint), or the procedure path for procedures without a REST path.
 */
function endpointOf(meta: ApiMeta | undefined, procedurePath: string, rawInput: unknown): string {
  const openapi = meta?.openapi;
  if (!openapi) return procedurePath;
  const params = (rawInput ?? {}) as Record<string, unknown>;
  return `${openapi.method} ${openapi.path.replace(/\{(\w+)\}/g, (_, name: string) => String(params[name] ?? ''))}`;
}

/** The middleware's answer for a replay: the stored body, without running the procedure. */
const replayed = <R extends Result>(data: unknown) => ({ marker: 'middlewareMarker', ok: true, data }) as unknown as R;

export async function runMutation<R extends Result>(o: {
  ctx: ApiContext;
  meta: ApiMeta | undefined;
  path: string;
  getRawInput: () => Promise<unknown>;
  next: (tx: Db) => Promise<R>;
}): Promise<R> {
  const { ctx, meta } = o;
  const idempotent = meta?.idempotent;
  const key = idempotent && idempotencyKeyOf(ctx.idempotencyKey, !idempotent.optional);
  if (!idempotent || key === undefined) {
    const result = await inTransaction(ctx, o.next, meta?.transactionTimeoutMs);
    if (result.ok && (idempotent || meta?.created)) ctx.response.status = idempotent?.status ?? 201;
    return result;
  }
  if (ctx.actor?.type !== 'credential') throw new Error(`${o.path}: idempotency keys are scoped to a credential's company`);
  const companyId = ctx.actor.credential.companyId;
  const endpoint = endpointOf(meta, o.path, await o.getRawInput());
  try {
    const result = await inTransaction(
      ctx,
      async (tx) => {
        const claim = await claimIdempotencyKey(tx, companyId, key, endpoint);
        if (!claim.claimed) throw new Replay(claim);
        const r = await o.next(tx);
        if (r.ok) await storeIdempotentResponse(tx, companyId, key, idempotent.status, r.data);
        return r;
      },
      meta?.transactionTimeoutMs,
    );
    if (result.ok) ctx.response.status = idempotent.status;
    return result;
  } catch (e) {
    if (!(e instanceof Replay)) throw e;
    if (e.claim.endpoint !== endpoint) {
      throw invalidRequest(`The Idempotency-Key was already used on ${e.claim.endpoint}; use a new key for this endpoint.`, 'Idempotency-Key');
    }
    ctx.response.status = e.claim.status;
    ctx.response.headers['X-Idempotency-Replayed'] = 'true';
    return replayed<R>(e.claim.body);
  }
}
