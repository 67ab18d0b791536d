// Internal procedures for the operator CLI and the admin app: called in process (createCaller) by an
// operator or a staff user, never exposed over REST (they have no OpenAPI meta).
import { z } from 'zod';
import { createApiKey, createCompany, listApiKeys, listCompanies, revokeApiKey, SCOPES, updateAccountingSettings, VAT_FREQUENCIES } from '@tlr/domain';
import { date, integer, uuid } from '../schemas/fields.ts';
import { internalProcedure, router } from '../trpc.ts';

const companyId = uuid();

export const internalRouter = router({
  createCompany: internalProcedure
    .input(z.strictObject({ name: z.string(), ownerEmail: z.string(), ownerPassword: z.string(), cvr: z.string().optional() }))
    .mutation(({ ctx, input }) => createCompany(ctx.tx, input)),
  listCompanies: internalProcedure
    .meta({ staffRole: 'support' })
    .input(z.strictObject({ search: z.string().max(200).optional() }))
    .query(({ ctx, input }) => listCompanies(ctx.tx, input)),
  createApiKey: internalProcedure
    .input(
      z.strictObject({
        companyId,
        name: z.string(),
        scopes: z.array(z.enum(SCOPES)),
        mode: z.enum(['live', 'test']),
        expiresAt: z.date().optional(),
      }),
    )
    .mutation(({ ctx, input }) => createApiKey(ctx.tx, input)),
  revokeApiKey: internalProcedure
    .meta({ staffRole: 'admin' })
    .input(z.strictObject({ id: uuid() }))
    .mutation(({ ctx, input }) => revokeApiKey(ctx.tx, input.id)),
  updateAccountingSettings: internalProcedure
    .input(
      z.strictObject({
        companyId,
        fiscal_year_start_month: integer(1, 12).optional(),
        vat_registered: z.boolean().optional(),
        vat_period_frequency: z.enum(VAT_FREQUENCIES, { error: `must be one of ${VAT_FREQUENCIES.join(', ')}` }).optional(),
        lock_date: date().nullable().optional(),
      }),
    )
    .mutation(({ ctx, input: { companyId, ...settings } }) => updateAccountingSettings(ctx.tx, companyId, settings)),
  listApiKeys: internalProcedure
    .meta({ staffRole: 'support' })
    .input(z.strictObject({ companyId }))
    .query(({ ctx, input }) => listApiKeys(ctx.tx, input.companyId)),
});
