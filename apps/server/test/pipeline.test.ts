// One procedure pipeline for every caller: the same procedures called in process (createCaller, as
// the operator CLI and the admin app do) and through REST see the same scopes, idempotency, error
// codes and audit records.
import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { appRouter, callerContext, createCaller, toProblem, type Actor } from '@tlr/api';
import { authedProcedure, createCallerFactory, router } from '@tlr/api/trpc';
import { customers, DomainError, type Credential } from '@tlr/domain';
import { api, auditRecords, databaseUrl, idem, newCompany, ok, requestIdOf, testDb, useCompany } from './helpers.ts';

// Most tests make a company of their own, to count what they did; the fixture's serves the rest.
const t = useCompany();

/** The credential an API key authenticates as, for an in-process caller acting for it. */
async function credentialOf(key: { id: string; company_id: string; scopes: string[]; mode: 'live' | 'test' }): Promise<Actor> {
  const credential: Credential = {
    type: 'api_key',
    id: key.id,
    companyId: key.company_id,
    livemode: key.mode === 'live',
    mode: key.mode,
    scopes: new Set(key.scopes),
  };
  return { type: 'credential', credential };
}

/** What an in-process call throws, as the tRPC error it is. */
async function failure(call: Promise<unknown>): Promise<TRPCError> {
  const e = await call.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(TRPCError);
  return e as TRPCError;
}

describe('an API credential in process and through REST', () => {
  it('is held to the same scopes: 403 forbidden over REST, FORBIDDEN in process, with the same detail', async () => {
    const company = await newCompany();
    const readOnly = await company.key(['customers:read']);
    const rest = await api(t.svc.url, readOnly.key).POST('/customers', { params: idem(), body: { name: 'Nej ApS' } });
    expect(rest.response.status).toBe(403);
    const e = await failure(createCaller(testDb(), await credentialOf(readOnly), { idempotencyKey: 'scope-1' }).customers.create({ name: 'Nej ApS' }));
    expect(e.code).toBe('FORBIDDEN');
    expect(e.message).toBe(rest.error?.detail);
    expect(toProblem(e)).toEqual(rest.error);
    // reading is within its scopes, both ways
    expect((await createCaller(testDb(), await credentialOf(readOnly)).customers.list({})).meta.total).toBe(0);
  });

  it('maps client mistakes to their tRPC codes, never INTERNAL_SERVER_ERROR', async () => {
    const company = await newCompany();
    const key = await company.key();
    const api = createCaller(testDb(), await credentialOf(key), { idempotencyKey: `t-${Date.now()}` });
    const missing = await failure(api.customers.get({ id: '00000000-0000-4000-8000-000000000000' }));
    expect(missing.code).toBe('NOT_FOUND');
    const invalid = await failure(api.customers.update({ id: '00000000-0000-4000-8000-000000000000', cvr: '12' }));
    expect(invalid.code).toBe('BAD_REQUEST');
    expect(toProblem(invalid)).toMatchObject({ status: 400, code: 'invalid_request', field: 'cvr' });
    const unbalanced = await failure(
      api.transactions.create({
        date: '2026-03-01',
        lines: [
          { account_number: '6470', debit: 10 },
          { account_number: '1010', credit: 9 },
        ],
      }),
    );
    expect(unbalanced.code).toBe('UNPROCESSABLE_CONTENT');
    expect(toProblem(unbalanced).code).toBe('unbalanced_transaction');
    const posted = await createCaller(testDb(), await credentialOf(key), { idempotencyKey: `p-${Date.now()}` }).transactions.create({
      date: '2026-03-01',
      lines: [
        { account_number: '6470', debit: 10 },
        { account_number: '1010', credit: 10 },
      ],
    });
    await createCaller(testDb(), await credentialOf(key), { idempotencyKey: `r1-${Date.now()}` }).transactions.reverse({ id: posted.data.id });
    const twice = await failure(
      createCaller(testDb(), await credentialOf(key), { idempotencyKey: `r2-${Date.now()}` }).transactions.reverse({ id: posted.data.id }),
    );
    expect(twice.code).toBe('CONFLICT');
    expect(toProblem(twice).code).toBe('already_reversed');
  });

  it('shares one idempotency store with REST: an in-process create replays over REST on the same endpoint, with 201', async () => {
    const company = await newCompany();
    const key = await company.key();
    const created = await createCaller(testDb(), await credentialOf(key), { idempotencyKey: 'shared-1' }).customers.create({ name: 'Delt ApS' });
    const again = await createCaller(testDb(), await credentialOf(key), { idempotencyKey: 'shared-1' }).customers.create({ name: 'Delt ApS' });
    expect(again).toEqual(created);
    const rest = await api(t.svc.url, key.key).POST('/customers', { params: idem('shared-1'), body: { name: 'Delt ApS' } });
    expect(rest.response.status).toBe(201);
    expect(rest.response.headers.get('x-idempotency-replayed')).toBe('true');
    expect(rest.data).toEqual(created);
    expect((await ok(api(t.svc.url, key.key).GET('/customers'))).meta.total).toBe(1);
    // and a create without a key is refused in process as over REST
    const noKey = await failure(createCaller(testDb(), await credentialOf(key)).customers.create({ name: 'Uden ApS' }));
    expect(noKey.code).toBe('BAD_REQUEST');
    expect(toProblem(noKey)).toMatchObject({ code: 'invalid_request', field: 'Idempotency-Key' });
  });

  it('writes one audit record per call, REST by the HTTP layer and in process by the pipeline, each with its actor', async () => {
    const company = await newCompany();
    const key = await company.key(['customers:read']);
    const rest = await api(t.svc.url, key.key).POST('/customers', { params: idem(), body: { name: 'X' } });
    const [restRow] = await auditRecords(requestIdOf(rest.response));
    expect(restRow).toMatchObject({
      actor_type: 'api_key',
      actor_id: key.id,
      company_id: key.company_id,
      method: 'POST',
      path: '/api/v1/customers',
      status: 403,
      problem_code: 'forbidden',
    });

    const requestId = `inproc-${Date.now()}`;
    await failure(createCaller(testDb(), await credentialOf(key), { requestId, idempotencyKey: 'a-1' }).customers.create({ name: 'X' }));
    expect(await auditRecords(requestId)).toMatchObject([
      { actor_type: 'api_key', actor_id: key.id, company_id: key.company_id, method: 'CALL', path: 'customers.create', status: 403, problem_code: 'forbidden' },
    ]);
    const ok = `inproc-ok-${Date.now()}`;
    await createCaller(testDb(), await credentialOf(key), { requestId: ok }).customers.list({});
    expect(await auditRecords(ok)).toMatchObject([
      { actor_type: 'api_key', actor_id: key.id, company_id: key.company_id, method: 'CALL', path: 'customers.list', status: 200, problem_code: null },
    ]);
  });
});

describe('internal procedures', () => {
  const staff = (role: 'support' | 'admin'): Actor => ({ type: 'staff', userId: '00000000-0000-4000-8000-00000000000a', role });

  it('need an operator or a staff actor with the role; never a bare caller or an API credential', async () => {
    const company = await newCompany();
    const key = await company.key();
    const bare = createCallerFactory(appRouter)({ ...callerContext(testDb(), { type: 'operator' }), actor: null });
    expect((await failure(bare.internal.listApiKeys({ companyId: company.companyId }))).code).toBe('UNAUTHORIZED');
    expect((await failure(createCaller(testDb(), await credentialOf(key)).internal.listApiKeys({ companyId: company.companyId }))).code).toBe('FORBIDDEN');

    // support reads; only admin revokes
    const listed = await createCaller(testDb(), staff('support')).internal.listApiKeys({ companyId: company.companyId });
    expect(listed.map((k) => k.id)).toContain(key.id);
    const denied = await failure(createCaller(testDb(), staff('support')).internal.revokeApiKey({ id: key.id }));
    expect(denied.code).toBe('FORBIDDEN');
    expect((await api(t.svc.url, key.key).GET('/customers')).response.status).toBe(200);
    const revoked = await createCaller(testDb(), staff('admin')).internal.revokeApiKey({ id: key.id });
    expect(revoked.revoked_at).not.toBeNull();
    expect((await api(t.svc.url, key.key).GET('/customers')).response.status).toBe(401);
    // creating companies is the operator's, not staff's
    expect(
      (await failure(createCaller(testDb(), staff('admin')).internal.createCompany({ name: 'X', ownerEmail: 'x@example.dk', ownerPassword: 'long enough' })))
        .code,
    ).toBe('FORBIDDEN');
  });

  it('record the staff user and the company in the audit trail, refusals included', async () => {
    const { company } = t;
    const requestId = `staff-${Date.now()}`;
    await createCaller(testDb(), staff('support'), { requestId }).internal.listApiKeys({ companyId: company.companyId });
    expect(await auditRecords(requestId)).toMatchObject([
      {
        actor_type: 'staff',
        actor_id: '00000000-0000-4000-8000-00000000000a',
        company_id: company.companyId,
        method: 'CALL',
        path: 'internal.listApiKeys',
        status: 200,
        problem_code: null,
      },
    ]);
    const refused = `staff-no-${Date.now()}`;
    await failure(createCaller(testDb(), staff('support'), { requestId: refused }).internal.revokeApiKey({ id: '00000000-0000-4000-8000-000000000001' }));
    expect((await auditRecords(refused))[0]).toMatchObject({ actor_type: 'staff', path: 'internal.revokeApiKey', status: 403, problem_code: 'forbidden' });
  });

  it('validate dates with the one calendar module: an impossible lock date is a 400, never rolled over', async () => {
    const { company } = t;
    const op = createCaller(testDb(), { type: 'operator' });
    const e = await failure(op.internal.updateAccountingSettings({ companyId: company.companyId, lock_date: '2026-02-30' }));
    expect(e.code).toBe('BAD_REQUEST');
    expect(toProblem(e)).toMatchObject({ field: 'lock_date', detail: 'lock_date: must be a valid calendar date' });
    const settings = await op.internal.updateAccountingSettings({ companyId: company.companyId, lock_date: '2026-02-28' });
    expect(settings.lock_date).toBe('2026-02-28');
  });
});

describe('the idempotency middleware', () => {
  // Procedures built from the real pipeline, for what no public endpoint does yet: a 200 state
  // transition under a key, and a procedure that writes and then fails.
  let attempts = 0;
  const probe = router({
    transition: authedProcedure
      .meta({ openapi: { method: 'PUT', path: '/probe/{id}/status' }, scopes: ['customers:write'], idempotent: { status: 200, optional: true } })
      .input(z.object({ id: z.string(), status: z.string() }))
      .output(z.object({ data: z.object({ id: z.string(), name: z.string() }) }))
      .mutation(async ({ ctx, input }) => ({ data: await customers.update(ctx.tx, ctx.scope, input.id, { name: `${input.status} ${++attempts}` }) })),
    writeThenFail: authedProcedure
      .meta({ openapi: { method: 'POST', path: '/probe' }, scopes: ['customers:write'], idempotent: { status: 201 } })
      .input(z.object({ name: z.string(), fail: z.boolean() }))
      .output(z.object({ data: z.object({ id: z.string() }) }))
      .mutation(async ({ ctx, input }) => {
        const created = await customers.create(ctx.tx, ctx.scope, { name: input.name });
        if (input.fail) throw new DomainError('conflict', 'failed after writing');
        return { data: created };
      }),
  });
  const call = (actor: Actor, idempotencyKey?: string) => {
    const ctx = callerContext(testDb(), actor, idempotencyKey ? { idempotencyKey } : {});
    return { ctx, api: createCallerFactory(probe)(ctx) };
  };

  it('serves 200 state transitions: the first runs and answers 200, a repeat with the key replays without running', async () => {
    const company = await newCompany();
    const actor = await credentialOf(await company.key());
    const rest = api(t.svc.url, (await company.key()).key);
    const customer = (await ok(rest.POST('/customers', { params: idem(), body: { name: 'Før' } }))).data;
    const first = call(actor, 'approve-1');
    const r1 = await first.api.transition({ id: customer.id, status: 'approved' });
    expect(first.ctx.response).toEqual({ status: 200, headers: {} });
    const second = call(actor, 'approve-1');
    const r2 = await second.api.transition({ id: customer.id, status: 'approved' });
    expect(r2).toEqual(r1);
    expect(second.ctx.response).toEqual({ status: 200, headers: { 'X-Idempotency-Replayed': 'true' } });
    // the replay did not run the transition again
    const stored = await testDb().prisma.customer.findUniqueOrThrow({ where: { id: customer.id } });
    expect(stored.name).toBe(r1.data.name);
    // the key is bound to the concrete path: the same key on another customer's transition is a 400
    const other = (await ok(rest.POST('/customers', { params: idem(), body: { name: 'Anden' } }))).data;
    const e = await failure(call(actor, 'approve-1').api.transition({ id: other.id, status: 'approved' }));
    expect(toProblem(e)).toMatchObject({ code: 'invalid_request', field: 'Idempotency-Key' });
    // without a key (optional here) it simply runs
    const free = call(actor);
    await free.api.transition({ id: customer.id, status: 'sent' });
    expect(free.ctx.response.status).toBe(200);
  });

  it('rolls back a procedure that wrote and then failed: nothing is stored, and the same key works once it succeeds', async () => {
    const company = await newCompany();
    const actor = await credentialOf(await company.key());
    const failed = await failure(call(actor, 'rollback-1').api.writeThenFail({ name: 'Halvt ApS', fail: true }));
    expect(failed.code).toBe('CONFLICT');
    expect(await testDb().prisma.customer.count({ where: { company_id: company.companyId } })).toBe(0);
    expect(await testDb().prisma.idempotencyKey.count({ where: { company_id: company.companyId } })).toBe(0);
    expect(await testDb().prisma.outboxEvent.count({ where: { company_id: company.companyId } })).toBe(0);
    const done = call(actor, 'rollback-1');
    await done.api.writeThenFail({ name: 'Hel ApS', fail: false });
    expect(done.ctx.response.status).toBe(201);
    expect(await testDb().prisma.customer.count({ where: { company_id: company.companyId } })).toBe(1);
  });
});

describe('test keys of a company without a sandbox yet', () => {
  it('created at the same moment (three callers, three connection pools) all succeed and share one sandbox', async () => {
    const { createDatabase } = await import('@tlr/db');
    const company = await newCompany();
    const pools = [0, 1, 2].map(() => createDatabase(databaseUrl(), 2));
    try {
      const keys = await Promise.all(
        pools.map((db, i) =>
          createCaller(db, { type: 'operator' }).internal.createApiKey({
            companyId: company.companyId,
            name: `t${i}`,
            scopes: ['accounts:read'],
            mode: 'test',
          }),
        ),
      );
      expect(new Set(keys.map((k) => k.company_id)).size).toBe(1);
      expect(keys[0]!.company_id).not.toBe(company.companyId);
      expect(await testDb().prisma.company.count({ where: { sandbox_of_id: company.companyId } })).toBe(1);
      for (const k of keys) expect((await ok(api(t.svc.url, k.key).GET('/accounts', { params: { query: { per_page: 1 } } }))).meta.total).toBe(305);
    } finally {
      await Promise.all(pools.map((p) => p.close()));
    }
  });
});
