// Who may call what: API credentials by their scopes (every listed scope is required; the voucher
// endpoints need both voucher scopes), internal procedures only by the operator or by staff with the
// role the procedure names.
import { forbidden, unauthorized, type Credential, type Scope } from '@tlr/domain';
import type { Actor, StaffRole } from './context.ts';

export function requireScopes(actor: Actor | null, scopes: readonly Scope[]): Credential {
  if (!actor) throw unauthorized();
  if (actor.type !== 'credential') {
    throw forbidden('This procedure acts for an API credential (a company within its scopes); internal callers use the internal procedures.');
  }
  const missing = scopes.filter((s) => !actor.credential.scopes.has(s));
  if (missing.length) throw forbidden(`This endpoint requires the scope ${missing.join(' and ')}, which the credential was not granted.`);
  return actor.credential;
}

const RANK: Record<StaffRole, number> = { support: 1, admin: 2 };

/**
 * `staffRole`: the least role a staff user needs; undefined means the operator only. `owner`: a
 * signed-in company owner may call it too (the caller then checks the company is theirs).
 */
export function requireInternal(actor: Actor | null, staffRole: StaffRole | undefined, owner = false): void {
  if (!actor) throw unauthorized('Internal procedures need an operator or staff actor.');
  if (actor.type === 'operator') return;
  if (actor.type === 'owner') {
    if (owner) return;
    throw forbidden('Company owners cannot do this; it is for the operator or support staff.');
  }
  if (actor.type === 'staff') {
    if (staffRole && RANK[actor.role] >= RANK[staffRole]) return;
    throw forbidden(staffRole ? `This needs the staff role ${staffRole}; you have ${actor.role}.` : 'Only the operator may do this.');
  }
  throw forbidden('Internal procedures are not available to API credentials.');
}
