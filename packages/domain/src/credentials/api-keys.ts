// API keys: created by the company owner (operator CLI or admin app), shown once, stored as a digest.
// A test key operates on the company's sandbox. Revocation is a column read on every request, so it
// takes effect at once on every server.
import type { Db } from '@tlr/db';
import { invalidRequest, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { ensureSandbox, getLiveCompany } from '../companies/companies.ts';
import type { Scope } from './scopes.ts';
import { generateApiKey, keyDigest, keyPrefix, type KeyMode } from './secrets.ts';

export interface CreateApiKeyInput {
  companyId: string;
  name: string;
  scopes: Scope[];
  mode: KeyMode;
  expiresAt?: Date | undefined;
}

export interface ApiKeyView {
  id: string;
  name: string;
  mode: KeyMode;
  live_mode: boolean;
  key_prefix: string;
  company_id: string;
  scopes: string[];
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  created_at: string;
}

type ApiKeyRow = Awaited<ReturnType<Db['apiKey']['findFirstOrThrow']>>;
const iso = (d: Date | null) => (d ? d.toISOString() : null);
function apiKeyView(k: ApiKeyRow): ApiKeyView {
  return {
    id: k.id,
    name: k.name,
    mode: k.mode as KeyMode,
    live_mode: k.mode === 'live',
    key_prefix: k.key_prefix,
    company_id: k.company_id,
    scopes: k.scopes,
    expires_at: iso(k.expires_at),
    revoked_at: iso(k.revoked_at),
    last_used_at: iso(k.last_used_at),
    created_at: k.created_at.toISOString(),
  };
}

/** Creates a key and returns it in full: the only time it is ever visible. */
export async function createApiKey(db: Db, input: CreateApiKeyInput): Promise<ApiKeyView & { key: string }> {
  const name = input.name.trim();
  if (!name) throw invalidRequest('The key name is empty.', 'name');
  if (input.scopes.length === 0) throw invalidRequest('A key needs at least one scope.', 'scopes');
  if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) throw invalidRequest('The expiry lies in the past.', 'expires_at');
  const live = await getLiveCompany(db, input.companyId);
  const company = input.mode === 'test' ? await ensureSandbox(db, live) : live;
  const key = generateApiKey(input.mode);
  const row = await db.apiKey.create({
    data: {
      id: newId(),
      company_id: company.id,
      name,
      mode: input.mode,
      key_prefix: keyPrefix(key),
      key_hash: keyDigest(key),
      scopes: input.scopes,
      expires_at: input.expiresAt ?? null,
      created_by: live.owner_user_id,
    },
  });
  return { ...apiKeyView(row), key };
}

/** `companyId`: only a key of that live company or of its sandbox (the owner pages); the operator may omit it. */
export async function revokeApiKey(db: Db, id: string, companyId?: string): Promise<ApiKeyView> {
  const existing = await db.apiKey.findFirst({
    where: { id, ...(companyId ? { company: { OR: [{ id: companyId }, { sandbox_of_id: companyId }] } } : {}) },
  });
  if (!existing) throw notFound('API key', id);
  const row = existing.revoked_at ? existing : await db.apiKey.update({ where: { id }, data: { revoked_at: new Date() } });
  return apiKeyView(row);
}

/** The keys of a live company and of its sandbox, newest first. */
export async function listApiKeys(db: Db, companyId: string): Promise<ApiKeyView[]> {
  const live = await getLiveCompany(db, companyId);
  const rows = await db.apiKey.findMany({
    where: { company: { OR: [{ id: live.id }, { sandbox_of_id: live.id }] } },
    orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
  });
  return rows.map(apiKeyView);
}
