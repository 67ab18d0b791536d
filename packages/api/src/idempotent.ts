// Runs a create POST under its Idempotency-Key (contract: Conventions 2). The key is claimed, the
// resource created, and the response stored in one transaction; a repeat gets the stored response
// with X-Idempotency-Replayed: true and creates nothing.
import {
  claimIdempotencyKey,
  IDEMPOTENCY_KEY_MAX,
  invalidRequest,
  storeIdempotentResponse,
  type Claim,
} from '@tlr/domain';
import type { Db } from '@tlr/db';
import type { ApiContext } from './context.ts';

class Replay {
  constructor(readonly claim: Extract<Claim, { claimed: false }>) {}
}

export function idempotencyKeyOf(ctx: ApiContext): string {
  const raw = ctx.headers['idempotency-key'];
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (key === undefined || key.trim() === '') {
    throw invalidRequest('The Idempotency-Key header is required on this endpoint.', 'Idempotency-Key');
  }
  if (key.length > IDEMPOTENCY_KEY_MAX) {
    throw invalidRequest(`The Idempotency-Key header has more than ${IDEMPOTENCY_KEY_MAX} characters.`, 'Idempotency-Key');
  }
  return key;
}

export async function idempotentCreate<T>(ctx: ApiContext, endpoint: string, create: (tx: Db) => Promise<T>): Promise<T> {
  const key = idempotencyKeyOf(ctx);
  const companyId = ctx.credential!.companyId;
  const status = 201;
  try {
    const body = await ctx.db.prisma.$transaction(
      async (tx) => {
        const claim = await claimIdempotencyKey(tx, companyId, key, endpoint);
        if (!claim.claimed) throw new Replay(claim);
        const result = await create(tx);
        await storeIdempotentResponse(tx, companyId, key, status, result);
        return result;
      },
      // A concurrent twin waits on the key's row lock until the first commits: allow for it.
      { maxWait: 10_000, timeout: 30_000 },
    );
    ctx.response.status = status;
    return body;
  } catch (e) {
    if (!(e instanceof Replay)) throw e;
    if (e.claim.endpoint !== endpoint) {
      throw invalidRequest(
        `The Idempotency-Key was already used on ${e.claim.endpoint}; use a new key for this endpoint.`,
        'Idempotency-Key',
      );
    }
    ctx.response.status = e.claim.status;
    ctx.response.headers['X-Idempotency-Replayed'] = 'true';
    return e.claim.body as T;
  }
}

/** Updates and deletes: one transaction, no idempotency key (PUT and DELETE are idempotent by nature). */
export function inTransaction<T>(ctx: ApiContext, work: (tx: Db) => Promise<T>): Promise<T> {
  return ctx.db.prisma.$transaction((tx) => work(tx), { maxWait: 10_000, timeout: 30_000 });
}
