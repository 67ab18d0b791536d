// GET /bank-accounts/{id}/reconciliation: a bank account against its ledger account,
// and the same for every bank account of a company, for the owner's reconciliation page.
import { z } from 'zod';
import { bankReconciliation, bankReconciliationResource, DomainError, RECONCILIATION_RULES } from '@tlr/domain';
import { date, uuid } from '@tlr/domain/fields';
import { metaOf } from '../crud.ts';
import { single } from '../schemas/envelopes.ts';
import { authedProcedure, internalProcedure, router } from '../trpc.ts';

const asOf = date().optional().meta({ description: 'The day reconciled, at its end (inclusive); default today (Europe/Copenhagen)' });

export const bankReconciliationRouter = router({
  get: authedProcedure
    .meta(
      metaOf(
        {
          path: '/bank-accounts/{id}/reconciliation',
          tag: 'Bank accounts',
          summary: 'Reconcile a bank account with its ledger account',
          description:
            `${RECONCILIATION_RULES} An id that is not one of the company's bank accounts (another company's included) answers 404 not_found; ` +
            "as_of that is not a date, or before the bank account's opening_balance_date, answers 400 invalid_request naming as_of.",
          scope: 'transactions:read',
        },
        'GET',
      ),
    )
    .input(z.strictObject({ id: uuid().meta({ description: 'The bank account id (UUID)' }), as_of: asOf }))
    .output(single(bankReconciliationResource))
    .query(async ({ ctx, input }) => ({ data: await bankReconciliation(ctx.tx, ctx.scope, input.id, input) })),

  /**
   * The owner's reconciliation page: every bank account of a company they own with its reconciliation, or
   * the refusal that stands in its place (an as_of before its opening balance date), so one account's
   * refusal does not hide the others.
   */
  forCompany: internalProcedure
    .meta({ owner: true })
    .input(z.strictObject({ companyId: uuid(), as_of: asOf }))
    .query(async ({ ctx, input }) => {
      const scope = { companyId: input.companyId, livemode: true };
      const accounts = await ctx.tx.bankAccount.findMany({
        where: { company_id: input.companyId },
        orderBy: [{ name: 'asc' }, { id: 'asc' }],
        select: { id: true, name: true, account_number: true, account: { select: { name: true } } },
      });
      const rows = [];
      for (const a of accounts) {
        const reconciliation = await bankReconciliation(ctx.tx, scope, a.id, input).catch((e: unknown) => {
          if (!(e instanceof DomainError) || e.status !== 400) throw e;
          return e.message;
        });
        rows.push({ id: a.id, name: a.name, account_number: a.account_number, account_name: a.account.name, reconciliation });
      }
      return rows;
    }),
});
