// matchRoute decides 404, 405 (with Allow) and which procedure runs, for every request.
import { describe, expect, it } from 'vitest';
import { matchRoute, routes } from './routes.ts';

const ID = '0190f3c2-7b1e-7000-8000-000000000001';
const sample = (path: string) => path.replace(/\{\w+\}/g, ID);

describe('matchRoute', () => {
  it('finds every route of the table from a path made of its template', () => {
    expect(routes.length).toBeGreaterThan(40);
    for (const route of routes) {
      const { route: found, allowed } = matchRoute(route.method, sample(route.path));
      expect(found, `${route.method} ${route.path}`).toBe(route);
      expect(allowed).toContain(route.method);
    }
  });

  it('names the methods of a known path, and none for an unknown one', () => {
    const one = matchRoute('PATCH', `/customers/${ID}`);
    expect(one.route).toBeUndefined();
    expect(one.allowed.sort()).toEqual(['DELETE', 'GET', 'PUT']);
    expect(matchRoute('GET', '/customers').route?.procedure).toBe('customers.list');
    // A static segment wins over the parameter it could also be: lookup is not a customer id.
    expect(matchRoute('GET', '/customers/lookup').route?.procedure).toBe('customers.lookup');
    expect(matchRoute('GET', '/customers/').route?.procedure).toBe('customers.list');
    expect(matchRoute('GET', `/webhooks/${ID}/deliveries/${ID}/replay`).allowed).toEqual(['POST']);
    for (const path of ['/', '/nothing', `/nothing/${ID}`, `/customers/${ID}/nothing`, '/customersx', `//customers/${ID}`]) {
      expect(matchRoute('GET', path), path).toEqual({ route: undefined, allowed: [] });
    }
  });
});
