// POST /sandbox/reset: test keys only, any scope, no body and no idempotency key. The reset runs as the
// sandbox-reset job and the call waits for its outcome; a request that arrives while one is pending or
// running joins it, so two at once reset once.
import { z } from 'zod';
import { assertMayResetSandbox, DomainError } from '@tlr/domain';
import { single } from '../schemas/envelopes.ts';
import { awaitSandboxReset, startSandboxReset } from '../sandbox-resets.ts';
import { authedProcedure, router } from '../trpc.ts';

export const sandboxRouter = router({
  reset: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/sandbox/reset',
        tags: ['Sandbox'],
        summary: 'Reset the sandbox',
        description:
          'Test keys only (any scope); live keys and OAuth tokens get 403. Deletes all bookkeeping data, master data, stored idempotency keys and events of the sandbox and seeds the chart of accounts, fiscal year and VAT periods again. API keys, webhook subscriptions and request audit records survive. No body, no Idempotency-Key.\n\n' +
          'The reset runs as a background job; the call waits for it and answers 200 when it is done (`reset_id`, `finished_at`). A request that arrives while a reset of the sandbox is pending or running joins it (`joined: true`): two at once reset once. When no worker has taken the job within 2 seconds, the request runs it itself.',
      },
      problems: [403],
      testKeysOnly: true,
      transaction: false,
    })
    // No body (contract): void, so the document declares no request body and clients send none.
    .input(z.void())
    .output(
      single(
        z.object({
          company_id: z.guid(),
          reset: z.literal(true),
          reset_id: z.guid().describe('The reset this request ran or joined'),
          joined: z.boolean().describe('true when the request joined a reset that was already pending or running'),
          requested_at: z.string(),
          finished_at: z.string(),
        }),
      ),
    )
    .mutation(async ({ ctx }) => {
      assertMayResetSandbox(ctx.credential);
      const { reset, joined } = await startSandboxReset(ctx, ctx.credential.companyId, `${ctx.credential.type} ${ctx.credential.id}`);
      const outcome = await awaitSandboxReset(ctx, reset, ctx.jobs?.resetPickupMs ?? 0);
      if (outcome.status !== 'done')
        throw new DomainError('internal_error', `The sandbox reset ${outcome.id} failed: ${outcome.error}. Nothing of it was applied; try again.`);
      return {
        data: {
          company_id: outcome.company_id,
          reset: true as const,
          reset_id: outcome.id,
          joined,
          requested_at: outcome.requested_at,
          finished_at: outcome.finished_at!,
        },
      };
    }),
});
