// /bank-lines/{id}/match, /unmatch and /post: what the user does with a bank line automatic matching
// left alone (or got wrong). Each posts, or reverses, in the request's transaction with the line locked.
import { z } from 'zod';
import {
  bankLineMatchBody,
  bankLinePostBody,
  bankLineResource,
  bankLineView,
  getBankLine,
  matchBankLine,
  POSTING_WINDOW_DAYS,
  postBankLine,
  unmatchBankLine,
} from '@tlr/domain';
import { uuid } from '@tlr/domain/fields';
import { getEndpoint, metaOf } from '../crud.ts';
import { single } from '../schemas/envelopes.ts';
import { authedProcedure, router } from '../trpc.ts';

const tag = 'Bank accounts';
const scope = 'transactions:write';
const lineId = { id: uuid().meta({ description: 'The bank line id' }) };
const post = (path: `/${string}`, summary: string, description: string, problems: number[] = [409, 422]) =>
  authedProcedure
    .meta(metaOf({ path, tag, summary, description, scope, problems }, 'POST', { idempotent: { status: 200, optional: true } }))
    .output(single(bankLineResource));

export const bankLinesRouter = router({
  get: getEndpoint({
    path: '/bank-lines/{id}',
    tag,
    summary: 'Get a bank line',
    description: 'With its match, or the ranked suggestions automatic matching left when more than one registration fitted.',
    scope: 'transactions:read',
    resource: bankLineResource,
    run: async (db, scope, id) => bankLineView(await getBankLine(db, scope, id)),
  }),
  match: post(
    '/bank-lines/{id}/match',
    'Match a bank line',
    'Names exactly one of invoice_id, expense_id or transaction_id (400 otherwise). An invoice is paid with the line amount on the booking date ' +
      "through the bank account's ledger account (invoice.paid or invoice.updated), an expense is paid in full, an existing posting is linked. " +
      'A line that is matched already: 409 bank_line_matched. A payment the invoice or expense refuses answers as POST /invoices/{id}/payments does ' +
      '(422 overpayment, 409 invalid_transition).',
  )
    .input(z.strictObject({ ...lineId, ...bankLineMatchBody.shape }))
    .mutation(async ({ ctx, input: { id, ...body } }) => ({ data: bankLineView(await matchBankLine(ctx.tx, ctx.scope, id, body)) })),
  unmatch: post(
    '/bank-lines/{id}/unmatch',
    'Unmatch a bank line',
    'The line is unmatched again; what its match posted is reversed by a new entry dated today (the invoice payment, which reopens the invoice; ' +
      "the expense payment, which makes it booked again; the line's own posting). A posting that was only linked stays as it is. " +
      'Automatic matching does not take the line again. A line that is not matched: 409 bank_line_not_matched.',
    [409],
  )
    .input(z.strictObject(lineId))
    .mutation(async ({ ctx, input }) => ({ data: bankLineView(await unmatchBankLine(ctx.tx, ctx.scope, input.id)) })),
  post: post(
    '/bank-lines/{id}/post',
    'Post a bank line to an account',
    'For what pays no document: fees, interest, an owner’s draw. Posts the line on its booking date between the bank account’s ledger account and ' +
      'account_number; with vat_code the amount includes the VAT, split as an expense (purchase code) or a sale (sales code) would, the mirror for ' +
      'money the other way. Only for DKK bank accounts. A line that is matched already: 409 bank_line_matched. ' +
      `Automatic matching, for reference: an FI payment id (+71) of an open invoice; else an invoice number in the text with the balance due equal to the amount; else a booked expense of the amount whose supplier the line names (IBAN or name); else an unreconciled posting of the amount on the bank account within ${POSTING_WINDOW_DAYS} days.`,
  )
    .input(z.strictObject({ ...lineId, ...bankLinePostBody.shape }))
    .mutation(async ({ ctx, input: { id, ...body } }) => ({ data: bankLineView(await postBankLine(ctx.tx, ctx.scope, id, body)) })),
});
