// Starting a sandbox reset and waiting for it, for every caller: the REST endpoint (which waits for the
// outcome) and support staff (who watch its progress). With a job queue the sandbox-reset job runs it;
// a one-shot caller without one (the CLI) runs the same function itself.
import { inTransaction, type Db } from '@tlr/db';
import { getSandboxReset, requestSandboxReset, runSandboxReset, type SandboxResetView } from '@tlr/domain';
import type { ApiContext } from './context.ts';

export async function startSandboxReset(ctx: ApiContext, sandboxId: string, requestedBy: string): Promise<{ reset: SandboxResetView; joined: boolean }> {
  const db = ctx.db.prisma as Db;
  const started = await requestSandboxReset(db, sandboxId, requestedBy);
  if (ctx.jobs) {
    // Enqueued again when joined too: cheap (the job is a no-op once done), and it revives a reset
    // whose job died with its worker.
    await ctx.jobs.sandboxReset(started.reset.id);
    return started;
  }
  const reset = (await runSandboxReset(db, inTransaction(ctx.db), started.reset.id, ctx.store)) ?? started.reset;
  return { reset, joined: started.joined };
}

/**
 * Waits for the job to finish the reset. If no worker has finished it within `pickupMs` (workers busy,
 * or none running), the caller runs the same job function itself: the reset's row lock lets only one
 * runner at a time apply it, so a worker that started meanwhile is waited for, not doubled.
 */
export async function awaitSandboxReset(ctx: ApiContext, reset: SandboxResetView, pickupMs: number): Promise<SandboxResetView> {
  const db = ctx.db.prisma as Db;
  const until = Date.now() + pickupMs;
  let seen = reset;
  while (Date.now() < until) {
    seen = (await getSandboxReset(db, reset.id)) ?? seen;
    if (seen.status === 'done' || seen.status === 'failed') return seen;
    await new Promise((r) => setTimeout(r, 50));
  }
  if (seen.status === 'done' || seen.status === 'failed') return seen;
  return (await runSandboxReset(db, inTransaction(ctx.db), reset.id, ctx.store)) ?? seen;
}
