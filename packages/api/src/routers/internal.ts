// Internal procedures for the operator CLI and the admin app: called in process (createCaller) by an
// operator or a staff user, never exposed over REST (they have no OpenAPI meta).
import { z } from 'zod';
import {
  accountingSettings,
  createApiKey,
  createCompany,
  getCompanySettings,
  listApiKeys,
  listCompanies,
  revokeApiKey,
  SCOPES,
  sweepOverdue,
  foldKeptCounts,
  processPendingVouchers,
  sweepStoredObjects,
  updateAccountingSettings,
  updateCompanyProfile,
  VAT_FREQUENCIES,
  invalidRequest,
  loadNationalbankenRates,
  EMAIL_KINDS,
  emailTemplateBody,
  listEmailTemplates,
  updateEmailTemplate,
} from '@tlr/domain';
import { date, exact, uuid } from '@tlr/domain/fields';
import { month } from '@tlr/domain/integers';
import { internalProcedure, router } from '../trpc.ts';
import { companyProfileInput } from './settings.ts';
import { requireStore } from './vouchers.ts';

const companyId = uuid();
const accountingSettingsInput = {
  fiscal_year_start_month: exact(month()).optional(),
  vat_registered: z.boolean().optional(),
  vat_period_frequency: z.enum(VAT_FREQUENCIES, { error: `must be one of ${VAT_FREQUENCIES.join(', ')}` }).optional(),
  lock_date: date().nullable().optional(),
};

export const internalRouter = router({
  createCompany: internalProcedure
    .input(z.strictObject({ name: z.string(), ownerEmail: z.string(), ownerPassword: z.string(), cvr: z.string().optional() }))
    .mutation(({ ctx, input }) => createCompany(ctx.tx, input)),
  listCompanies: internalProcedure
    .meta({ staffRole: 'support' })
    .input(z.strictObject({ search: z.string().max(200).optional() }))
    .query(({ ctx, input }) => listCompanies(ctx.tx, input)),
  createApiKey: internalProcedure
    .meta({ owner: true })
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
  /** The owner pages name the company (a key of another company is not found); the operator may omit it. */
  revokeApiKey: internalProcedure
    .meta({ staffRole: 'admin', owner: true })
    .input(z.strictObject({ id: uuid(), companyId: companyId.optional() }))
    .mutation(({ ctx, input }) => {
      if (ctx.actor?.type === 'owner' && !input.companyId) throw invalidRequest('companyId is required.', 'companyId');
      return revokeApiKey(ctx.tx, input.id, input.companyId);
    }),
  updateAccountingSettings: internalProcedure
    .input(z.strictObject({ companyId, ...accountingSettingsInput }))
    .mutation(({ ctx, input: { companyId, ...settings } }) => updateAccountingSettings(ctx.tx, companyId, settings)),
  /**
   * `tlr company set`: the accounting settings and the seller profile (the same schema, IBAN and
   * registration number rules as PUT /settings/company) in one transaction, so a refused field changes
   * nothing. Bank details decide where customers pay: admin staff only.
   */
  updateCompany: internalProcedure
    .meta({ staffRole: 'admin' })
    .input(z.strictObject({ companyId, ...accountingSettingsInput, ...companyProfileInput }))
    .mutation(async ({ ctx, input: { companyId, fiscal_year_start_month, vat_registered, vat_period_frequency, lock_date, ...profile } }) => {
      const accounting = { fiscal_year_start_month, vat_registered, vat_period_frequency, lock_date };
      // The profile first: it answers 404 for an unknown company.
      await updateCompanyProfile(ctx.tx, companyId, profile);
      const books = Object.values(accounting).some((v) => v !== undefined)
        ? await updateAccountingSettings(ctx.tx, companyId, accounting)
        : await accountingSettings(ctx.tx, companyId);
      // Read after both changes: the profile's view also shows the books settings (VAT, lock date).
      return { ...books, company: await getCompanySettings(ctx.tx, companyId) };
    }),
  /** The owner's company page: the company as GET /settings/company shows it. */
  companySettings: internalProcedure
    .meta({ owner: true })
    .input(z.strictObject({ companyId }))
    .query(({ ctx, input }) => getCompanySettings(ctx.tx, input.companyId)),
  /**
   * The owner's company page: the seller on their invoices (name, CVR, address, contact, bank details)
   * with the schema and rules of PUT /settings/company, as an accounts:write key of theirs may.
   */
  updateSeller: internalProcedure
    .meta({ owner: true })
    .input(z.strictObject({ companyId, ...companyProfileInput }))
    .mutation(({ ctx, input: { companyId, ...seller } }) => updateCompanyProfile(ctx.tx, companyId, seller)),
  /** The owner's e-mail texts page: the templates as GET /settings/email-templates lists them (the company's live books). */
  emailTemplates: internalProcedure
    .meta({ owner: true })
    .input(z.strictObject({ companyId }))
    .query(({ ctx, input }) => listEmailTemplates(ctx.tx, { companyId: input.companyId, livemode: true })),
  /** The owner's e-mail texts page: one kind's text, with the schema and rules of PUT /settings/email-templates/{kind}. */
  updateEmailTemplate: internalProcedure
    .meta({ owner: true })
    .input(z.strictObject({ companyId, kind: z.enum(EMAIL_KINDS), ...emailTemplateBody.shape }))
    .mutation(({ ctx, input: { companyId, kind, ...text } }) => updateEmailTemplate(ctx.tx, { companyId, livemode: true }, kind, text)),
  listApiKeys: internalProcedure
    .meta({ staffRole: 'support', owner: true })
    .input(z.strictObject({ companyId }))
    .query(({ ctx, input }) => listApiKeys(ctx.tx, input.companyId)),
  /** `tlr exchange-rates load`: a file of Nationalbanken's reference rates into the company's exchange-rate table. */
  loadExchangeRates: internalProcedure
    .input(z.strictObject({ companyId, xml: z.string() }))
    .mutation(({ ctx, input }) => loadNationalbankenRates(ctx.tx, input.companyId, input.xml)),
  /** The overdue sweep on demand (it also runs daily as a job): support staff after a holiday, tests. */
  sweepOverdueInvoices: internalProcedure
    .meta({ staffRole: 'support' })
    .input(z.strictObject({ date: date().optional() }))
    .mutation(async ({ ctx, input }) => ({ moved: await sweepOverdue((fn) => fn(ctx.tx), input.date) })),
  /** Folds the lists' kept counts on demand (it also runs every minute as a job). */
  foldKeptCounts: internalProcedure
    .meta({ staffRole: 'support' })
    .input(z.strictObject({}))
    .mutation(async ({ ctx }) => ({ removed: await foldKeptCounts(ctx.tx) })),
  /** Voucher processing and the orphan sweep on demand (they also run as jobs): support staff, tests. */
  processVouchers: internalProcedure
    .meta({ staffRole: 'support' })
    .input(z.strictObject({}))
    .mutation(async ({ ctx }) => ({ completed: await processPendingVouchers((fn) => fn(ctx.tx), requireStore(ctx.store)) })),
  sweepStoredObjects: internalProcedure
    .meta({ staffRole: 'support' })
    .input(z.strictObject({ now: z.date().optional() }))
    .mutation(async ({ ctx, input }) => ({ removed: await sweepStoredObjects((fn) => fn(ctx.tx), requireStore(ctx.store), input.now) })),
});
