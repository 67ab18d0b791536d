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

const scopeSets = new Map<string, ReadonlySet<string>>();

/**
 * A credential's scopes as a set, from `array_to_string(scopes, ' ')` of its row. Every request
 * authenticates, and pg's parser of a text[] builds each element character by character: that was a
 * quarter of what a GET by id left for the old generation (docs/history/perf-log.md, sixth session). The lists in
 * use are few, so each is split once and its set shared (read-only); the memo is bounded all the same.
 */
export function scopeSet(text: string): ReadonlySet<string> {
  let set = scopeSets.get(text);
  if (!set) {
    if (scopeSets.size >= 1_000) scopeSets.clear();
    set = new Set(text.split(' ').filter(Boolean));
    scopeSets.set(text, set);
  }
  return set;
}
