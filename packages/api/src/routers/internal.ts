// Internal procedures for the operator CLI and the admin app: called directly (createCaller), never
// exposed over REST (they have no OpenAPI meta).
import { z } from 'zod';
import { createApiKey, createCompany, listApiKeys, revokeApiKey, SCOPES, updateAccountingSettings } from '@tlr/domain';
import { publicProcedure, router } from '../trpc.ts';

export const internalRouter = router({
  createCompany: publicProcedure
    .input(z.object({ name: z.string(), ownerEmail: z.string(), ownerPassword: z.string(), cvr: z.string().optional() }))
    .mutation(({ ctx, input }) => ctx.db.prisma.$transaction((tx) => createCompany(tx, input))),
  createApiKey: publicProcedure
    .input(
      z.object({
        companyId: z.guid('company must be a UUID'),
        name: z.string(),
        scopes: z.array(z.enum(SCOPES)),
        mode: z.enum(['live', 'test']),
        expiresAt: z.date().optional(),
      }),
    )
    .mutation(({ ctx, input }) => ctx.db.prisma.$transaction((tx) => createApiKey(tx, input))),
  revokeApiKey: publicProcedure
    .input(z.object({ id: z.guid('id must be a UUID') }))
    .mutation(({ ctx, input }) => revokeApiKey(ctx.db.prisma, input.id)),
  updateAccountingSettings: publicProcedure
    .input(
      z.object({
        companyId: z.guid('company must be a UUID'),
        fiscal_year_start_month: z.int().optional(),
        vat_registered: z.boolean().optional(),
        vat_period_frequency: z.string().optional(),
        lock_date: z.string().nullable().optional(),
      }),
    )
    .mutation(({ ctx, input: { companyId, ...settings } }) =>
      ctx.db.prisma.$transaction((tx) => updateAccountingSettings(tx, companyId, settings)),
    ),
  listApiKeys: publicProcedure
    .input(z.object({ companyId: z.guid('company must be a UUID') }))
    .query(({ ctx, input }) => listApiKeys(ctx.db.prisma, input.companyId)),
});
