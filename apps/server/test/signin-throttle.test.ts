// Sign-in throttling by account and address (decision 174) through the pages, and TRUST_PROXY (175):
// failures from one address cannot lock the owner out of another (in Chromium), the pair's delay grows
// and a success clears it, an address spraying many e-mails is held, an account guessed from many
// addresses is held for every browser but one holding its device cookie, the staff realm has the same
// rule, a spoofed X-Forwarded-For changes nothing unless TRUST_PROXY names the peer, and parallel guesses
// over two server processes get no more checks than the rule allows.
import { randomInt, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword, signInClock, signInThrottleKeys } from '@tlr/domain';
import { freshPage, launchBrowser, type BrowserSession } from '../../../test/browser.ts';
import { newCompany, newStaff, STAFF_PASSWORD, startServerProcess, startTestService, testDb } from './helpers.ts';
import type { Service } from '../src/service.ts';

const PASSWORD = 'correct horse battery';

/** Behind a proxy on loopback: X-Forwarded-For names the client. */
let proxied: Service;
/** TRUST_PROXY unset (the default): the client is the TCP peer, whatever X-Forwarded-For says. */
let direct: Service;
let browser: BrowserSession;

beforeAll(async () => {
  [proxied, direct, browser] = await Promise.all([
    startTestService({ TRUST_PROXY: 'loopback' }),
    startTestService(),
    launchBrowser({ viewport: { width: 1280, height: 800 } }),
  ]);
});
// The injected clock never outlives its test.
afterEach(() => (signInClock.now = undefined));

/**
 * Stops the throttle's clock at the database's time now (an injected clock): a hold then reads the same
 * seconds however slow the machine is. Answers that moment.
 */
async function freeze(): Promise<Date> {
  const frozen = new Date((await testDb().pool.query<{ now: Date }>('SELECT now() AS now')).rows[0]!.now);
  signInClock.now = () => frozen;
  return frozen;
}
/** The throttle's time: the frozen moment, or the database's. */
const clockSql = `COALESCE($2::timestamptz, now())`;
const clockParam = () => signInClock.now?.() ?? null;
afterAll(async () => {
  await browser?.close();
  await Promise.all([proxied?.stop(), direct?.stop()]);
});

/** An address of a test of its own (documentation and benchmark ranges, never a real client). */
const newAddress = () => `198.18.${randomInt(256)}.${randomInt(1, 255)}`;
/** A loopback address of its own, for a client the server sees as the TCP peer (TRUST_PROXY off). */
const newLoopback = () => `127.${randomInt(1, 256)}.${randomInt(256)}.${randomInt(1, 255)}`;

interface Reply {
  status: number;
  location: string | undefined;
  retryAfter: number | undefined;
  /** The page's alert, if it has one. */
  alert: string | undefined;
}

/**
 * A browser as plain HTTP: its cookie jar, from `from` (the TCP peer's address, bound on loopback) and
 * with `forwardedFor` as X-Forwarded-For when given. `site`: '' for the owner pages, '/admin' for staff.
 */
function visitor(baseUrl: string, opts: { from?: string; forwardedFor?: string; site?: string } = {}) {
  const { port } = new URL(baseUrl);
  const site = opts.site ?? '';
  const jar = new Map<string, string>();
  let csrf: string | undefined;
  const send = (method: 'GET' | 'POST', path: string, form?: Record<string, string>, forwardedFor = opts.forwardedFor) =>
    new Promise<Reply & { text: string }>((resolve, reject) => {
      const body = form ? new URLSearchParams(form).toString() : undefined;
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path,
          method,
          agent: false,
          ...(opts.from ? { localAddress: opts.from } : {}),
          headers: {
            ...(jar.size ? { Cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } : {}),
            ...(forwardedFor ? { 'X-Forwarded-For': forwardedFor } : {}),
            ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(body) } : {}),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => {
            for (const c of res.headers['set-cookie'] ?? []) {
              const [pair = ''] = c.split(';');
              const eq = pair.indexOf('=');
              if (/Max-Age=0/.test(c)) jar.delete(pair.slice(0, eq));
              else jar.set(pair.slice(0, eq), pair.slice(eq + 1));
            }
            const retryAfter = res.headers['retry-after'];
            resolve({
              status: res.statusCode!,
              location: res.headers.location,
              retryAfter: retryAfter === undefined ? undefined : Number(retryAfter),
              alert: /role="alert">([^<]*)</.exec(text)?.[1],
              text,
            });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return {
    jar,
    /** Opens the sign-in form (its session and CSRF token). */
    async open() {
      const page = await send('GET', `${site}/signin`);
      csrf = /name="csrf_token" value="([^"]+)"/.exec(page.text)?.[1];
      if (!csrf) throw new Error(`no sign-in form: ${page.status}`);
    },
    /** Sends the sign-in form (opening it first when needed); `forwardedFor` overrides the visitor's. */
    async signIn(email: string, password: string, forwardedFor?: string): Promise<Reply> {
      if (!csrf) await this.open();
      const res = await send('POST', `${site}/signin`, { csrf_token: csrf!, email, password }, forwardedFor);
      if (res.status === 303) csrf = undefined;
      return res;
    },
    /** Ends the browser's session as a sign-out does, keeping its device cookie. */
    async signOut() {
      const page = await send('GET', site === '' ? '/settings/api-keys' : `${site}/companies`);
      const token = /name="csrf_token" value="([^"]+)"/.exec(page.text)?.[1];
      const out = await send('POST', `${site}/signout`, { csrf_token: token! });
      expect(out.status).toBe(303);
      csrf = undefined;
    },
  };
}

/** Moves a throttle key's hold to its end, as the time passing would. */
const endHold = (hash: Uint8Array) =>
  testDb().pool.query(`UPDATE sign_in_throttles SET held_until = ${clockSql} - interval '1 ms' WHERE key_hash = $1`, [hash, clockParam()]);

describe('the cost of a guess in the tests', () => {
  it("stays argon2id's minimum (the run's PASSWORD_HASH_COST) in this process after its services started", async () => {
    // Each service sets the process's cost from its config; one without the run's setting put it back to
    // the library's default (m=65536, t=3, p=4), 7 times the CPU per hash, for every file after it.
    expect(await hashPassword('x')).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });
});

describe('the pages in Chromium', () => {
  it('let a sign-in from a second address succeed after five failures from the first', async () => {
    const owner = await newCompany('Låst Ude ApS');
    const a = await freshPage(browser.browser, '203.0.113.1');
    const b = await freshPage(browser.browser, '203.0.113.2');
    const signIn = async (page: typeof a.page, password: string) => {
      await page.getByLabel('Email').fill(owner.email);
      await page.getByLabel('Password').fill(password);
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${proxied.url}/signin` && r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      return answer;
    };

    // An injected clock: the time stands still while the hold is read, however slow the machine.
    await freeze();
    await a.page.goto(`${proxied.url}/signin`);
    for (let i = 1; i <= 5; i++) {
      expect((await signIn(a.page, `wrong ${i}`)).status()).toBe(401);
      await expect(a.page.getByRole('alert').innerText()).resolves.toBe('The e-mail or password is not right.');
    }
    // Held: even the right password is not checked from A for a minute.
    const held = await signIn(a.page, PASSWORD);
    expect(held.status()).toBe(429);
    expect(Number(held.headers()['retry-after'])).toBe(60);
    await expect(a.page.getByRole('alert').innerText()).resolves.toBe('Too many sign-in attempts. Try again in 1 minute.');
    expect(a.page.url()).toBe(`${proxied.url}/signin`);

    // B, another address, signs in with the right password and lands on the owner's page.
    await b.page.goto(`${proxied.url}/signin`);
    expect((await signIn(b.page, PASSWORD)).status()).toBe(303);
    await b.page.waitForURL(`${proxied.url}/settings/api-keys`);
    await expect(b.page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('API keys');
    expect([...a.problems, ...b.problems]).toEqual([]);
    await Promise.all([a.page.context().close(), b.page.context().close()]);
  });
});

describe('the pair (e-mail and address)', () => {
  it('holds for 1 minute after the 5th failure, doubling with each further failure up to 15 minutes; a success clears it', async () => {
    const owner = await newCompany('Dobbelt Op ApS');
    await freeze();
    const address = newAddress();
    const v = visitor(proxied.url, { forwardedFor: address });
    const pair = signInThrottleKeys('owner', owner.email, address).pair;
    for (let i = 0; i < 5; i++) expect((await v.signIn(owner.email, `wrong ${i}`)).status).toBe(401);
    // Retry-After is the whole seconds left: on the frozen clock, exactly the hold.
    const expected: [number, string][] = [
      [60, '1 minute'],
      [120, '2 minutes'],
      [240, '4 minutes'],
      [480, '8 minutes'],
      [900, '15 minutes'],
      [900, '15 minutes'],
    ];
    for (const [seconds, words] of expected) {
      const held = await v.signIn(owner.email, PASSWORD);
      expect(held.status).toBe(429);
      expect(held.retryAfter).toBe(seconds);
      expect(held.alert).toBe(`Too many sign-in attempts. Try again in ${words}.`);
      await endHold(pair);
      // The hold is over: the next attempt is checked again, and its failure holds the pair longer.
      expect((await v.signIn(owner.email, 'wrong again')).status).toBe(401);
    }

    // Under a minute left, the page says seconds.
    await testDb().pool.query(`UPDATE sign_in_throttles SET held_until = ${clockSql} + interval '30 seconds' WHERE key_hash = $1`, [pair, clockParam()]);
    const soon = await v.signIn(owner.email, PASSWORD);
    expect(soon.retryAfter).toBe(30);
    expect(soon.alert).toBe(`Too many sign-in attempts. Try again in ${soon.retryAfter} seconds.`);

    // The right password once the hold is over: signed in, and the pair starts afresh.
    await endHold(pair);
    expect((await v.signIn(owner.email, PASSWORD)).status).toBe(303);
    const { rows } = await testDb().pool.query(`SELECT 1 FROM sign_in_throttles WHERE key_hash = $1`, [pair]);
    expect(rows).toEqual([]);
  });

  it('is held when TRUST_PROXY is off, whatever X-Forwarded-For says; another address still signs in', async () => {
    const owner = await newCompany('Falsk Adresse ApS');
    const v = visitor(direct.url, { from: newLoopback() });
    for (let i = 0; i < 5; i++) expect((await v.signIn(owner.email, `wrong ${i}`, newAddress())).status).toBe(401);
    const held = await v.signIn(owner.email, PASSWORD, newAddress());
    expect(held.status).toBe(429);
    expect(held.retryAfter).toBeGreaterThan(50);
    // The held pair is the account and the real address: the owner elsewhere is not locked out.
    expect((await visitor(direct.url, { from: newLoopback() }).signIn(owner.email, PASSWORD)).status).toBe(303);
  });

  it('is the same for the staff of the admin app', async () => {
    const staff = await newStaff('support');
    const address = newAddress();
    const v = visitor(proxied.url, { forwardedFor: address, site: '/admin' });
    await freeze();
    for (let i = 0; i < 5; i++) {
      const wrong = await v.signIn(staff.email, `wrong ${i}`);
      expect(wrong.status).toBe(401);
      expect(wrong.alert).toBe('The e-mail or password is not right.');
    }
    const held = await v.signIn(staff.email, STAFF_PASSWORD);
    expect(held.status).toBe(429);
    expect(held.retryAfter).toBe(60);
    expect(held.alert).toBe('Too many sign-in attempts. Try again in 1 minute.');
    const elsewhere = await visitor(proxied.url, { forwardedFor: newAddress(), site: '/admin' }).signIn(staff.email, STAFF_PASSWORD);
    expect(elsewhere.status).toBe(303);
    expect(elsewhere.location).toBe('/admin/companies');
  });
});

describe('TRUST_PROXY', () => {
  it("decides whose X-Forwarded-Proto makes the cookies Secure: nobody's by default", async () => {
    const secure = async (base: string) => {
      const res = await fetch(`${base}/signin`, { headers: { 'X-Forwarded-Proto': 'https' } });
      return res.headers.getSetCookie().every((c) => c.split('; ').includes('Secure'));
    };
    expect(await secure(direct.url)).toBe(false);
    expect(await secure(proxied.url)).toBe(true);
  });
});

describe('the address', () => {
  it('is held 15 minutes after 20 failures over 20 e-mails, for every e-mail, a right password included', async () => {
    const owner = await newCompany('Sprøjtet ApS');
    const address = newAddress();
    const v = visitor(proxied.url, { forwardedFor: address });
    for (let i = 0; i < 20; i++) expect((await v.signIn(`sprayed-${i}-${randomUUID()}@example.dk`, PASSWORD)).status).toBe(401);
    const held = await v.signIn(owner.email, PASSWORD);
    expect(held.status).toBe(429);
    expect(held.retryAfter).toBeGreaterThan(14 * 60);
    expect(held.retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(held.alert).toBe('Too many sign-in attempts. Try again in 15 minutes.');
    // The account itself is not held: the owner signs in from another address.
    expect((await visitor(proxied.url, { forwardedFor: newAddress() }).signIn(owner.email, PASSWORD)).status).toBe(303);
  });

  it('forgives nothing when an account of its own signs in between guesses', async () => {
    const mine = await newCompany('Angriber ApS');
    const address = newAddress();
    const v = visitor(proxied.url, { forwardedFor: address });
    for (let i = 0; i < 19; i++) expect((await v.signIn(`guess-${i}-${randomUUID()}@example.dk`, 'Summer2026!')).status).toBe(401);
    expect((await v.signIn(mine.email, PASSWORD)).status).toBe(303);
    await v.signOut();
    expect((await v.signIn(`guess-19-${randomUUID()}@example.dk`, 'Summer2026!')).status).toBe(401);
    expect((await v.signIn(mine.email, PASSWORD)).status).toBe(429);
  });
});

describe('the account', () => {
  it('after 20 failures from several addresses holds a new browser, but not one holding its device cookie', async () => {
    const owner = await newCompany('Mange Adresser ApS');
    // The owner's own browser signed in before (and signed out): it holds the account's device cookie.
    const own = visitor(proxied.url, { forwardedFor: newAddress() });
    expect((await own.signIn(owner.email, PASSWORD)).status).toBe(303);
    expect(own.jar.get('tlr_device')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await own.signOut();
    expect(own.jar.has('tlr_device')).toBe(true);
    // Another owner's device cookie is no device cookie of this account.
    const stranger = await newCompany('Fremmed ApS');
    const other = visitor(proxied.url, { forwardedFor: newAddress() });
    expect((await other.signIn(stranger.email, PASSWORD)).status).toBe(303);
    await other.signOut();

    // 20 failures, 4 from each of 5 addresses: no pair reaches its 5th.
    for (let a = 0; a < 5; a++) {
      const guesser = visitor(proxied.url, { forwardedFor: newAddress() });
      for (let i = 0; i < 4; i++) expect((await guesser.signIn(owner.email, `guess ${a}-${i}`)).status).toBe(401);
    }
    const fresh = await visitor(proxied.url, { forwardedFor: newAddress() }).signIn(owner.email, PASSWORD);
    expect(fresh.status).toBe(429);
    expect(fresh.retryAfter).toBeGreaterThan(50);
    expect(fresh.retryAfter).toBeLessThanOrEqual(60);
    expect((await other.signIn(owner.email, PASSWORD)).status).toBe(429);

    const back = await own.signIn(owner.email, PASSWORD);
    expect(back.status).toBe(303);
    expect(back.location).toBe('/settings/api-keys');
  });
});

describe('parallel guesses over two server processes', () => {
  let procs: ChildProcess[] = [];
  afterAll(() => {
    for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGTERM');
  });

  it('are counted one after another: 5 are checked, the other 25 are held', async () => {
    const servers = await Promise.all([startServerProcess(), startServerProcess()]);
    procs = servers.map((s) => s.proc);
    const owner = await newCompany('Parallel ApS');
    const from = newLoopback();
    // One address, a sign-in form open on each server, 15 guesses sent to each at once.
    const first = visitor(servers[0]!.url, { from });
    const second = visitor(servers[1]!.url, { from });
    await Promise.all([first.open(), second.open()]);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? second : first).signIn(owner.email, `guess ${i}`)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(25);
  }, 90_000);
});
