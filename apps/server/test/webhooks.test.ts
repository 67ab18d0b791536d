// Webhooks through HTTP against PostgreSQL and a real local receiver. Contract: Webhook endpoints;
// Events (Subscriptions, Delivery, Signature, Retries and dead letter); Test mode 3; Limits.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { afterAll, assert, beforeAll, describe, expect, it } from 'vitest';
import { send } from '@tlr/domain';
import type { paths } from '../../../test/generated/api.ts';
import {
  api,
  client,
  deliveries,
  idem,
  ok,
  startTestService,
  subscribe,
  testDb,
  useCompany,
  waitFor,
  webhookReceiver,
  type Api,
  type Problem,
  type Received,
} from './helpers.ts';
import type { Service } from '../src/service.ts';

type NewWebhook = paths['/webhooks']['post']['requestBody']['content']['application/json'];

/** The envelope every delivery posts (docs/webhooks.md), as a receiver reads it. */
interface Envelope {
  id: string;
  type: string;
  api_version: string;
  livemode: boolean;
  created_at: string;
  data: { id: string } & Record<string, unknown>;
}
const envelope = (r: Received) => JSON.parse(r.raw) as Envelope;

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

// Production URL rules, no worker: the subscriptions. Each test makes a company of its own (t.another).
const t = useCompany();
let svc: Service; // WEBHOOK_ALLOW_INSECURE_URLS (a local receiver), the dispatcher running: the deliveries
let hook: Awaited<ReturnType<typeof webhookReceiver>>;

beforeAll(async () => {
  [svc, hook] = await Promise.all([
    startTestService({ RUN_WORKER: 'true', WEBHOOK_ALLOW_INSECURE_URLS: 'true', WEBHOOK_RETRY_UNIT_MS: String(UNIT) }),
    webhookReceiver(),
  ]);
});
afterAll(async () => {
  await Promise.all([svc?.stop(), hook?.close()]);
});

/** A new company with a live key of every scope, and the typed client of the delivering service with it. */
async function onDeliveringService(name: string) {
  const { company, key } = await t.another(name);
  return { firm: company, c: api(svc.url, key) };
}

/** A refusal: 400 problem+json `invalid_request`, naming the field, its detail naming the rule. */
function refusal(what: string, res: { status: number; headers: Headers }, problem: Problem | undefined, field: string, detail: RegExp) {
  expect(res.status, what).toBe(400);
  expect(res.headers.get('content-type')).toMatch(/problem\+json/);
  expect(problem).toMatchObject({ code: 'invalid_request', field });
  expect(problem?.detail, what).toMatch(detail);
}

/** POST /webhooks with `body` is refused so. */
async function refusedCreation(c: Api, body: NewWebhook, field: string, detail: RegExp) {
  const r = await c.POST('/webhooks', { body });
  refusal(JSON.stringify(body), r.response, r.error, field, detail);
}

/** A TCP server on loopback that only counts the connections made to it. */
async function connectionCounter() {
  let connections = 0;
  const server = createNetServer((socket) => (connections++, socket.destroy()));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

// Decision 176: URL forms refused at creation and at every send, with the words naming each rule. The
// IPv6 ones carry 127.0.0.1 (a receiver on loopback would get what the host's stack or a translator
// makes of them) and are refused whatever they carry; ports and credentials also with insecure URLs on.
const EMBEDDED = /must not point at an IPv6 address embedding an IPv4 address/;
const embeddingForms = (port: number): [url: string, detail: RegExp][] => [
  [`https://[::127.0.0.1]:${port}/x`, /\(IPv4-compatible, ::\/96\)/],
  [`https://[::ffff:127.0.0.1]:${port}/x`, /\(IPv4-mapped, ::ffff:0:0\/96\)/],
  [`https://[::ffff:0:127.0.0.1]:${port}/x`, /\(SIIT, ::ffff:0:0:0\/96\)/],
  [`https://[64:ff9b::127.0.0.1]:${port}/x`, /\(NAT64, 64:ff9b::\/96/],
  [`https://[64:ff9b:1::7f00:1]:${port}/x`, /\(NAT64, 64:ff9b::\/96 or 64:ff9b:1::\/48\)/],
  [`https://[2002:7f00:1::1]:${port}/x`, /\(6to4, 2002::\/16\)/],
  [`https://[2001:0:7f00:1::1]:${port}/x`, /\(Teredo, 2001::\/32\)/],
];
const PORT_RULE = /must use port 443 or a port from 1024 to 65535/;
const CREDENTIALS_RULE = /must not carry a user name or password/;
/** With the scheme and host given (http://127.0.0.1:<port> for a receiver on loopback). */
const portAndCredentialForms = (scheme: string, host: string, port: number): [url: string, detail: RegExp][] => [
  [`${scheme}://${host}:0/x`, PORT_RULE],
  [`${scheme}://${host}:22/x`, PORT_RULE],
  [`${scheme}://${host}:1023/x`, PORT_RULE],
  [`${scheme}://${host}:6379/x`, /must not use port 6379, the port of Redis/],
  [`${scheme}://:@${host}:${port}/x`, CREDENTIALS_RULE],
  [`${scheme}://@${host}:${port}/x`, CREDENTIALS_RULE],
  [`${scheme}://user:@${host}:${port}/x`, CREDENTIALS_RULE],
  [`${scheme}:\\\\@${host}:${port}/x`, CREDENTIALS_RULE],
];

/** A customer made as a setup step (its creation is the event the tests subscribe to). */
const customer = async (c: Api, name: string) => (await ok(c.POST('/customers', { params: idem(), body: { name } }))).data;

describe('subscriptions', () => {
  it('creates with 201 and the secret shown once, without an Idempotency-Key; lists, rotates and deletes', async () => {
    const { api: c } = await t.another('Abonnent ApS');
    const r = await c.POST('/webhooks', { body: { url: 'https://93.184.216.34/tlr', events: ['invoice.paid', 'customer.created'] } });
    expect(r.response.status).toBe(201);
    expect(r.data?.data).toEqual({
      id: expect.any(String),
      url: 'https://93.184.216.34/tlr',
      events: ['invoice.paid', 'customer.created'],
      created_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
      message: expect.any(String),
    });
    assert(r.data);
    const { id, secret, created_at } = r.data.data;
    const path = { params: { path: { id } } };
    const listed = await ok(c.GET('/webhooks'));
    expect(listed.data).toEqual([{ id, url: 'https://93.184.216.34/tlr', events: ['invoice.paid', 'customer.created'], created_at }]);
    expect(JSON.stringify(listed)).not.toContain('whsec_');
    const rotated = await c.POST('/webhooks/{id}/rotate-secret', path);
    expect(rotated.response.status).toBe(200);
    expect(rotated.data?.data).toEqual({ id, secret: expect.stringMatching(/^whsec_/), message: expect.any(String) });
    expect(rotated.data?.data.secret).not.toBe(secret);
    expect((await c.GET('/webhooks/{id}/deliveries', path)).data).toEqual({ data: [] });
    expect((await c.DELETE('/webhooks/{id}', path)).data).toEqual({ data: { id, deleted: true } });
    expect((await ok(c.GET('/webhooks'))).data).toEqual([]);
    expect((await c.GET('/webhooks/{id}/deliveries', path)).response.status).toBe(404);
    expect((await c.POST('/webhooks/{id}/rotate-secret', path)).response.status).toBe(404);
  });

  it('lists in the list envelope with meta, honouring page, per_page, sort, order and search like every list', async () => {
    // Contract, Conventions 5: "List responses add `meta`"; List parameters apply to "all list endpoints".
    const { company } = await t.another('Mange Kroge ApS');
    const key = (await company.key(['webhooks:manage'])).key;
    const c = api(t.svc.url, key);
    const ids: string[] = [];
    for (const path of ['b', 'c', 'a']) ids.push((await subscribe(c, `https://93.184.216.34/${path}`, ['invoice.paid'])).id);
    const list = (query: NonNullable<paths['/webhooks']['get']['parameters']['query']>) => c.GET('/webhooks', { params: { query } });
    const first = await list({ per_page: 2 });
    expect(first.response.status).toBe(200);
    expect(first.data?.meta).toEqual({ page: 1, per_page: 2, total: 3, total_pages: 2 });
    // Newest first by default (order desc, sort created_at).
    expect(first.data?.data.map((w) => w.id)).toEqual([ids[2], ids[1]]);
    const second = await list({ per_page: 2, page: 2 });
    expect(second.data).toEqual({
      data: [expect.objectContaining({ id: ids[0], url: 'https://93.184.216.34/b' })],
      meta: { page: 2, per_page: 2, total: 3, total_pages: 2 },
    });
    expect((await ok(list({}))).meta).toEqual({ page: 1, per_page: 50, total: 3, total_pages: 1 });
    const byUrl = await ok(list({ sort: 'url', order: 'asc' }));
    expect(byUrl.data.map((w) => w.url.slice(-1))).toEqual(['a', 'b', 'c']);
    expect(await ok(list({ search: '93.184.216.34/C' }))).toMatchObject({ data: [{ id: ids[1] }], meta: { total: 1 } });
    // Malformed on purpose, so through the untyped client.
    const raw = client(t.svc.url, key);
    for (const [query, field] of [
      ['per_page=0', 'per_page'],
      ['per_page=201', 'per_page'],
      ['per_page=abc', 'per_page'],
      ['page=0', 'page'],
      ['sort=events', 'sort'],
      ['order=up', 'order'],
      ['since=2026-02-30', 'since'],
    ]) {
      const r = await raw.get(`/webhooks?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/problem\+json/);
      expect(r.body, query).toMatchObject({ code: 'invalid_request', field });
    }
  });

  it('refuses URLs that are not HTTPS, carry credentials or are not public, and unknown event types, naming the field', async () => {
    const { api: c, raw } = await t.another('Forsigtig ApS');
    const refused = (body: NewWebhook, field: string, detail: RegExp) => refusedCreation(c, body, field, detail);
    const events: NewWebhook['events'] = ['invoice.paid'];
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
    // An event type the catalog does not have: malformed on purpose, so through the untyped client.
    const unknown = { url: 'https://93.184.216.34/tlr', events: ['invoice.paid', 'invoice.exploded'] };
    const r = await raw.call('POST', '/webhooks', { body: unknown });
    refusal(JSON.stringify(unknown), r, r.body, 'events[1]', /invoice\.exploded/);
    expect((await ok(c.GET('/webhooks'))).data).toEqual([]);
  });

  it('refuses IPv6 forms embedding an IPv4 address, ports but 443 below 1024, and empty credentials (decision 176)', async () => {
    const { api: c } = await t.another('Indlejret ApS');
    const events: NewWebhook['events'] = ['invoice.paid'];
    for (const [url, detail] of embeddingForms(443)) await refusedCreation(c, { url, events }, 'url', new RegExp(`${EMBEDDED.source} ${detail.source}`));
    // A public IPv4 address inside is refused as well.
    for (const url of ['https://[::ffff:93.184.216.34]/x', 'https://[64:ff9b::93.184.216.34]/x', 'https://[2002:5db8:d822::1]/x']) {
      await refusedCreation(c, { url, events }, 'url', EMBEDDED);
    }
    for (const [url, detail] of portAndCredentialForms('https', '93.184.216.34', 8443)) await refusedCreation(c, { url, events }, 'url', detail);
    expect((await ok(c.GET('/webhooks'))).data).toEqual([]);
  });

  it('stores the URL in its serialised form: the 201 answer and the list show it', async () => {
    const { api: c } = await t.another('Normaliseret ApS');
    for (const [sent, stored] of [
      ['HTTPS://93.184.216.34:443/a/./b', 'https://93.184.216.34/a/b'],
      ['https:\\\\0x5d.184.216.34\\hook/../tlr?q=a b', 'https://93.184.216.34/tlr?q=a%20b'],
      ['https://[2606:2800:0220:0001:0248:1893:25C8:1946]:8443/x', 'https://[2606:2800:220:1:248:1893:25c8:1946]:8443/x'],
    ] as const) {
      const made = await subscribe(c, sent, ['invoice.paid']);
      expect(made.url, sent).toBe(stored);
      const { rows } = await testDb().pool.query<{ url: string }>(`SELECT url FROM webhook_subscriptions WHERE id = $1`, [made.id]);
      expect(rows[0]?.url).toBe(stored);
    }
    expect((await ok(c.GET('/webhooks', { params: { query: { sort: 'created_at', order: 'asc' } } }))).data.map((w) => w.url)).toEqual([
      'https://93.184.216.34/a/b',
      'https://93.184.216.34/tlr?q=a%20b',
      'https://[2606:2800:220:1:248:1893:25c8:1946]:8443/x',
    ]);
  });

  it('needs webhooks:manage', async () => {
    const { company } = await t.another('Uden Ret ApS');
    const c = api(t.svc.url, (await company.key(['invoices:read'])).key);
    expect((await c.GET('/webhooks')).response.status).toBe(403);
    expect((await c.POST('/webhooks', { body: { url: 'https://93.184.216.34/', events: ['invoice.paid'] } })).response.status).toBe(403);
  });

  it('allows 25 active subscriptions per company, also when they are created at once', async () => {
    const { api: c } = await t.another('Mange Kroge ApS');
    const made = await Promise.all(
      Array.from({ length: 27 }, (_, i) => c.POST('/webhooks', { body: { url: `https://93.184.216.34/h${i}`, events: ['invoice.paid'] } })),
    );
    expect(made.filter((r) => r.response.status === 201)).toHaveLength(25);
    const over = made.filter((r) => r.response.status !== 201);
    expect(over.map((r) => [r.response.status, r.error?.code])).toEqual([
      [409, 'webhook_limit_reached'],
      [409, 'webhook_limit_reached'],
    ]);
    const one = made.find((r) => r.data)?.data?.data.id;
    assert(one, 'a subscription that was made');
    await ok(c.DELETE('/webhooks/{id}', { params: { path: { id: one } } }));
    expect((await c.POST('/webhooks', { body: { url: 'https://93.184.216.34/again', events: ['invoice.paid'] } })).response.status).toBe(201);
  });
});

describe('delivery', () => {
  it('posts the signed envelope with Service-Event-Id, Service-Delivery-Id and the raw-body signature', async () => {
    const { firm, c } = await onDeliveringService('Modtager ApS');
    const sub = await subscribe(c, `${hook.url}?firm=${firm.companyId}`, ['customer.created']);
    const made = (await ok(c.POST('/customers', { params: idem(), body: { name: 'Ny Kunde A/S', email: 'ny@kunde.dk' } }))).data;
    const r = await waitFor(() => hook.got.find((g) => g.raw.includes(made.id)));
    expect(r.headers['content-type']).toBe('application/json');
    const body = envelope(r);
    expect(body).toEqual({
      id: expect.any(String),
      type: 'customer.created',
      api_version: '2026-04-10',
      livemode: true,
      created_at: expect.stringMatching(/Z$/),
      data: expect.objectContaining({ id: made.id, name: 'Ny Kunde A/S' }),
    });
    expect(r.headers['service-event-id']).toBe(body.id);
    expect(verifies(sub.secret, r)).toBe(true);
    expect(verifies(sub.secret, { ...r, raw: JSON.stringify(body) }) && r.raw !== JSON.stringify(body)).toBe(false);
    const history = await waitFor(async () => {
      const d = await deliveries(c, sub.id);
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
    await ok(c.POST('/products', { params: idem(), body: { name: 'Vare', unit_price: 10 } }));
    await new Promise((res) => setTimeout(res, 600));
    expect(hook.got.filter((g) => g.raw.includes('"product.created"') && verifies(sub.secret, g))).toEqual([]);
  });

  it('a subscription made with a test key receives the sandbox events with livemode false, and the live one does not', async () => {
    const { firm, c: live } = await onDeliveringService('Sandkasse ApS');
    const test = api(svc.url, (await firm.key(undefined, 'test')).key);
    const marker = `s-${Date.now()}`;
    await subscribe(live, `${hook.url}?live=${marker}`, ['customer.created']);
    await subscribe(test, `${hook.url}?test=${marker}`, ['customer.created']);
    const made = await customer(test, 'Prøvekunde');
    const r = await waitFor(() => hook.got.find((g) => g.raw.includes(made.id)));
    expect(envelope(r).livemode).toBe(false);
    await new Promise((res) => setTimeout(res, 600));
    expect(hook.got.filter((g) => g.raw.includes(made.id))).toHaveLength(1);
    // Contract, Test mode 4: "API keys and webhook subscriptions survive" a sandbox reset.
    expect((await test.POST('/sandbox/reset')).response.status).toBe(200);
    expect((await ok(test.GET('/webhooks'))).data.map((w) => w.url)).toEqual([`${hook.url}?test=${marker}`]);
    const after = await customer(test, 'Efter nulstilling');
    expect(envelope(await waitFor(() => hook.got.find((g) => g.raw.includes(after.id)))).livemode).toBe(false);
  });

  it('retries on the schedule (1, 2, 4 ... minutes at a short unit), dead-letters after 8 attempts, and replay sends the same payload freshly signed', async () => {
    const { firm, c } = await onDeliveringService('Fejlende ApS');
    const url = `${hook.url}?dead=${firm.companyId}`;
    const mine = () => hook.got.filter((g) => g.raw.includes(`Fejl ${firm.companyId}`));
    hook.answer((r) => (r.raw.includes(`Fejl ${firm.companyId}`) ? 500 : 200));
    const sub = await subscribe(c, url, ['customer.created']);
    await customer(c, `Fejl ${firm.companyId}`);
    const attempts = await waitFor(() => (mine().length >= 8 ? mine() : undefined), 30_000);
    await new Promise((res) => setTimeout(res, 4 * UNIT));
    expect(mine()).toHaveLength(8);
    const gaps = attempts.slice(1).map((a, i) => a.at - attempts[i]!.at);
    [1, 2, 4, 8, 16, 32, 60].forEach((minutes, i) => expect(gaps[i]).toBeGreaterThanOrEqual(0.9 * minutes * UNIT));
    expect(new Set(attempts.map((a) => a.headers['service-event-id'])).size).toBe(1);
    expect(new Set(attempts.map((a) => a.raw)).size).toBe(1);
    const [dead] = await deliveries(c, sub.id);
    expect(dead).toMatchObject({ status: 'dead_letter', attempts: 8, last_response_status: 500, next_attempt_at: null });
    assert(dead);

    hook.answer(() => 200);
    const replayed = await c.POST('/webhooks/{id}/deliveries/{delivery_id}/replay', { params: { path: { id: sub.id, delivery_id: dead.id } } });
    expect(replayed.response.status).toBe(200);
    expect(replayed.data?.data).toMatchObject({ id: dead.id, status: 'pending', attempts: 0 });
    const again = await waitFor(() => mine()[8]);
    const [original] = attempts;
    assert(original);
    expect(again.raw).toBe(original.raw);
    expect(again.headers['service-event-id']).toBe(original.headers['service-event-id']);
    expect(again.headers['service-delivery-id']).toBe(dead.id);
    expect(verifies(sub.secret, again)).toBe(true);
    await waitFor(async () => (await deliveries(c, sub.id))[0]?.status === 'succeeded');
  }, 60_000);

  it('signs every send after a rotation with the new secret only, retries included; a deleted subscription stops', async () => {
    const { firm, c } = await onDeliveringService('Roterende ApS');
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
    const sub = await subscribe(c, `${hook.url}?rot=${firm.companyId}`, ['customer.created']);
    await customer(c, `Rot ${firm.companyId}`);
    const mine = () => hook.got.filter((g) => g.raw.includes(`Rot ${firm.companyId}`));
    const first = await waitFor(() => mine()[0]);
    expect(verifies(sub.secret, first)).toBe(true);
    const rotated = (await ok(c.POST('/webhooks/{id}/rotate-secret', { params: { path: { id: sub.id } } }))).data.secret;
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
    const other = await subscribe(c, `${hook.url}?del=${firm.companyId}`, ['customer.created']);
    await customer(c, `Slet ${firm.companyId}`);
    const gone = () => hook.got.filter((g) => g.raw.includes(`Slet ${firm.companyId}`) && verifies(other.secret, g));
    await waitFor(() => gone().length >= 1);
    expect((await c.DELETE('/webhooks/{id}', { params: { path: { id: other.id } } })).response.status).toBe(200);
    deletionAnswered();
    await new Promise((res) => setTimeout(res, 20 * UNIT));
    expect(gone()).toHaveLength(1);
    hook.answer(() => 200);
  }, 60_000);
});

describe('history', () => {
  it('shows the latest 100 deliveries, newest first, and keeps no more finished ones than that', async () => {
    const { firm, c } = await onDeliveringService('Travl ApS');
    // Two keys share the 105 creates: each key may make 100 requests a minute.
    const second = api(svc.url, (await firm.key()).key);
    const sub = await subscribe(c, `${hook.url}?h=${firm.companyId}`, ['product.created']);
    for (let i = 0; i < 105; i++) await ok((i % 2 ? second : c).POST('/products', { params: idem(), body: { name: `Vare ${i}`, unit_price: 1 } }));
    const history = await waitFor(async () => {
      const d = await deliveries(c, sub.id);
      return d.length === 100 && d.every((x) => x.status === 'succeeded') ? d : undefined;
    }, 30_000);
    const names = history.map((d) => d.created_at);
    expect(names).toEqual([...names].sort().reverse());
    // A later fan-out trims what is beyond the history.
    await ok(c.POST('/products', { params: idem(), body: { name: 'Vare sidst', unit_price: 1 } }));
    await waitFor(async () => {
      const { rows } = await testDb().pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = $1`, [sub.id]);
      return (rows[0]?.n ?? Infinity) <= 101 ? true : undefined;
    });
  }, 60_000);
});

describe('delivery safety (no SSRF)', () => {
  it('refuses at send time a loopback or private target, by IP literal or by a name that resolves to one', async () => {
    for (const url of ['https://127.0.0.1:9999/x', 'https://[::1]:9999/x', 'https://169.254.169.254/latest/meta-data', 'https://localhost:9999/x']) {
      const r = await send(url, {}, '{}', false);
      expect(r.status, url).toBeNull();
      expect(r.error, url).toMatch(/loopback|private|linkLocal|publicly resolvable/);
    }
    expect((await send(hook.url, {}, '{}', false)).error).toMatch(/must use https/);
  });

  it('refuses at send time, without connecting, every URL form that decision 176 refuses at creation', async () => {
    const counter = await connectionCounter();
    try {
      const forms: [url: string, detail: RegExp, allowInsecure: boolean][] = [
        ...embeddingForms(counter.port).map(([url, detail]): [string, RegExp, boolean] => [url, new RegExp(`${EMBEDDED.source} ${detail.source}`), false]),
        ...portAndCredentialForms('https', '127.0.0.1', counter.port).map(([url, detail]): [string, RegExp, boolean] => [url, detail, false]),
        ...portAndCredentialForms('http', '127.0.0.1', counter.port).map(([url, detail]): [string, RegExp, boolean] => [url, detail, true]),
      ];
      for (const [url, detail, allowInsecure] of forms) {
        const r = await send(url, {}, '{}', allowInsecure);
        expect(r, url).toMatchObject({ status: null, error: expect.stringMatching(new RegExp(`^refused: url ${detail.source}`)) });
      }
      expect(counter.connections()).toBe(0);
    } finally {
      await counter.close();
    }
  });

  it('fails the attempt of a subscription stored before decision 176 with such a URL, naming the rule, and never connects', async () => {
    // The delivering service allows insecure URLs (a receiver on loopback): the rules it still applies.
    const counter = await connectionCounter();
    try {
      const { firm, c } = await onDeliveringService('Gammel Række ApS');
      const forms = portAndCredentialForms('http', '127.0.0.1', counter.port);
      const subs = [];
      for (const [url, detail] of forms) {
        const sub = await subscribe(c, `http://127.0.0.1:${counter.port}/ok`, ['customer.created']);
        // As a row from before the rule: written directly.
        await testDb().pool.query(`UPDATE webhook_subscriptions SET url = $2 WHERE id = $1 AND company_id = $3`, [sub.id, url, firm.companyId]);
        subs.push({ id: sub.id, url, detail });
      }
      await customer(c, `Gammel ${firm.companyId}`);
      for (const { id, url, detail } of subs) {
        const [first] = await waitFor(async () => {
          const d = await deliveries(c, id);
          return d[0] && d[0].attempts > 0 ? d : undefined;
        });
        expect(first, url).toMatchObject({
          status: 'retrying',
          last_response_status: null,
          last_error: expect.stringMatching(new RegExp(`^refused: url ${detail.source}`)),
        });
        await ok(c.DELETE('/webhooks/{id}', { params: { path: { id } } }));
      }
      expect(counter.connections()).toBe(0);
    } finally {
      await counter.close();
    }
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
