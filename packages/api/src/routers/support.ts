// The admin app's procedures for support staff (and the operator): find a company and everything
// attached to it, look up a request by its X-Request-ID, reset a sandbox on the owner's request, watch
// and replay webhook deliveries, and read the health of the service and the staff actions. Every call of
// a staff member is recorded by the pipeline (trpc.ts, recorded). Revoking keys, grants and clients
// (admin role) are the internal and oauth procedures the CLI and the owner pages use too.
import { z } from 'zod';
import {
  companyOverview,
  createStaffUser,
  deadLetters,
  forbidden,
  getSandboxReset,
  getStaffUser,
  listStaffActions,
  lookupRequest,
  notFound,
  replaySubscriptionDelivery,
  sandboxOf,
  serviceHealth,
  STAFF_ROLES,
  subscriptionDeliveries,
} from '@tlr/domain';
import { startSandboxReset } from '../sandbox-resets.ts';
import { uuid } from '@tlr/domain/fields';
import { internalProcedure, router } from '../trpc.ts';

const companyId = uuid();

export const supportRouter = router({
  /** `tlr staff create`: the operator only. */
  createStaff: internalProcedure
    .input(z.strictObject({ email: z.string().max(320), password: z.string().max(1024), role: z.enum(STAFF_ROLES) }))
    .mutation(({ ctx, input }) => createStaffUser(ctx.tx, input)),
  /** Who is signed in to the admin app. */
  me: internalProcedure
    .meta({ staffRole: 'support' })
    .input(z.strictObject({}))
    .query(async ({ ctx }) => {
      if (ctx.actor?.type !== 'staff') throw forbidden('Only a staff member has a staff account.');
      const me = await getStaffUser(ctx.tx, ctx.actor.userId);
      if (!me) throw notFound('staff user', ctx.actor.userId);
      return me;
    }),
  company: internalProcedure
    .meta({ staffRole: 'support' })
    .input(z.strictObject({ companyId }))
    .query(({ ctx, input }) => companyOverview(ctx.tx, input.companyId)),
  /** The X-Request-ID an integrator quotes. */
  request: internalProcedure
    .meta({ staffRole: 'support' })
    .input(z.strictObject({ requestId: z.string().min(1).max(200) }))
    .query(({ ctx, input }) => lookupRequest(ctx.tx, input.requestId)),
  /** Enqueues the reset of a live company's sandbox (the owner asked); pressing twice joins the first. */
  resetSandbox: internalProcedure
    .meta({ staffRole: 'support', transaction: false })
    .input(z.strictObject({ companyId }))
    .mutation(async ({ ctx, input }) => {
      const sandboxId = await sandboxOf(ctx.tx, input.companyId);
      const by = ctx.actor?.type === 'staff' ? `staff ${ctx.actor.userId}` : 'operator';
      return startSandboxReset(ctx, sandboxId, by);
    }),
  sandboxReset: internalProcedure
    .meta({ staffRole: 'support' })
    .input(z.strictObject({ companyId, id: uuid() }))
    .query(async ({ ctx, input }) => {
      const reset = await getSandboxReset(ctx.tx, input.id);
      if (!reset || reset.company_id !== (await sandboxOf(ctx.tx, input.companyId))) throw notFound('sandbox reset', input.id);
      return reset;
    }),
  deliveries: internalProcedure
    .meta({ staffRole: 'support' })
    .input(z.strictObject({ companyId, subscriptionId: uuid() }))
    .query(({ ctx, input }) => subscriptionDeliveries(ctx.tx, input.companyId, input.subscriptionId)),
  replayDelivery: internalProcedure
    .meta({ staffRole: 'support' })
    .input(z.strictObject({ companyId, subscriptionId: uuid(), deliveryId: uuid() }))
    .mutation(({ ctx, input }) => replaySubscriptionDelivery(ctx.tx, input.companyId, input.subscriptionId, input.deliveryId)),
  deadLetters: internalProcedure
    .meta({ staffRole: 'support' })
    .input(z.strictObject({}))
    .query(({ ctx }) => deadLetters(ctx.tx)),
  health: internalProcedure
    .meta({ staffRole: 'support' })
    .input(z.strictObject({}))
    .query(({ ctx }) => serviceHealth(ctx.tx)),
  /** The staff actions: readable by staff, changed by nobody (the database refuses UPDATE and DELETE). */
  staffActions: internalProcedure
    .meta({ staffRole: 'support' })
    .input(z.strictObject({ companyId: companyId.optional() }))
    .query(({ ctx, input }) => listStaffActions(ctx.tx, { companyId: input.companyId })),
});
