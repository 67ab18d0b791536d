import { describe, expect, it } from 'vitest';
import { parseScopes, scopeSet } from './scopes.ts';

describe('scopeSet (the scopes of an authenticated credential)', () => {
  it('splits the space-separated list PostgreSQL sends into its scopes', () => {
    expect([...scopeSet('customers:read invoices:write')]).toEqual(['customers:read', 'invoices:write']);
  });

  it('gives no scope for a credential whose list is empty', () => {
    expect(scopeSet('').size).toBe(0);
  });

  it('parses each distinct list once and shares its set', () => {
    const first = scopeSet('products:read suppliers:read');
    expect(scopeSet('products:read suppliers:read')).toBe(first);
    expect(scopeSet('products:read')).not.toBe(first);
    expect(scopeSet('products:read').has('suppliers:read')).toBe(false);
  });
});

describe('parseScopes (CLI)', () => {
  it('expands "all" and refuses unknown names', () => {
    expect(parseScopes('all')).toEqual({ scopes: expect.arrayContaining(['webhooks:manage', 'invoices:read']) });
    expect(parseScopes('customers:read,nope')).toEqual({ unknown: ['nope'] });
  });
});
