// Hostile and odd input (issue: faults and hostile input): NUL characters, lone surrogates, dates at
// the edges of the calendar, deep JSON, amounts at the edge of what a double holds, a sandbox reset in
// the middle of postings, keys with whitespace and a revoked key that was rate-limited. Never a 500.
// The hostile requests go through the raw client (`t.raw`), byte for byte as written here; the ordinary
// ones around them through the typed client.
import { randomUUID } from 'node:crypto';
import type { MethodResponse } from 'openapi-fetch';
import { describe, expect, it } from 'vitest';
import { api, idem, internal, newCompany, ok, testDb, useCompany, type Api } from './helpers.ts';

const t = useCompany();

const posting = (amount: number | string, date = '2026-03-02') => ({
  date,
  lines: [
    { account_number: '6470', debit: amount },
    { account_number: '1010', credit: amount },
  ],
});

describe('text', () => {
  it('a NUL in a body field, a search, a lookup value or an Idempotency-Key is a 400 naming it, never a 500', async () => {
    const body = await t.raw.post('/customers', { name: 'A\u0000B' });
    expect(body.status).toBe(400);
    expect(body.body).toMatchObject({ code: 'invalid_request', field: 'name' });
    expect(body.body.detail).toMatch(/NUL/);
    const nested = await t.raw.post('/transactions', {
      ...posting(1),
      lines: [
        { account_number: '6470', debit: 1, description: '\u0000' },
        { account_number: '1010', credit: 1 },
      ],
    });
    expect(nested.body).toMatchObject({ status: 400, field: 'lines[0].description' });
    for (const [path, field] of [
      ['/customers?search=a%00b', 'search'],
      ['/customers/lookup?email=x%00%40y.dk', 'email'],
      ['/transactions?since=2026-01-01%00', 'since'],
    ] as const) {
      const r = await t.raw.get(path);
      expect(r.status, path).toBe(400);
      expect(r.body, path).toMatchObject({ code: 'invalid_request', field });
    }
  });

  it('a lone surrogate is refused (never stored as U+FFFD); well-formed astral text is kept', async () => {
    const raw = await t.raw.call('POST', '/customers', {
      raw: '{"name":"a\\ud800b"}',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'lone-1' },
    });
    expect(raw.status).toBe(400);
    expect(raw.body).toMatchObject({ field: 'name' });
    expect(raw.body.detail).toMatch(/lone surrogate/);
    const kept = await t.api.POST('/customers', { params: idem(), body: { name: 'Bageriet 🍞 Æblegården' } });
    expect(kept.response.status).toBe(201);
    expect(kept.data?.data.name).toBe('Bageriet 🍞 Æblegården');
  });

  it(`JSON nested thousands of levels deep is a 400, never a stack overflow`, async () => {
    const deep = `{"name":${'['.repeat(4500)}${']'.repeat(4500)}}`;
    const r = await t.raw.call('POST', '/customers', { raw: deep, headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'deep-1' } });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/nested deeper than 64 levels/);
  });
});

describe('dates at the edges', () => {
  it('year 0000 and years before 1900 or after 9998 are 400s naming the parameter', async () => {
    const cases: [string, string][] = [
      ['/customers?since=0000-01-01', 'since'],
      ['/customers?until=0000-12-31', 'until'],
      ['/reports/balance?as_of=0000-06-30', 'as_of'],
      ['/reports/balance?as_of=0099-12-31', 'as_of'],
      ['/reports/balance?as_of=0999-12-31', 'as_of'],
      ['/reports/profit-loss?to=0099-12-31', 'to'],
      ['/reports/profit-loss?from=1899-12-31', 'from'],
      ['/exports/saft?from=9999-01-01', 'from'],
    ];
    for (const [path, field] of cases) {
      const r = await t.raw.get(path);
      expect(r.status, path).toBe(400);
      expect(r.body, path).toMatchObject({ code: 'invalid_request', field });
      expect(r.body.detail, path).toMatch(/between 1900-01-01 and 9998-12-31|valid calendar date/);
    }
    const posted = await t.raw.post('/transactions', posting(1, '0000-01-01'));
    expect(posted.body).toMatchObject({ status: 400, field: 'date' });
  });

  it('the last accepted day works everywhere a date is derived from it (a fiscal year ending in 9999)', async () => {
    const split = await newCompany('Skævt regnskabsår ApS');
    await internal().internal.updateAccountingSettings({ companyId: split.companyId, fiscal_year_start_month: 7 });
    const c = api(t.svc.url, (await split.key()).key);
    const balance = await c.GET('/reports/balance', { params: { query: { as_of: '9998-12-31' } } });
    expect(balance.response.status).toBe(200);
    expect(balance.data?.data.fiscal_year).toEqual({ start_date: '9998-07-01', end_date: '9999-06-30' });
    expect((await c.GET('/reports/profit-loss', { params: { query: { to: '9998-12-31' } } })).response.status).toBe(200);
    const first = await ok(c.GET('/reports/balance', { params: { query: { as_of: '1900-01-01' } } }));
    expect(first.data.fiscal_year).toEqual({ start_date: '1899-07-01', end_date: '1900-06-30' });
    expect((await c.GET('/customers', { params: { query: { until: '9998-12-31' } } })).response.status).toBe(200);
  });
});

describe('large amounts', () => {
  it('the largest amount, sent as a JSON number or a string, is posted and answered with its exact digits', async () => {
    const { api: typed, raw: fresh } = await t.another('Store Beløb ApS');
    // Sent and read as text: JSON.stringify and JSON.parse would round 999999999999999.99.
    const largest =
      '{"date":"2026-03-02","lines":[{"account_number":"6470","debit":999999999999999.99},{"account_number":"1010","credit":999999999999999.99}]}';
    const asNumber = await fresh.call<MethodResponse<Api, 'post', '/transactions'>>('POST', '/transactions', {
      raw: largest,
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'big-1' },
    });
    expect(asNumber.status).toBe(201);
    expect(asNumber.text).toContain('"debit":999999999999999.99');
    expect(asNumber.text).toContain('"total_debit":999999999999999.99');
    // the replay is the same text
    const replay = await fresh.call('POST', '/transactions', { raw: largest, headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'big-1' } });
    expect(replay.text).toBe(asNumber.text);
    // the event carries the same digits
    const { rows } = await testDb().pool.query<{ total: string }>(
      `SELECT data->>'total_debit' AS total FROM outbox_events WHERE type = 'transaction.created' AND data->>'id' = $1`,
      [asNumber.body.data.id],
    );
    expect(rows).toEqual([{ total: '999999999999999.99' }]);
    expect((await typed.POST('/transactions', { params: idem(), body: posting('999999999999999.99') })).response.status).toBe(201);
    // two of them on one account: a balance past 10^15, still exact, and both reports agree
    const balance = await fresh.get<MethodResponse<Api, 'get', '/reports/balance'>>('/reports/balance?as_of=2026-12-31');
    expect(balance.status).toBe(200);
    expect(balance.text).toContain('"total_assets":1999999999999999.98');
    expect(balance.body.data.balanced).toBe(true);
    const pl = await fresh.get('/reports/profit-loss?from=2026-01-01&to=2026-12-31');
    expect(pl.text).toContain('"result":1999999999999999.98');
  });

  it('one øre more, or a document total beyond the largest amount, is a 400 naming the field', async () => {
    const over = await t.raw.post('/transactions', posting('1000000000000000.00'));
    expect(over.body).toMatchObject({ status: 400, field: 'lines[0].debit' });
    expect(over.body.detail).toMatch(/at most 999999999999999.99/);
    const sum = await t.raw.post('/transactions', {
      date: '2026-03-02',
      lines: [
        { account_number: '6470', debit: '999999999999999.99' },
        { account_number: '6480', debit: '0.01' },
        { account_number: '1010', credit: '999999999999999.99' },
        { account_number: '1010', credit: '0.01' },
      ],
    });
    expect(sum.body).toMatchObject({ status: 400, field: 'lines' });
    const price = await t.raw.post('/products', { name: 'Dyr', unit_price: 1e15 });
    expect(price.body).toMatchObject({ status: 400, field: 'unit_price' });
    // A number no double holds (JSON.parse makes it Infinity) and an amount of the wrong type: the
    // amount rule names what is wrong, not a generic "Invalid input".
    const huge = await t.raw.call('POST', '/products', {
      raw: '{"name":"Uendelig","unit_price":1e400}',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
    });
    expect(huge.body).toMatchObject({ status: 400, field: 'unit_price', detail: 'unit_price: must be a finite number' });
    const typed = await t.raw.post('/products', { name: 'Forkert', unit_price: { dkk: 5 } });
    expect(typed.body).toMatchObject({ status: 400, field: 'unit_price', detail: 'unit_price: must be a decimal number' });

    // The optional identifiers ("" or null for none) given another type say so too.
    for (const field of ['cvr', 'email', 'phone', 'ean']) {
      const r = await t.raw.post('/customers', { name: 'Forkert type', [field]: 12345674 });
      expect(r.body, field).toMatchObject({ status: 400, field, detail: `${field}: must be a string` });
    }
    // A value past a bound is told the bound, not zod's "Too big: expected string to have <=200 characters".
    const long = await t.raw.post('/customers', { name: 'x'.repeat(201) });
    expect(long.body).toMatchObject({ status: 400, field: 'name', detail: 'name: must have at most 200 characters' });
    const terms = await t.raw.post('/customers', { name: 'Lang kredit', payment_terms_days: 366 });
    expect(terms.body).toMatchObject({ status: 400, field: 'payment_terms_days', detail: 'payment_terms_days: must be at most 365' });
    const empty = await t.raw.post('/customers', { name: '' });
    expect(empty.body).toMatchObject({ status: 400, field: 'name', detail: 'name: must not be empty' });
  });
});

describe('the bound of a decimal in the OpenAPI document', () => {
  it('every amount, quantity, percent and rate a client sends states its bounds, as exclusive bounds where a double cannot write the largest', async () => {
    const doc = await t.raw.get<Record<string, unknown>>('/openapi.json');
    expect(doc.status).toBe(200);
    const decimals: { at: string; node: Record<string, unknown> }[] = [];
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}/${i}`));
      if (!node || typeof node !== 'object') return;
      const o = node as Record<string, unknown>;
      // A decimal a client sends is a JSON number or a decimal string (fields.ts).
      if (Array.isArray(o.type) && o.type.includes('number') && o.type.includes('string')) decimals.push({ at, node: o });
      for (const [k, v] of Object.entries(o)) walk(v, `${at}/${k}`);
    };
    walk(doc.body, '#');
    expect(decimals.length).toBeGreaterThan(10);
    const unbounded = decimals.filter(
      ({ node }) => typeof (node.maximum ?? node.exclusiveMaximum) !== 'number' || typeof (node.minimum ?? node.exclusiveMinimum) !== 'number',
    );
    expect(unbounded.map((d) => d.at)).toEqual([]);
    // An amount: below 10^15 either way, i.e. at most 999999999999999.99 with its 2 decimals (which a double would write as 10^15).
    const text = JSON.stringify(doc.body);
    expect(text).toContain('"exclusiveMinimum":-1000000000000000');
    expect(text).toContain('"exclusiveMaximum":1000000000000000');
    expect(text).not.toContain('"maximum":1000000000000000');
  });
});

describe('a sandbox reset in the middle of postings', () => {
  it('each posting completes before it or is refused with 409; never a 500, and the books stay consistent', async () => {
    const owner = await newCompany();
    const sandbox = api(t.svc.url, (await owner.key(undefined, 'test')).key);
    const statuses: number[] = [];
    const posts = Array.from({ length: 40 }, async (_, i) => {
      if (i === 20) {
        const reset = await sandbox.POST('/sandbox/reset');
        expect(reset.response.status).toBe(200);
        return;
      }
      const r = await sandbox.POST('/transactions', { params: idem(), body: posting(i + 1) });
      statuses.push(r.response.status);
      if (r.response.status !== 201) expect(r.error?.code, JSON.stringify(r.error)).toBe('conflict');
    });
    await Promise.all(posts);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    // what survived is gapless from 1
    const list = await ok(sandbox.GET('/transactions', { params: { query: { per_page: 200, sort: 'created_at', order: 'asc' } } }));
    expect(list.data.map((x) => x.document_number)).toEqual(list.data.map((_, i) => i + 1));
    expect((await ok(sandbox.GET('/reports/balance'))).data.balanced).toBe(true);
  });
});

describe('credentials', () => {
  it('a key with a non-breaking space around it is not the key', async () => {
    for (const padded of [`\u00a0${t.key}`, `${t.key}\u00a0`]) {
      const r = await fetch(`${t.svc.url}/api/v1/customers`, { headers: { 'X-API-Key': padded } }).catch(() => null);
      // fetch refuses to send some bytes; when it does send, the answer is 401
      if (r) expect(r.status).toBe(401);
    }
    const latin1 = await new Promise<number>((resolve, reject) => {
      // a raw request, so the byte 0xA0 reaches the server whatever fetch allows
      import('node:http').then(({ request }) => {
        const req = request(
          `${t.svc.url}/api/v1/customers`,
          { headers: { 'X-API-Key': Buffer.from(`${t.key}\u00a0`, 'latin1').toString('latin1') } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end();
      });
    });
    expect(latin1).toBe(401);
  });

  it('a key revoked while it is rate-limited answers 401 at once, not 429 until its window ends', async () => {
    const k = await t.company.key(['customers:read']);
    const c = api(t.svc.url, k.key);
    let last = 0;
    for (let i = 0; i < 101; i++) last = (await c.GET('/customers', { params: { query: { per_page: 1 } } })).response.status;
    expect(last).toBe(429);
    expect((await c.GET('/customers')).response.status).toBe(429);
    await internal().internal.revokeApiKey({ id: k.id });
    const r = await c.GET('/customers');
    expect(r.response.status).toBe(401);
    expect(r.response.headers.get('x-ratelimit-limit')).toBeNull();
  });
});
