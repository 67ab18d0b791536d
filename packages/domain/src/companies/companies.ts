// Companies and their owners. Every live company may have one sandbox: a separate company, owned by
// the same user, with the live company's settings and none of its data, created with the first test key.
import type { Company, Db } from '@tlr/db';
import { DomainError, invalidRequest, notFound } from '../errors.ts';
import { checkCvr, normalizeCvr } from '../identifiers/cvr.ts';
import { isUuid, newId } from '../ids.ts';
import { provisionBooks } from '../ledger/books.ts';
import { hashPassword, verifyPassword } from '../credentials/secrets.ts';
import { amountToJson } from '../money.ts';
import type { ReminderSettingsInput } from '../invoices/reminder-schema.ts';

export interface CreateCompanyInput {
  name: string;
  ownerEmail: string;
  ownerPassword: string;
  cvr?: string | undefined;
}

export async function createCompany(db: Db, input: CreateCompanyInput): Promise<{ company_id: string; user_id: string }> {
  const name = input.name.trim();
  if (!name) throw invalidRequest('The company name is empty.', 'name');
  const email = input.ownerEmail.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw invalidRequest('The owner e-mail is not an e-mail address.', 'owner_email');
  if (input.ownerPassword.length < 8) throw invalidRequest('The owner password must have at least 8 characters.', 'owner_password');
  const badCvr = input.cvr === undefined ? undefined : checkCvr(input.cvr);
  if (badCvr) throw invalidRequest(`The CVR number ${badCvr}.`, 'cvr');

  let user = await db.user.findUnique({ where: { email } });
  if (user) {
    // An owner may have several companies; adding one needs that owner's password.
    if (!(await verifyPassword(user.password_hash, input.ownerPassword))) {
      throw new DomainError('owner_exists', `A user ${email} exists and the password does not match.`);
    }
  } else {
    user = await db.user.create({ data: { id: newId(), email, password_hash: await hashPassword(input.ownerPassword) } });
  }
  const company = await db.company.create({
    data: { id: newId(), name, owner_user_id: user.id, ...(input.cvr ? { cvr: normalizeCvr(input.cvr) } : {}) },
  });
  await provisionBooks(db, company);
  return { company_id: company.id, user_id: user.id };
}

export async function getLiveCompany(db: Db, companyId: string): Promise<Company> {
  const company = await db.company.findUnique({ where: { id: companyId } });
  if (!company) throw notFound('company', companyId);
  if (company.sandbox_of_id) throw invalidRequest(`Company ${companyId} is a sandbox; use its live company ${company.sandbox_of_id}.`, 'company');
  return company;
}

/** The seller on the company's invoices: address, contact, where to pay and its Peppol endpoint. */
const COMPANY_PROFILE_FIELDS = [
  'address_line1',
  'address_line2',
  'postal_code',
  'city',
  'country',
  'email',
  'phone',
  'bank_reg_number',
  'bank_account_number',
  'iban',
  'peppol_id',
  'fi_creditor_number',
  'se_number',
  'eu_sales_frequency',
] as const;
export type CompanyProfile = Record<(typeof COMPANY_PROFILE_FIELDS)[number], string>;
const companyProfile = (c: Company): CompanyProfile => Object.fromEntries(COMPANY_PROFILE_FIELDS.map((f) => [f, c[f]])) as CompanyProfile;

/** How the company reminds (invoices/send-reminders.ts): the settings as stored. */
const reminderSettings = (c: Company) => ({
  reminder_fee_enabled: c.reminder_fee_enabled,
  reminder_fee: c.reminder_fee,
  reminder_interest_enabled: c.reminder_interest_enabled,
  reminder_reference_rate: c.reminder_reference_rate,
  reminders_automatic: c.reminders_automatic,
});

/**
 * What a sandbox mirrors of its live company (contract: currency, VAT registration, fiscal year bounds),
 * and the seller its invoices print: CVR and profile.
 */
export function mirroredSettings(live: Company) {
  return {
    cvr: live.cvr,
    currency: live.currency,
    vat_registered: live.vat_registered,
    fiscal_year_start_month: live.fiscal_year_start_month,
    vat_period_frequency: live.vat_period_frequency,
    einvoice_auto_send: live.einvoice_auto_send,
    ...reminderSettings(live),
    ...companyProfile(live),
  };
}

/**
 * The sandbox of a live company, created on first use with its own seeded books (the standard chart,
 * a fiscal year and VAT periods for the current year with the live company's frequency). Callers that
 * arrive at once (three test keys created together, on any servers) queue on the live company's row
 * lock, so the first creates the sandbox and the others find it; `db` must be a transaction.
 */
export async function ensureSandbox(db: Db, live: Company): Promise<Company> {
  await db.$queryRaw`SELECT 1 FROM companies WHERE id = ${live.id}::uuid FOR UPDATE`;
  const existing = await db.company.findUnique({ where: { sandbox_of_id: live.id } });
  if (existing) return existing;
  // Mirrored as it is now, under the lock: a change of the seller that committed after the caller read
  // `live` found no sandbox to copy itself to (updateCompanyProfile), so it must come from here.
  const current = await db.company.findUniqueOrThrow({ where: { id: live.id } });
  const sandbox = await db.company.create({
    data: {
      id: newId(),
      name: `${current.name} (sandbox)`,
      ...mirroredSettings(current),
      owner_user_id: current.owner_user_id,
      sandbox_of_id: current.id,
    },
  });
  await provisionBooks(db, sandbox);
  return sandbox;
}

export interface CompanySummary {
  id: string;
  name: string;
  cvr: string | null;
  owner_email: string;
  sandbox_id: string | null;
  created_at: string;
}

/** Live companies, newest first, optionally matching a name, CVR, owner e-mail or company id. */
export async function listCompanies(db: Db, input: { search?: string | undefined } = {}): Promise<CompanySummary[]> {
  const term = input.search?.trim();
  const rows = await db.company.findMany({
    where: {
      sandbox_of_id: null,
      ...(term
        ? {
            OR: [
              { name: { contains: term, mode: 'insensitive' as const } },
              { cvr: term },
              { owner: { email: { contains: term.toLowerCase() } } },
              ...(isUuid(term) ? [{ id: term }, { sandbox: { id: term } }] : []),
              // An API key prefix as listings show it (tlr_live_ab12), the live company's or its sandbox's.
              ...(/^tlr_(live|test)_[0-9a-f]{0,48}$/.test(term)
                ? [
                    { api_keys: { some: { key_prefix: { startsWith: term.slice(0, 13) } } } },
                    { sandbox: { api_keys: { some: { key_prefix: { startsWith: term.slice(0, 13) } } } } },
                  ]
                : []),
            ],
          }
        : {}),
    },
    include: { owner: { select: { email: true } }, sandbox: { select: { id: true } } },
    orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
    take: 200,
  });
  return rows.map((c) => ({
    id: c.id,
    name: c.name,
    cvr: c.cvr,
    owner_email: c.owner.email,
    sandbox_id: c.sandbox?.id ?? null,
    created_at: c.created_at.toISOString(),
  }));
}

/** The company as its settings page and invoices show it: name, CVR, books settings and the seller profile. */
export function companySettingsView(c: Company) {
  return {
    id: c.id,
    name: c.name,
    cvr: c.cvr ?? '',
    livemode: c.sandbox_of_id === null,
    currency: c.currency,
    vat_registered: c.vat_registered,
    fiscal_year_start_month: c.fiscal_year_start_month,
    vat_period_frequency: c.vat_period_frequency,
    lock_date: c.lock_date ? c.lock_date.toISOString().slice(0, 10) : null,
    einvoice_auto_send: c.einvoice_auto_send,
    reminder_fee_enabled: c.reminder_fee_enabled,
    reminder_fee: amountToJson(c.reminder_fee),
    reminder_interest_enabled: c.reminder_interest_enabled,
    reminder_reference_rate: c.reminder_reference_rate.toFixed(2),
    reminders_automatic: c.reminders_automatic,
    ...companyProfile(c),
  };
}

export async function getCompanySettings(db: Db, companyId: string) {
  const company = await db.company.findUnique({ where: { id: companyId } });
  if (!company) throw notFound('company', companyId);
  return companySettingsView(company);
}

/** What PUT /settings/company, `tlr company set` and the owner's company page change: the seller printed on invoices. */
export type SellerInput = Partial<CompanyProfile> &
  ReminderSettingsInput & {
    name?: string | undefined;
    /** A CVR number checked by identifiers/cvr.ts (the callers' schemas do it), or "" to remove it. */
    cvr?: string | undefined;
    /** Approving an invoice also queues it as an e-invoice (einvoice/outbound.ts, queueOnApproval). */
    einvoice_auto_send?: boolean | undefined;
  };

/**
 * Updates the seller (name, CVR and profile) of a company, whether it sends e-invoices on approval and how
 * it reminds (fees, interest, the daily job);
 * only the fields given change. A live company's sandbox gets the same (its invoices print the same
 * seller, and are sent the same way); a sandbox changes only itself.
 * `db` must be a transaction.
 */
export async function updateCompanyProfile(db: Db, companyId: string, input: SellerInput) {
  const { cvr, reminder_fee, reminder_reference_rate, ...rest } = input;
  // No CVR is stored as null, as a company created without one has it.
  const data: Record<string, string | boolean | null> = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  if (reminder_fee !== undefined) data.reminder_fee = reminder_fee.toFixed(2);
  if (reminder_reference_rate !== undefined) data.reminder_reference_rate = reminder_reference_rate.toFixed(2);
  if (cvr !== undefined) data.cvr = cvr || null;
  const company = await db.company.update({ where: { id: companyId }, data }).catch((e: unknown) => {
    throw (e as { code?: string }).code === 'P2025' ? notFound('company', companyId) : e;
  });
  if (company.sandbox_of_id === null) {
    const { name, ...profile } = data;
    await db.company.updateMany({
      where: { sandbox_of_id: companyId },
      data: { ...profile, ...(name !== undefined ? { name: `${String(name)} (sandbox)` } : {}) },
    });
  }
  return companySettingsView(company);
}
