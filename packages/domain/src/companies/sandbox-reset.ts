// Sandbox resets as background work (contract, Test mode 4): a request records a pending reset, or joins
// the one already pending or running for that sandbox (a partial unique index allows one), and the
// sandbox-reset job runs it. The reset itself is one transaction that first locks its row: a worker
// killed half-way leaves the sandbox untouched and the row unfinished, and the retried job (or the
// next worker to start) runs it again; a second runner waits on the lock and then finds it done.
import type { Db, InTransaction } from '@tlr/db';
import { isUniqueViolation } from '@tlr/db';
import { forbidden, notFound } from '../errors.ts';
import { isUuid, newId } from '../ids.ts';
import type { VoucherStore } from '../vouchers/vouchers.ts';
import { resetSandbox } from './sandbox.ts';

export type SandboxResetStatus = 'pending' | 'running' | 'done' | 'failed';

/** Attempts before a reset is given up as failed (each is a job run that threw). */
const RESET_ATTEMPTS = 5;

export interface SandboxResetView {
  id: string;
  company_id: string;
  status: SandboxResetStatus;
  requested_by: string;
  attempts: number;
  error: string;
  requested_at: string;
  started_at: string | null;
  finished_at: string | null;
}

type ResetRow = Awaited<ReturnType<Db['sandboxReset']['findFirstOrThrow']>>;
const sandboxResetView = (r: ResetRow): SandboxResetView => ({
  id: r.id,
  company_id: r.company_id,
  status: r.status as SandboxResetStatus,
  requested_by: r.requested_by,
  attempts: r.attempts,
  error: r.error,
  requested_at: r.requested_at.toISOString(),
  started_at: r.started_at?.toISOString() ?? null,
  finished_at: r.finished_at?.toISOString() ?? null,
});

/**
 * A reset of this sandbox: a new pending one, or the one pending or running already (`joined`), so that
 * pressing twice, or two requests at once on two servers, reset once.
 */
export async function requestSandboxReset(db: Db, sandboxId: string, requestedBy: string): Promise<{ reset: SandboxResetView; joined: boolean }> {
  const company = isUuid(sandboxId) ? await db.company.findUnique({ where: { id: sandboxId }, select: { sandbox_of_id: true } }) : null;
  if (!company) throw notFound('company', sandboxId);
  if (!company.sandbox_of_id) throw forbidden('Only a sandbox company can be reset.');
  for (;;) {
    const open = await db.sandboxReset.findFirst({ where: { company_id: sandboxId, status: { in: ['pending', 'running'] } } });
    if (open) return { reset: sandboxResetView(open), joined: true };
    try {
      const row = await db.sandboxReset.create({ data: { id: newId(), company_id: sandboxId, status: 'pending', requested_by: requestedBy } });
      return { reset: sandboxResetView(row), joined: false };
    } catch (e) {
      // Another request created it between our read and our insert: join that one.
      if (!isUniqueViolation(e)) throw e;
    }
  }
}

export async function getSandboxReset(db: Db, id: string): Promise<SandboxResetView | null> {
  const row = isUuid(id) ? await db.sandboxReset.findUnique({ where: { id } }) : null;
  return row && sandboxResetView(row);
}

export async function listSandboxResets(db: Db, sandboxId: string, take = 20): Promise<SandboxResetView[]> {
  const rows = await db.sandboxReset.findMany({ where: { company_id: sandboxId }, orderBy: { requested_at: 'desc' }, take });
  return rows.map(sandboxResetView);
}

/** Resets not finished: what a worker resumes when it starts (their job may have died with a worker). */
export async function openSandboxResets(db: Db): Promise<string[]> {
  const rows = await db.sandboxReset.findMany({ where: { status: { in: ['pending', 'running'] } }, select: { id: true }, orderBy: { requested_at: 'asc' } });
  return rows.map((r) => r.id);
}

/**
 * Runs one reset (the job's work). `running` is committed first so that support sees it; the reset,
 * `done` and the attempt's count commit together. A failure is counted and rethrown for the job to
 * retry, until RESET_ATTEMPTS, when the reset is marked failed (nothing of it committed).
 */
export async function runSandboxReset(db: Db, inTx: InTransaction, resetId: string, store?: VoucherStore): Promise<SandboxResetView | null> {
  const started = await db.sandboxReset.updateMany({
    where: { id: resetId, status: { in: ['pending', 'running'] } },
    data: { status: 'running', started_at: new Date() },
  });
  if (started.count === 0) return getSandboxReset(db, resetId); // done, failed or unknown: nothing to do
  const cleanups: ((pool: Db) => Promise<void>)[] = [];
  try {
    const done = await inTx(async (tx) => {
      // Whoever holds this lock is the one running it; a second runner waits here, then sees it done.
      const [row] = await tx.$queryRaw<
        { status: string; company_id: string }[]
      >`SELECT status, company_id FROM sandbox_resets WHERE id = ${resetId}::uuid FOR UPDATE`;
      if (!row || row.status !== 'running') return null;
      await resetSandbox(tx, row.company_id, store ? { store, afterCommit: (fn) => void cleanups.push(fn) } : undefined);
      return tx.sandboxReset.update({ where: { id: resetId }, data: { status: 'done', finished_at: new Date(), error: '', attempts: { increment: 1 } } });
    });
    for (const cleanup of cleanups) await cleanup(db).catch(() => {}); // the sweeper finishes what fails here
    return done ? sandboxResetView(done) : getSandboxReset(db, resetId);
  } catch (e) {
    const message = e instanceof Error ? e.message.slice(0, 500) : String(e);
    const row = await db.sandboxReset.findUnique({ where: { id: resetId } }).catch(() => null);
    const giveUp = (row?.attempts ?? 0) >= RESET_ATTEMPTS;
    await db.sandboxReset
      .updateMany({
        where: { id: resetId, status: 'running' },
        data: giveUp ? { status: 'failed', error: message, finished_at: new Date() } : { error: message },
      })
      .catch(() => {});
    if (giveUp) return getSandboxReset(db, resetId);
    throw e;
  }
}
