// The 19 scopes of the contract, fixed on a key at creation.
export const SCOPES = [
  'invoices:read',
  'invoices:write',
  'customers:read',
  'customers:write',
  'products:read',
  'products:write',
  'expenses:read',
  'expenses:write',
  'accounts:read',
  'accounts:write',
  'transactions:read',
  'transactions:write',
  'suppliers:read',
  'suppliers:write',
  'vouchers:read',
  'vouchers:write',
  'reports:read',
  'exports:read',
  'webhooks:manage',
] as const;
export type Scope = (typeof SCOPES)[number];

export const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);

/** Parses "a,b" or "all" (CLI) into a de-duplicated scope list; returns the unknown names otherwise. */
export function parseScopes(text: string): { scopes: Scope[] } | { unknown: string[] } {
  const names = text.split(/[\s,]+/).filter(Boolean);
  if (names.length === 1 && names[0] === 'all') return { scopes: [...SCOPES] };
  const unknown = names.filter((n) => !isScope(n));
  if (unknown.length || names.length === 0) return { unknown: unknown.length ? unknown : ['(none given)'] };
  return { scopes: [...new Set(names)] as Scope[] };
}
