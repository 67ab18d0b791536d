// Webhooks through HTTP against PostgreSQL and a real local receiver. Contract: Webhook endpoints;
// Events (Subscriptions, Delivery, Signature, Retries and dead letter); Test mode 3; Limits.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send } from '@tlr/domain';
import { client, newCompany, startTestService, testDb, waitFor } from './helpers.ts';
import type { Service } from '../src/service.ts';

interface Received {
  at: number;
  headers: IncomingMessage['headers'];
  raw: string;
}

/** A receiver that records every request and answers what `answer` says (200 by default), when it says. */
async function receiver() {
  const got: Received[] = [];
  let answer: (r: Received) => number | Promise<number> = () => 200;
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const r = { at: Date.now(), headers: req.headers, raw: Buffer.concat(parts).toString('utf8') };
      got.push(r);
      void Promise.resolve(answer(r)).then((status) => res.writeHead(status).end());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    answer: (fn: typeof answer) => (answer = fn),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The receiver's side of docs/webhooks.md, written apart from the service's code. */
function verifies(secret: string, r: Received, now = Date.now()): boolean {
  const m = /^t=(\d+),v1=([A-Za-z0-9_-]+)$/.exec(String(r.headers['service-signature']));
  if (!m) return false;
  if (Math.abs(now / 1000 - Number(m[1])) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${m[1]}.${r.raw}`).digest();
  const given = Buffer.from(m[2]!, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const UNIT = 40; // one "minute" of the retry schedule, in ms

let strict: Service; // production URL rules, no worker
let svc: Service; // WEBHOOK_ALLOW_INSECURE_URLS (a local receiver), the dispatcher running
let hook: Awaited<ReturnType<typeof receiver>>;

beforeAll(async () => {
  [strict, svc, hook] = await Promise.all([
    startTestService(),
    startTestService({ RUN_WORKER: 'true', WEBHOOK_ALLOW_INSECURE_URLS: 'true', WEBHOOK_RETRY_UNIT_MS: String(UNIT) }),
    receiver(),
  ]);
});
afterAll(async () => {
  await Promise.all([strict?.stop(), svc?.stop(), hook?.close()]);
});

describe('subscriptions', () => {
  it('creates with 201 and the secret shown once, without an Idempotency-Key; lists, rotates and deletes', async () => {
    const firm = await newCompany('Abonnent ApS');
    const c = client(strict.url, (await firm.key()).key);
    const r = await c.call('POST', '/webhooks', { body: { url: 'https://93.184.216.34/tlr', events: ['invoice.paid', 'customer.created'] } });
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({
      id: expect.any(String),
      url: 'https://93.184.216.34/tlr',
      events: ['invoice.paid', 'customer.created'],
      created_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
      message: expect.any(String),
    });
    const listed = await c.get('/webhooks');
    expect(listed.body.data).toEqual([
      { id: r.body.data.id, url: 'https://93.184.216.34/tlr', events: ['invoice.paid', 'customer.created'], created_at: r.body.data.created_at },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');
    const rotated = await c.call('POST', `/webhooks/${r.body.data.id}/rotate-secret`, {});
    expect(rotated.status).toBe(200);
    expect(rotated.body.data).toEqual({ id: r.body.data.id, secret: expect.stringMatching(/^whsec_/), message: expect.any(String) });
    expect(rotated.body.data.secret).not.toBe(r.body.data.secret);
    expect((await c.get(`/webhooks/${r.body.data.id}/deliveries`)).body).toEqual({ data: [] });
    expect((await c.del(`/webhooks/${r.body.data.id}`)).body).toEqual({ data: { id: r.body.data.id, deleted: true } });
    expect((await c.get('/webhooks')).body.data).toEqual([]);
    expect((await c.get(`/webhooks/${r.body.data.id}/deliveries`)).status).toBe(404);
    expect((await c.call('POST', `/webhooks/${r.body.data.id}/rotate-secret`, {})).status).toBe(404);
  });

  it('lists in the list envelope with meta, honouring page, per_page, sort, order and search like every list', async () => {
    // Contract, Conventions 5: "List responses add `meta`"; List parameters apply to "all list endpoints".
    const firm = await newCompany('Mange Kroge ApS');
    const c = client(strict.url, (await firm.key(['webhooks:manage'])).key);
    const ids: string[] = [];
    for (const path of ['b', 'c', 'a']) {
      ids.push((await c.call('POST', '/webhooks', { body: { url: `https://93.184.216.34/${path}`, events: ['invoice.paid'] } })).body.data.id);
    }
    const first = await c.get('/webhooks?per_page=2');
    expect(first.status).toBe(200);
    expect(first.body.meta).toEqual({ page: 1, per_page: 2, total: 3, total_pages: 2 });
    // Newest first by default (order desc, sort created_at).
    expect(first.body.data.map((w: { id: string }) => w.id)).toEqual([ids[2], ids[1]]);
    const second = await c.get('/webhooks?per_page=2&page=2');
    expect(second.body).toEqual({
      data: [expect.objectContaining({ id: ids[0], url: 'https://93.184.216.34/b' })],
      meta: { page: 2, per_page: 2, total: 3, total_pages: 2 },
    });
    expect((await c.get('/webhooks')).body.meta).toEqual({ page: 1, per_page: 50, total: 3, total_pages: 1 });
    const byUrl = await c.get('/webhooks?sort=url&order=asc');
    expect(byUrl.body.data.map((w: { url: string }) => w.url.slice(-1))).toEqual(['a', 'b', 'c']);
    expect((await c.get('/webhooks?search=93.184.216.34/C')).body).toMatchObject({ data: [{ id: ids[1] }], meta: { total: 1 } });
    for (const [query, field] of [
      ['per_page=0', 'per_page'],
      ['per_page=201', 'per_page'],
      ['per_page=abc', 'per_page'],
      ['page=0', 'page'],
      ['sort=events', 'sort'],
      ['order=up', 'order'],
      ['since=2026-02-30', 'since'],
    ]) {
      const r = await c.get(`/webhooks?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/problem\+json/);
      expect(r.body, query).toMatchObject({ code: 'invalid_request', field });
    }
  });

  it('refuses URLs that are not HTTPS, carry credentials or are not public, and unknown event types, naming the field', async () => {
    const firm = await newCompany('Forsigtig ApS');
    const c = client(strict.url, (await firm.key()).key);
    const post = (body: object) => c.call('POST', '/webhooks', { body });
    const refused = async (body: object, field: string, detail: RegExp) => {
      const r = await post(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/problem\+json/);
      expect(r.body).toMatchObject({ code: 'invalid_request', field });
      expect(r.body.detail).toMatch(detail);
    };
    const events = ['invoice.paid'];
    await refused({ url: 'http://93.184.216.34/tlr', events }, 'url', /https/);
    await refused({ url: 'https://user:pw@93.184.216.34/tlr', events }, 'url', /user name or password/);
    for (const url of [
      'https://127.0.0.1/x',
      'https://10.0.0.5/x',
      'https://169.254.169.254/latest',
      'https://100.64.1.1/x',
      'https://[::1]/x',
      'https://[fd00::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://0.0.0.0/x',
    ]) {
      await refused({ url, events }, 'url', /must not point at|publicly resolvable/);
    }
    await refused({ url: 'https://localhost/x', events }, 'url', /publicly resolvable/);
    await refused({ url: 'https://93.184.216.34/tlr', events: [] }, 'events', /at least one/);
    await refused({ url: 'https://93.184.216.34/tlr', events: ['invoice.paid', 'invoice.exploded'] }, 'events[1]', /invoice\.exploded/);
    expect((await c.get('/webhooks')).body.data).toEqual([]);
  });

  it('needs webhooks:manage', async () => {
    const firm = await newCompany('Uden Ret ApS');
    const c = client(strict.url, (await firm.key(['invoices:read'])).key);
    expect((await c.get('/webhooks')).status).toBe(403);
    expect((await c.call('POST', '/webhooks', { body: { url: 'https://93.184.216.34/', events: ['invoice.paid'] } })).status).toBe(403);
  });

  it('allows 25 active subscriptions per company, also when they are created at once', async () => {
    const firm = await newCompany('Mange Kroge ApS');
    const c = client(strict.url, (await firm.key()).key);
    const made = await Promise.all(
      Array.from({ length: 27 }, (_, i) => c.call('POST', '/webhooks', { body: { url: `https://93.184.216.34/h${i}`, events: ['invoice.paid'] } })),
    );
    expect(made.filter((r) => r.status === 201)).toHaveLength(25);
    const over = made.filter((r) => r.status !== 201);
    expect(over.map((r) => [r.status, r.body.code])).toEqual([
      [409, 'webhook_limit_reached'],
      [409, 'webhook_limit_reached'],
    ]);
    const one = made.find((r) => r.status === 201)!.body.data.id;
    await c.del(`/webhooks/${one}`);
    expect((await c.call('POST', '/webhooks', { body: { url: 'https://93.184.216.34/again', events: ['invoice.paid'] } })).status).toBe(201);
  });
});

describe('delivery', () => {
  it('posts the signed envelope with Service-Event-Id, Service-Delivery-Id and the raw-body signature', async () => {
    const firm = await newCompany('Modtager ApS');
    const c = client(svc.url, (await firm.key()).key);
    const sub = (await c.call('POST', '/webhooks', { body: { url: `${hook.url}?firm=${firm.companyId}`, events: ['customer.created'] } })).body.data;
    const customer = (await c.post('/customers', { name: 'Ny Kunde A/S', email: 'ny@kunde.dk' })).body.data;
    const r = await waitFor(() => hook.got.find((g) => g.raw.includes(customer.id)));
    expect(r.headers['content-type']).toBe('application/json');
    const body = JSON.parse(r.raw);
    expect(body).toEqual({
      id: expect.any(String),
      type: 'customer.created',
      api_version: '2026-04-10',
      livemode: true,
      created_at: expect.stringMatching(/Z$/),
      data: expect.objectContaining({ id: customer.id, name: 'Ny Kunde A/S' }),
    });
    expect(r.headers['service-event-id']).toBe(body.id);
    expect(verifies(sub.secret, r)).toBe(true);
    expect(verifies(sub.secret, { ...r, raw: JSON.stringify(body) }) && r.raw !== JSON.stringify(body)).toBe(false);
    const history = await waitFor(async () => {
      const d = (await c.get(`/webhooks/${sub.id}/deliveries`)).body.data;
      return d[0]?.status === 'succeeded' ? d : undefined;
    });
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({
      id: r.headers['service-delivery-id'],
      event_id: body.id,
      event_type: 'customer.created',
      attempts: 1,
      last_response_status: 200,
      next_attempt_at: null,
    });
    // Only the types subscribed to: a product is not sent.
    await c.post('/products', { name: 'Vare', unit_price: 10 });
    await new Promise((res) => setTimeout(res, 600));
    expect(hook.got.filter((g) => g.raw.includes('"product.created"') && verifies(sub.secret, g))).toEqual([]);
  });

  it('a subscription made with a test key receives the sandbox events with livemode false, and the live one does not', async () => {
    const firm = await newCompany('Sandkasse ApS');
    const live = client(svc.url, (await firm.key()).key);
    const test = client(svc.url, (await firm.key(undefined, 'test')).key);
    const marker = `s-${Date.now()}`;
    await live.call('POST', '/webhooks', { body: { url: `${hook.url}?live=${marker}`, events: ['customer.created'] } });
    await test.call('POST', '/webhooks', { body: { url: `${hook.url}?test=${marker}`, events: ['customer.created'] } });
    const made = (await test.post('/customers', { name: 'Prøvekunde' })).body.data;
    const r = await waitFor(() => hook.got.find((g) => g.raw.includes(made.id)));
    expect(JSON.parse(r.raw).livemode).toBe(false);
    await new Promise((res) => setTimeout(res, 600));
    expect(hook.got.filter((g) => g.raw.includes(made.id))).toHaveLength(1);
    // Contract, Test mode 4: "API keys and webhook subscriptions survive" a sandbox reset.
    expect((await test.call('POST', '/sandbox/reset', {})).status).toBe(200);
    expect((await test.get('/webhooks')).body.data.map((w: any) => w.url)).toEqual([`${hook.url}?test=${marker}`]);
    const after = (await test.post('/customers', { name: 'Efter nulstilling' })).body.data;
    expect(JSON.parse((await waitFor(() => hook.got.find((g) => g.raw.includes(after.id)))).raw).livemode).toBe(false);
  });

  it('retries on the schedule (1, 2, 4 ... minutes at a short unit), dead-letters after 8 attempts, and replay sends the same payload freshly signed', async () => {
    const firm = await newCompany('Fejlende ApS');
    const c = client(svc.url, (await firm.key()).key);
    const url = `${hook.url}?dead=${firm.companyId}`;
    const mine = () => hook.got.filter((g) => g.raw.includes(`Fejl ${firm.companyId}`));
    hook.answer((r) => (r.raw.includes(`Fejl ${firm.companyId}`) ? 500 : 200));
    const sub = (await c.call('POST', '/webhooks', { body: { url, events: ['customer.created'] } })).body.data;
    await c.post('/customers', { name: `Fejl ${firm.companyId}` });
    const attempts = await waitFor(() => (mine().length >= 8 ? mine() : undefined), 30_000);
    await new Promise((res) => setTimeout(res, 4 * UNIT));
    expect(mine()).toHaveLength(8);
    const gaps = attempts.slice(1).map((a, i) => a.at - attempts[i]!.at);
    [1, 2, 4, 8, 16, 32, 60].forEach((minutes, i) => expect(gaps[i]).toBeGreaterThanOrEqual(0.9 * minutes * UNIT));
    expect(new Set(attempts.map((a) => a.headers['service-event-id'])).size).toBe(1);
    expect(new Set(attempts.map((a) => a.raw)).size).toBe(1);
    const [dead] = (await c.get(`/webhooks/${sub.id}/deliveries`)).body.data;
    expect(dead).toMatchObject({ status: 'dead_letter', attempts: 8, last_response_status: 500, next_attempt_at: null });

    hook.answer(() => 200);
    const replayed = await c.call('POST', `/webhooks/${sub.id}/deliveries/${dead.id}/replay`, {});
    expect(replayed.status).toBe(200);
    expect(replayed.body.data).toMatchObject({ id: dead.id, status: 'pending', attempts: 0 });
    const again = await waitFor(() => mine()[8]);
    expect(again.raw).toBe(attempts[0]!.raw);
    expect(again.headers['service-event-id']).toBe(attempts[0]!.headers['service-event-id']);
    expect(again.headers['service-delivery-id']).toBe(dead.id);
    expect(verifies(sub.secret, again)).toBe(true);
    await waitFor(async () => (await c.get(`/webhooks/${sub.id}/deliveries`)).body.data[0].status === 'succeeded');
  }, 60_000);

  it('signs every send after a rotation with the new secret only, retries included; a deleted subscription stops', async () => {
    const firm = await newCompany('Roterende ApS');
    const c = client(svc.url, (await firm.key()).key);
    // The first attempt is answered (503) only once the rotation is answered, so its retries are all
    // claimed after the rotation committed. (A send already under way when a rotation commits keeps the
    // signature it left with: decision 120.)
    let rotationAnswered!: () => void;
    const rotation = new Promise<void>((res) => (rotationAnswered = res));
    let failures = 0;
    hook.answer(async (r) => {
      if (!r.raw.includes(`Rot ${firm.companyId}`)) return 200;
      if (failures === 0) await rotation;
      return failures++ < 2 ? 503 : 200;
    });
    const sub = (await c.call('POST', '/webhooks', { body: { url: `${hook.url}?rot=${firm.companyId}`, events: ['customer.created'] } })).body.data;
    await c.post('/customers', { name: `Rot ${firm.companyId}` });
    const mine = () => hook.got.filter((g) => g.raw.includes(`Rot ${firm.companyId}`));
    const first = await waitFor(() => mine()[0]);
    expect(verifies(sub.secret, first)).toBe(true);
    const rotated = (await c.call('POST', `/webhooks/${sub.id}/rotate-secret`, {})).body.data.secret;
    rotationAnswered();
    const later = await waitFor(() => (mine().length >= 3 ? mine().slice(1) : undefined));
    for (const r of later) {
      expect(verifies(rotated, r)).toBe(true);
      expect(verifies(sub.secret, r)).toBe(false);
    }

    // Deleted while a delivery waits for its retry: it is not sent again. The failed attempt is answered
    // once the deletion is, so its retry would come after the deletion.
    let deletionAnswered!: () => void;
    const deletion = new Promise<void>((res) => (deletionAnswered = res));
    hook.answer(async (r) => {
      if (!r.raw.includes(`Slet ${firm.companyId}`)) return 200;
      await deletion;
      return 500;
    });
    const other = (await c.call('POST', '/webhooks', { body: { url: `${hook.url}?del=${firm.companyId}`, events: ['customer.created'] } })).body.data;
    await c.post('/customers', { name: `Slet ${firm.companyId}` });
    const gone = () => hook.got.filter((g) => g.raw.includes(`Slet ${firm.companyId}`) && verifies(other.secret, g));
    await waitFor(() => gone().length >= 1);
    expect((await c.del(`/webhooks/${other.id}`)).status).toBe(200);
    deletionAnswered();
    await new Promise((res) => setTimeout(res, 20 * UNIT));
    expect(gone()).toHaveLength(1);
    hook.answer(() => 200);
  }, 60_000);
});

describe('history', () => {
  it('shows the latest 100 deliveries, newest first, and keeps no more finished ones than that', async () => {
    const firm = await newCompany('Travl ApS');
    const keys = [await firm.key(), await firm.key()];
    const sub = (
      await client(svc.url, keys[0]!.key).call('POST', '/webhooks', { body: { url: `${hook.url}?h=${firm.companyId}`, events: ['product.created'] } })
    ).body.data;
    for (let i = 0; i < 105; i++) await client(svc.url, keys[i % 2]!.key).post('/products', { name: `Vare ${i}`, unit_price: 1 });
    const c = client(svc.url, keys[0]!.key);
    const history = await waitFor(async () => {
      const d = (await c.get(`/webhooks/${sub.id}/deliveries`)).body.data;
      return d.length === 100 && d.every((x: any) => x.status === 'succeeded') ? d : undefined;
    }, 30_000);
    const names = history.map((d: any) => d.created_at);
    expect(names).toEqual([...names].sort().reverse());
    // A later fan-out trims what is beyond the history.
    await c.post('/products', { name: 'Vare sidst', unit_price: 1 });
    await waitFor(async () => {
      const { rows } = await testDb().pool.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = $1`, [sub.id]);
      return rows[0].n <= 101 ? true : undefined;
    });
  }, 60_000);
});

describe('delivery safety (no SSRF)', () => {
  it('refuses at send time a loopback or private target, by IP literal or by a name that resolves to one', async () => {
    for (const url of ['https://127.0.0.1:9/x', 'https://[::1]:9/x', 'https://169.254.169.254/latest/meta-data', 'https://localhost:9/x']) {
      const r = await send(url, {}, '{}', false);
      expect(r.status, url).toBeNull();
      expect(r.error, url).toMatch(/loopback|private|linkLocal|refused/);
    }
    expect((await send(hook.url, {}, '{}', false)).error).toMatch(/not https/);
  });

  it('does not follow a redirect (to a private address or anywhere): a 3xx fails the attempt', async () => {
    const redirect = createServer((_req, res) => res.writeHead(302, { Location: 'http://169.254.169.254/latest' }).end());
    await new Promise<void>((r) => redirect.listen(0, '127.0.0.1', r));
    try {
      const r = await send(`http://127.0.0.1:${(redirect.address() as AddressInfo).port}/`, {}, '{}', true);
      expect(r.status).toBe(302);
    } finally {
      redirect.close();
    }
  });
});
