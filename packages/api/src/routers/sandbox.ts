// POST /sandbox/reset: test keys only, any scope, no body and no idempotency key.
import { z } from 'zod';
import { assertMayResetSandbox, resetSandbox } from '@tlr/domain';
import { single } from '../schemas/envelopes.ts';
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
          'Test keys only (any scope); live keys and OAuth tokens get 403. Deletes all bookkeeping data, master data, stored idempotency keys and events of the sandbox and seeds the chart of accounts, fiscal year and VAT periods again. API keys, webhook subscriptions and request audit records survive. No body, no Idempotency-Key.',
      },
      problems: [403],
      testKeysOnly: true,
    })
    // No body (contract): void, so the document declares no request body and clients send none.
    .input(z.void())
    .output(single(z.object({ company_id: z.guid(), reset: z.literal(true) })))
    .mutation(async ({ ctx }) => {
      assertMayResetSandbox(ctx.credential);
      return { data: await resetSandbox(ctx.tx, ctx.credential.companyId, ctx.store ? { store: ctx.store, afterCommit: ctx.afterCommit } : undefined) };
    }),
});
