// The scope rule of every endpoint, whether a tRPC procedure or a plain Express route (XML, raw
// bytes): every listed scope is required; internal callers (CLI, admin) hold them all.
import { DomainError, forbidden, type Credential, type Scope } from '@tlr/domain';

export function requireScopes(credential: Credential | null | undefined, scopes: readonly Scope[]): Credential {
  if (!credential) {
    throw new DomainError({ status: 401, code: 'unauthorized', title: 'Unauthorized', detail: 'Missing or invalid credentials.' });
  }
  const missing = scopes.filter((s) => !credential.scopes.has(s));
  if (missing.length && credential.type !== 'internal') {
    throw forbidden(`This endpoint requires the scope ${missing.join(' and ')}, which the credential was not granted.`);
  }
  return credential;
}
