// Partner applications: registered by the operator (`tlr oauth-client create`), the secret shown once
// and stored as a digest. Revoking a client ends every grant and token it holds, at once on every
// server (authentication reads revoked_at on each request).
import { timingSafeEqual } from 'node:crypto';
import type { Db } from '@tlr/db';
import { invalidRequest, notFound } from '../errors.ts';
import { isUuid, newId } from '../ids.ts';
import type { Scope } from '../credentials/scopes.ts';
import { generateToken, isToken, redirectUriProblem, tokenDigest, type RegisteredClient } from './rules.ts';

export interface CreateOAuthClientInput {
  name: string;
  redirectUris: string[];
  scopes: Scope[];
  contact?: string | undefined;
}

export interface OAuthClientView {
  client_id: string;
  name: string;
  contact: string;
  redirect_uris: string[];
  scopes: string[];
  created_at: string;
  revoked_at: string | null;
}

type ClientRow = Awaited<ReturnType<Db['oAuthClient']['findFirstOrThrow']>>;
const view = (c: ClientRow): OAuthClientView => ({
  client_id: c.id,
  name: c.name,
  contact: c.contact,
  redirect_uris: c.redirect_uris,
  scopes: c.scopes,
  created_at: c.created_at.toISOString(),
  revoked_at: c.revoked_at?.toISOString() ?? null,
});

/** `allowLocalhost`: http://localhost redirect URIs (OAUTH_ALLOW_HTTP_LOCALHOST, development only). */
export async function createOAuthClient(db: Db, input: CreateOAuthClientInput, allowLocalhost = false): Promise<OAuthClientView & { client_secret: string }> {
  const name = input.name.trim();
  if (!name) throw invalidRequest('The application name is empty.', 'name');
  if (name.length > 100) throw invalidRequest('The application name is longer than 100 characters.', 'name');
  if (input.redirectUris.length === 0) throw invalidRequest('A client needs at least one redirect URI.', 'redirect_uris');
  for (const uri of input.redirectUris) {
    const problem = redirectUriProblem(uri, allowLocalhost);
    if (problem) throw invalidRequest(problem, 'redirect_uris');
  }
  if (input.scopes.length === 0) throw invalidRequest('A client needs at least one scope.', 'scopes');
  const contact = (input.contact ?? '').trim();
  if (contact && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(contact)) throw invalidRequest('The technical contact is not an e-mail address.', 'contact');
  const secret = generateToken('clientSecret');
  const row = await db.oAuthClient.create({
    data: {
      id: newId(),
      name,
      contact,
      redirect_uris: [...new Set(input.redirectUris)],
      scopes: [...new Set(input.scopes)],
      secret_hash: tokenDigest(secret),
    },
  });
  return { ...view(row), client_secret: secret };
}

export async function listOAuthClients(db: Db): Promise<OAuthClientView[]> {
  const rows = await db.oAuthClient.findMany({ orderBy: [{ created_at: 'desc' }, { id: 'desc' }] });
  return rows.map(view);
}

export async function revokeOAuthClient(db: Db, clientId: string): Promise<OAuthClientView> {
  const existing = isUuid(clientId) ? await db.oAuthClient.findUnique({ where: { id: clientId } }) : null;
  if (!existing) throw notFound('OAuth client', clientId);
  if (existing.revoked_at) return view(existing);
  const now = new Date();
  await db.oAuthGrant.updateMany({ where: { client_id: clientId, revoked_at: null }, data: { revoked_at: now } });
  return view(await db.oAuthClient.update({ where: { id: clientId }, data: { revoked_at: now } }));
}

/** An active (not revoked) client, as the authorization page needs it; null for anything else. */
export async function findActiveClient(db: Db, clientId: string): Promise<RegisteredClient | null> {
  if (!isUuid(clientId)) return null;
  const c = await db.oAuthClient.findFirst({ where: { id: clientId.toLowerCase(), revoked_at: null } });
  return c && { id: c.id, name: c.name, redirect_uris: c.redirect_uris, scopes: c.scopes };
}

/**
 * Client authentication (RFC 6749 2.3.1): the client id and secret, compared in constant time over the
 * digests. Null for an unknown, revoked or wrongly authenticated client: the token endpoint answers all
 * of them alike (invalid_client), so that it reveals nothing about which client ids exist.
 */
export async function authenticateClient(db: Db, clientId: unknown, secret: unknown): Promise<RegisteredClient | null> {
  if (typeof clientId !== 'string' || typeof secret !== 'string' || !isUuid(clientId)) return null;
  const given = tokenDigest(isToken('clientSecret', secret) ? secret : `invalid:${secret}`);
  const c = await db.oAuthClient.findFirst({ where: { id: clientId.toLowerCase(), revoked_at: null } });
  if (!c) return null;
  const stored = Buffer.from(c.secret_hash);
  if (stored.length !== given.length || !timingSafeEqual(stored, given)) return null;
  return { id: c.id, name: c.name, redirect_uris: c.redirect_uris, scopes: c.scopes };
}
