// /einvoices: the e-invoices sent (POST /invoices/{id}/send), replayed when they failed or were refused.
import { z } from 'zod';
import { einvoiceMessageResource, replayEinvoice } from '@tlr/domain';
import { uuid } from '@tlr/domain/fields';
import { metaOf } from '../crud.ts';
import { single } from '../schemas/envelopes.ts';
import { authedProcedure, router } from '../trpc.ts';

const tag = 'E-invoices';
export const einvoicesRouter = router({
  replay: authedProcedure
    .meta(
      metaOf(
        {
          path: '/einvoices/{id}/replay',
          tag,
          summary: 'Send a failed or rejected e-invoice again',
          description:
            'Queues the message again from the start of the retry schedule, with the same document (the same UUID); answers 202 with the message. Only a failed (every attempt failed) or rejected message: any other is 409 einvoice_not_replayable.',
          scope: 'invoices:write',
          problems: [409],
        },
        'POST',
        { idempotent: { status: 202, optional: true } },
      ),
    )
    .input(z.strictObject({ id: uuid() }))
    .output(single(einvoiceMessageResource))
    .mutation(async ({ ctx, input }) => ({ data: await replayEinvoice(ctx.tx, ctx.scope, input.id) })),
});
