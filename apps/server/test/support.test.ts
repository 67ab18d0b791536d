// The admin app's procedures as support and admin staff call them (in process, createCaller, the same
// pipeline as REST): roles decide what is allowed, every call lands in the append-only staff actions, and
// what support sees is what the REST API did (a request found by its X-Request-ID, a sandbox reset
// whose effect the API shows).
import { randomUUID } from 'node:crypto';
import { assert, describe, expect, it } from 'vitest';
import { createCaller, toProblem } from '@tlr/api';
import { api, idem, newCompany, newStaff, ok, testDb, useCompany, waitFor } from './helpers.ts';

// The service the REST side goes through; each test makes the companies it looks at.
const t = useCompany();

/** A staff account and its in-process caller (what the admin app's pages call). */
async function staff(role: 'support' | 'admin') {
  const user = await newStaff(role);
  return { ...user, api: createCaller(testDb(), { type: 'staff', userId: user.id, role }) };
}

const trail = (userId: string) => testDb().prisma.staffAudit.findMany({ where: { staff_user_id: userId }, orderBy: { id: 'asc' } });

describe('support staff', () => {
  it('find a company by API key prefix and see its keys, sandbox, connected apps and webhooks', async () => {
    const support = await staff('support');
    // A company with exactly one key: the overview lists that one.
    const company = await newCompany('Support Søg ApS');
    const key = await company.key(['customers:read'], 'test');
    const found = await support.api.internal.listCompanies({ search: key.key_prefix });
    expect(found.map((c) => c.id)).toEqual([company.companyId]);
    const overview = await support.api.support.company({ companyId: company.companyId });
    expect(overview.company).toMatchObject({ id: company.companyId, name: 'Support Søg ApS', owner_email: company.email });
    expect(overview.sandbox_id).toBe(key.company_id);
    expect(overview.api_keys.map((k) => k.key_prefix)).toEqual([key.key_prefix]);
    expect(JSON.stringify(overview)).not.toContain(key.key);
  });

  it('look up a request by the X-Request-ID the API answered with', async () => {
    const support = await staff('support');
    const { company, api: c } = await t.another('Request Opslag ApS');
    const res = await c.GET('/customers/{id}', { params: { path: { id: '00000000-0000-7000-8000-000000000000' } } });
    expect(res.response.status).toBe(404);
    const requestId = res.response.headers.get('x-request-id');
    assert(requestId, 'the answer names its request');
    const [found] = await waitFor(async () => {
      const rows = await support.api.support.request({ requestId });
      return rows.length ? rows : null;
    });
    expect(found).toMatchObject({
      request_id: requestId,
      method: 'GET',
      path: '/api/v1/customers/00000000-0000-7000-8000-000000000000',
      status: 404,
      problem_code: 'not_found',
      company_id: company.companyId,
      company_name: 'Request Opslag ApS',
      credential: expect.stringMatching(/^api_key [0-9a-f-]{36}$/),
    });
    expect(found?.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('reset a sandbox on the owner request: the API then shows the sandbox empty', async () => {
    const support = await staff('support');
    const company = await newCompany('Nulstil Mig ApS');
    const sb = api(t.svc.url, (await company.key(undefined, 'test')).key);
    await ok(sb.POST('/customers', { params: idem(), body: { name: 'Skal væk' } }));
    const { reset } = await support.api.support.resetSandbox({ companyId: company.companyId });
    const done = await waitFor(async () => {
      const r = await support.api.support.sandboxReset({ companyId: company.companyId, id: reset.id });
      return r.status === 'done' ? r : null;
    });
    expect(done.requested_by).toBe(`staff ${support.id}`);
    expect((await ok(sb.GET('/customers'))).meta.total).toBe(0);
  });

  it('cannot do what needs the admin role; the refusal is in the trail', async () => {
    const support = await staff('support');
    const company = await newCompany('Rolle ApS');
    const key = await company.key();
    const refused = await support.api.internal.revokeApiKey({ id: key.id, companyId: company.companyId }).catch((e: unknown) => toProblem(e));
    expect(refused).toMatchObject({ status: 403, code: 'forbidden' });
    expect((await api(t.svc.url, key.key).GET('/customers')).response.status).toBe(200);
    expect((await trail(support.id)).map((r) => [r.action, r.outcome, r.company_id])).toEqual([['internal.revokeApiKey', 'forbidden', company.companyId]]);
  });

  it('admin revokes a key (401 at once through the API); every action is in the trail, which nobody can change', async () => {
    const admin = await staff('admin');
    const company = await newCompany('Admin Spærrer ApS');
    const key = await company.key();
    await admin.api.support.company({ companyId: company.companyId });
    await admin.api.internal.revokeApiKey({ id: key.id, companyId: company.companyId });
    expect((await api(t.svc.url, key.key).GET('/customers')).response.status).toBe(401);
    const records = await trail(admin.id);
    expect(records.map((r) => [r.action, r.kind, r.outcome])).toEqual([
      ['support.company', 'query', 'ok'],
      ['internal.revokeApiKey', 'mutation', 'ok'],
    ]);
    const [first] = records;
    assert(first);
    expect(records[1]).toMatchObject({ staff_email: admin.email, role: 'admin', company_id: company.companyId, target: `id=${key.id}` });
    // Append-only: the database refuses to change or remove a record, whoever asks.
    await expect(testDb().pool.query('UPDATE staff_audit SET outcome = $1 WHERE id = $2', ['changed', first.id])).rejects.toThrow(/append-only/);
    await expect(testDb().pool.query('DELETE FROM staff_audit WHERE id = $1', [first.id])).rejects.toThrow(/append-only/);
    await expect(testDb().pool.query('TRUNCATE staff_audit')).rejects.toThrow(/append-only/);
    expect((await admin.api.support.staffActions({ companyId: company.companyId })).map((r) => r.action)).toEqual(
      expect.arrayContaining(['internal.revokeApiKey', 'support.company']),
    );
  });

  it('a change that fails is recorded with its problem, and nothing of it commits', async () => {
    const admin = await staff('admin');
    const company = await newCompany('Fejl ApS');
    const missing = randomUUID();
    const refused = await admin.api.internal.revokeApiKey({ id: missing, companyId: company.companyId }).catch((e: unknown) => toProblem(e));
    expect(refused).toMatchObject({ status: 404 });
    expect((await trail(admin.id)).map((r) => [r.action, r.outcome])).toEqual([['internal.revokeApiKey', 'not_found']]);
  });

  it('an owner or an API credential cannot call support procedures', async () => {
    const company = await newCompany('Ejer ApS');
    const owner = createCaller(testDb(), { type: 'owner', userId: company.userId });
    expect(await owner.support.company({ companyId: company.companyId }).catch((e: unknown) => toProblem(e).status)).toBe(403);
    expect(await owner.support.health({}).catch((e: unknown) => toProblem(e).status)).toBe(403);
  });

  it('health answers queue depths, deliveries waiting and the database round trip', async () => {
    const support = await staff('support');
    const health = await support.api.support.health({});
    expect(health.database.reachable).toBe(true);
    expect(health.deliveries).toMatchObject({ waiting: expect.any(Number), dead_letters: expect.any(Number) });
    expect(Array.isArray(health.queues)).toBe(true);
  });
});
