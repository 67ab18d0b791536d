// Test helpers: a real service on a random port against the run's database, companies with keys
// made through the internal procedures, and a small fetch wrapper.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import createClient, { type Client } from 'openapi-fetch';
import { afterAll, beforeAll } from 'vitest';
import { beforeDrop, copyTemplate, fileDatabaseUrl } from '../../../test/file-database.ts';
import type { components, paths } from '../../../test/generated/api.ts';
import { createCaller, type RequestLogRecord } from '@tlr/api';
import { loadConfig } from '@tlr/config';
import { createDatabase, type Database } from '@tlr/db';
import { SCOPES, setPasswordHashCost, type Scope } from '@tlr/domain';
import { startService, type Service } from '../src/service.ts';
import { RUN_TS } from '../../../test/run-ts.ts';

/** The test file's own database (test/file-database.ts). */
export const databaseUrl = fileDatabaseUrl;

// The suite hashes owners' passwords at the cheapest cost argon2id is still safe at (PASSWORD_HASH_COST,
// set for the test processes and their children in vitest.config.ts): the tests' fixtures made in this
// process follow it too.
setPasswordHashCost(loadConfig({ PASSWORD_HASH_COST: process.env.PASSWORD_HASH_COST }).PASSWORD_HASH_COST);

/**
 * The run's settings that startService applies to the whole process, for a config a test builds: the
 * password cost (argon2id's minimum), the e-invoice validation threads (one) and no e-invoice warm-up
 * (vitest.config.ts). startService sets the first two for the whole worker process from its config, so a
 * service started without them put every later hash of the process (each newCompany's owner, a sign-in's
 * stand-in hash for an unknown e-mail), in this file and the files after it, back to the library's
 * default, 7 times the CPU; and without the third it loaded every e-invoice rule set at start (decision 742).
 */
export const runSettings = (): Record<string, string> =>
  Object.fromEntries(
    ['PASSWORD_HASH_COST', 'EINVOICE_VALIDATION_THREADS', 'EINVOICE_WARM_AT_START'].flatMap((k) => (process.env[k] ? [[k, process.env[k]]] : [])),
  );

export async function startTestService(env: Record<string, string> = {}): Promise<Service> {
  const config = loadConfig({
    DATABASE_URL: databaseUrl(),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    RUN_WORKER: 'false',
    // Without a worker of its own, a sandbox reset is run by the request at once (sandbox.test.ts tests the job).
    SANDBOX_RESET_PICKUP_MS: '0',
    // The test run's password cost and validation threads (vitest.config.ts: one), as the server processes the tests start get them.
    ...runSettings(),
    // Most files receive no e-invoice: their servers do not load the rules (those that do say so).
    EINVOICE_WARM_AT_START: 'false',
    ...env,
  });
  return startService(config);
}

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** A real second (third, ...) server: a separate process of apps/server/src/main.ts on the run's database. */
export function startServerProcess(env: Record<string, string> = {}): Promise<{ url: string; proc: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...RUN_TS, 'apps/server/src/main.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl(),
        PORT: '0',
        HOST: '127.0.0.1',
        RUN_WORKER: 'false',
        SANDBOX_RESET_PICKUP_MS: '0',
        LOG_LEVEL: 'warn',
        EINVOICE_WARM_AT_START: 'false',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = out.match(/tlr API: (http:\/\/[^\s]+)\/api\/v1/);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!.replace('localhost', '127.0.0.1'), proc });
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
}

/**
 * This process's service and `extra` server processes on the run's database (all with `env`): what the
 * concurrency tests spread their requests over. `stop` ends them all (SIGTERM: a graceful shutdown).
 */
export async function startServers(extra = 2, env: Record<string, string> = {}): Promise<{ svc: Service; urls: string[]; stop(): Promise<void> }> {
  const [svc, ...procs] = await Promise.all([startTestService(env), ...Array.from({ length: extra }, () => startServerProcess(env))]);
  return {
    svc,
    urls: [svc.url, ...procs.map((p) => p.url)],
    async stop() {
      await Promise.all(
        procs.map(
          ({ proc }) =>
            new Promise<void>((resolve) => {
              if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
              proc.once('exit', () => resolve());
              proc.kill('SIGTERM');
            }),
        ),
      );
      await svc.stop();
    },
  };
}

/** Polls `probe` every 50 ms until it gives something truthy, which it returns; fails after `ms`. */
export async function waitFor<T>(probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One handle per database: a test process runs many files, each on a database of its own. */
const handles = new Map<string, Database>();
/** A database handle for setting up fixtures and inspecting rows (the test file's database). */
export function testDb(): Database {
  const url = databaseUrl();
  let db = handles.get(url);
  if (!db) {
    const created = (db = createDatabase(url, 4));
    handles.set(url, created);
    beforeDrop(url, async () => (handles.delete(url), await created.close()));
  }
  return db;
}

/**
 * A second database for the calling file, copied from the run's template and dropped by `drop`: for a
 * test that must start from an empty database beside the file's own.
 */
export async function ownDatabase(label: string): Promise<{ url: string; db: Database; drop(): Promise<void> }> {
  const copy = await copyTemplate(label);
  const db = createDatabase(copy.url, 4);
  return { url: copy.url, db, drop: async () => (await db.close(), await copy.drop()) };
}

/**
 * Empties every rate-limit log: for tests that send thousands of requests about something else (the
 * limit itself is rate-limit.test.ts's). Errors (the database stopped on purpose) are the caller's.
 */
export const forgetRateLimits = (pool: { query(sql: string): Promise<unknown> } = testDb().pool) => pool.query(`UPDATE rate_limit_logs SET accepted = '{}'`);

/** The operator's in-process caller (what the CLI uses). */
export const internal = (db: Database = testDb()) => createCaller(db, { type: 'operator' });

let counter = 0;
export async function newCompany(name = 'Testfirma ApS', cvr?: string, db: Database = testDb()) {
  counter += 1;
  const email = `owner-${Date.now()}-${process.pid}-${counter}@example.dk`;
  const { company_id, user_id } = await internal(db).internal.createCompany({
    name,
    ownerEmail: email,
    ownerPassword: 'correct horse battery',
    ...(cvr ? { cvr } : {}),
  });
  const key = async (scopes: readonly Scope[] = SCOPES, mode: 'live' | 'test' = 'live', expiresAt?: Date) =>
    internal(db).internal.createApiKey({ companyId: company_id, name: `key ${mode}`, scopes: [...scopes], mode, ...(expiresAt ? { expiresAt } : {}) });
  return { companyId: company_id, userId: user_id, email, key };
}

/** A partner application registered by the operator, and the owner's approval of it as the consent page does it. */
export async function oauthClient(scopes: readonly Scope[] = ['customers:read', 'customers:write'], redirectUris = ['https://partner.example/callback']) {
  const created = await createCaller(testDb(), { type: 'operator' }).oauth.createClient({
    name: `Partner ${randomUUID().slice(0, 8)}`,
    redirectUris,
    scopes: [...scopes],
  });
  return { clientId: created.client_id, clientSecret: created.client_secret, redirectUri: redirectUris[0]!, scopes };
}

/** A fresh PKCE pair (RFC 7636): a 43-character verifier and its S256 challenge. */
export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** An authorization code, issued through the same procedure as the consent page's Approve. */
export async function approveCode(
  owner: { userId: string; companyId: string },
  c: { clientId: string; redirectUri: string; scopes: readonly string[] },
  challenge: string,
): Promise<string> {
  const caller = createCaller(testDb(), { type: 'owner', userId: owner.userId });
  const { code } = await caller.oauth.approve({
    companyId: owner.companyId,
    clientId: c.clientId,
    redirectUri: c.redirectUri,
    scopes: [...c.scopes],
    codeChallenge: challenge,
  });
  return code;
}

/** The body of an authorization code's exchange as a partner sends it (RFC 6749 4.1.3 with PKCE). */
export const codeExchange = (app: { clientId: string; clientSecret: string; redirectUri: string }, code: string, verifier: string) => ({
  grant_type: 'authorization_code' as const,
  code,
  redirect_uri: app.redirectUri,
  client_id: app.clientId,
  client_secret: app.clientSecret,
  code_verifier: verifier,
});

/**
 * POST to an OAuth endpoint under {app_url}/api/oauth, JSON by default, untyped: for form bodies and
 * malformed requests (`oauthApi` types the well-formed ones). Its answers are OAuth errors unless the
 * caller says otherwise.
 */
export async function oauthPost<T = Schemas['OAuthError']>(
  baseUrl: string,
  path: 'token' | 'revoke',
  body: Record<string, string>,
  opts: { form?: boolean; headers?: Record<string, string> } = {},
) {
  const res = await fetch(`${baseUrl}/api/oauth/${path}`, {
    method: 'POST',
    headers: { 'Content-Type': opts.form ? 'application/x-www-form-urlencoded' : 'application/json', ...opts.headers },
    body: opts.form ? new URLSearchParams(body).toString() : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: parseJson(await res.text()) as T };
}

/** The typed client of the OAuth endpoints ({app_url}/api: POST /oauth/token and /oauth/revoke). */
export const oauthApi = (baseUrl: string): Api => createClient<paths>({ baseUrl: `${baseUrl}/api` });

export interface Reply<T> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * The untyped client: for what the typed one (`api`) refuses to send (malformed paths, queries, headers
 * and bodies) and for answers that are not JSON. Its answers are problems unless the caller says otherwise.
 */
export function client(baseUrl: string, key?: string) {
  const call = async <T = Problem>(
    method: string,
    path: string,
    opts: { body?: unknown; headers?: Record<string, string>; raw?: string } = {},
  ): Promise<Reply<T>> => {
    const headers: Record<string, string> = { ...credentialHeader(key), ...opts.headers };
    let payload: string | undefined = opts.raw;
    if (opts.body !== undefined) {
      payload = JSON.stringify(opts.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(`${baseUrl}/api/v1${path}`, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: parseJson(text) as T, text };
  };
  return {
    call,
    get: <T = Problem>(path: string, headers?: Record<string, string>) => call<T>('GET', path, { headers: headers ?? {} }),
    post: <T = Problem>(path: string, body: unknown, headers: Record<string, string> = idem().header) => call<T>('POST', path, { body, headers }),
    put: <T = Problem>(path: string, body: unknown) => call<T>('PUT', path, { body }),
    del: <T = Problem>(path: string) => call<T>('DELETE', path),
  };
}

/** JSON when the text is JSON, else the text itself. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The schemas of the OpenAPI document, as the HTTP tests see them (test/generated/api.ts). */
export type Schemas = components['schemas'];
export type Problem = Schemas['Problem'];
/** A client typed from the served OpenAPI document (openapi-fetch): paths, parameters, bodies and answers. */
export type Api = Client<paths>;

const credentialHeader = (credential?: string): Record<string, string> =>
  credential === undefined ? {} : credential.startsWith('tlr_at_') ? { Authorization: `Bearer ${credential}` } : { 'X-API-Key': credential };

/** The typed client of {base_url}, with an API key or an OAuth access token (or none). */
export const api = (baseUrl: string, credential?: string): Api => createClient<paths>({ baseUrl: `${baseUrl}/api/v1`, headers: credentialHeader(credential) });

/**
 * `params.header` of a create: a fresh Idempotency-Key (random: keys are scoped to the company, and several
 * clients of one company post at the same moment), or the one given.
 */
export const idem = (key = `test-${randomUUID()}`) => ({ header: { 'Idempotency-Key': key } });

/** What openapi-fetch answers: the 2xx body, or the problem, and the response. */
type Answer<T> = { data?: T; error?: unknown; response: Response };

function bodyIf<T>({ data, error, response }: Answer<T>, wanted: number | '2xx'): T {
  const fits = wanted === '2xx' ? response.ok : response.status === wanted;
  if (!fits || data === undefined) throw new Error(`expected ${wanted}, got ${response.status}: ${JSON.stringify(error)}`);
  return data;
}

/** The body of a 2xx answer to `call`; any other answer fails the test with its status and problem. */
export const ok = async <T>(call: Promise<Answer<T>>): Promise<T> => bodyIf(await call, '2xx');

/** The body of a 201 answer to `call` (a create); any other answer fails the test. */
export const created = async <T>(call: Promise<Answer<T>>): Promise<T> => bodyIf(await call, 201);

/**
 * The body of an answer already in hand (kept for its headers too) that has exactly `status`; any other
 * answer fails the test with its status and problem.
 */
export const bodyOf = <T>(status: number, answer: Answer<T>): T => bodyIf(answer, status);

export interface CompanyFixture {
  svc: Service;
  company: Awaited<ReturnType<typeof newCompany>>;
  /** A live key with every scope. */
  key: string;
  /** The typed client with that key. */
  api: Api;
  /** The untyped client with that key, for what the types refuse (malformed input, raw bytes). */
  raw: ReturnType<typeof client>;
  /**
   * A new key of the company (its sandbox's when `mode` is test), with its clients: each key has a rate
   * limit of its own, so a file that makes many requests spreads them over keys.
   */
  newKey(scopes?: readonly Scope[], mode?: 'live' | 'test'): ReturnType<typeof newKey>;
  /** Another company with a live key of every scope, on the same service (for cross-company checks). */
  another(name?: string): Promise<Omit<CompanyFixture, 'svc' | 'another' | 'newKey'>>;
}

/**
 * The setup most HTTP test files share: a test service and a company with a live key of every scope,
 * made in this file's beforeAll and stopped in its afterAll. The fields are set once beforeAll has run.
 */
export function useCompany(opts: { name?: string; cvr?: string; env?: Record<string, string> } = {}): CompanyFixture {
  const f = {} as CompanyFixture;
  beforeAll(async () => {
    [f.svc, f.company] = await Promise.all([startTestService(opts.env), newCompany(opts.name, opts.cvr)]);
    f.key = (await f.company.key()).key;
    f.api = api(f.svc.url, f.key);
    f.raw = client(f.svc.url, f.key);
  });
  f.newKey = (scopes, mode) => newKey(f.svc.url, f.company, scopes, mode);
  f.another = async (name = 'Anden Virksomhed ApS') => {
    const company = await newCompany(name);
    const key = (await company.key()).key;
    return { company, key, api: api(f.svc.url, key), raw: client(f.svc.url, key) };
  };
  afterAll(() => f.svc?.stop());
  return f;
}

// Several servers, rows, request bodies.

export interface ServersFixture {
  svc: Service;
  /** This process's service first, then the server processes. */
  urls: string[];
  /** The typed client of server `i` (round-robin over `urls`) with `credential`. */
  api(i: number, credential: string): Api;
}

/**
 * The setup of the files that spread requests over several servers: `startServers(extra)` in this
 * file's beforeAll, stopped in its afterAll. The fields are set once beforeAll has run.
 */
export function useServers(extra = 2, env: Record<string, string> = {}): ServersFixture {
  let servers: Awaited<ReturnType<typeof startServers>> | undefined;
  const f = { api: (i: number, credential: string) => api(f.urls[i % f.urls.length]!, credential) } as ServersFixture;
  beforeAll(async () => {
    servers = await startServers(extra, env);
    [f.svc, f.urls] = [servers.svc, servers.urls];
  });
  afterAll(() => servers?.stop());
  return f;
}

/** The `n` of one `SELECT count(*)::int AS n ...` on the run's database. */
export async function countRows(sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await testDb().pool.query<{ n: number }>(sql, params);
  if (rows.length !== 1) throw new Error(`expected one count row, got ${rows.length}: ${sql}`);
  return rows[0]!.n;
}

/** The JSON body an operation takes, as the served document declares it: `RequestBody<'/invoices', 'post'>`. */
export type RequestBody<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/** The query parameters a GET takes, as the served document declares them: `RequestQuery<'/invoices'>`. */
export type RequestQuery<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } } ? NonNullable<Q> : never;

/** The body of a balanced two-line posting on `date`: `amount` debited to `debit` and credited to `credit`. */
export const twoLinePosting = (
  date: string,
  debit: string,
  credit: string,
  amount: number | string,
  description?: string,
): RequestBody<'/transactions', 'post'> => ({
  date,
  ...(description === undefined ? {} : { description }),
  lines: [
    { account_number: debit, debit: amount },
    { account_number: credit, credit: amount },
  ],
});

/**
 * A new key of `company` (a sandbox's when `mode` is test), with its typed and untyped clients on
 * `baseUrl`. Each key has its own rate-limit window of 100 requests a minute.
 */
export async function newKey(baseUrl: string, company: CompanyFixture['company'], scopes?: readonly Scope[], mode?: 'live' | 'test') {
  const created = await company.key(scopes, mode);
  return { key: created.key, companyId: created.company_id, api: api(baseUrl, created.key), raw: client(baseUrl, created.key) };
}

// Webhook receivers, connected apps and staff.

/** A request a test's webhook receiver got: when, its headers, and its raw body (what the signature covers). */
export interface Received {
  at: number;
  headers: IncomingMessage['headers'];
  raw: string;
}

/**
 * A webhook receiver on loopback: it records every request and answers what `answer` says (200 by
 * default), when it says. `close` also drops connections still waiting for their answer.
 */
export async function webhookReceiver() {
  const got: Received[] = [];
  let answer: (r: Received) => number | Promise<number> = () => 200;
  const server = createServer((req, res) => {
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
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

/** A partner app the owner connected through the whole flow: the consent procedure's code, then the partner's exchange. */
export async function connectedApp(baseUrl: string, owner: { userId: string; companyId: string }, scopes?: readonly Scope[]) {
  const app = await oauthClient(scopes);
  const pkce = pkcePair();
  const code = await approveCode(owner, app, pkce.challenge);
  const tokens = await ok(oauthApi(baseUrl).POST('/oauth/token', { body: codeExchange(app, code, pkce.verifier) }));
  return { app, tokens };
}

/** The event types a webhook subscription can name (the document's catalog). */
export type EventType = Schemas['WebhookSubscription']['events'][number];

/** A webhook subscription of the client's company, made as a setup step: its id, url, events and secret. */
export const subscribe = async (c: Api, url: string, events: EventType[]) => (await ok(c.POST('/webhooks', { body: { url, events } }))).data;

/** A subscription's delivery history: the latest 100, newest first. */
export const deliveries = async (c: Api, id: string) => (await ok(c.GET('/webhooks/{id}/deliveries', { params: { path: { id } } }))).data;

/** The password of every staff account the tests make. */
export const STAFF_PASSWORD = 'a long staff password';

/** A staff account of the admin app, made as `tlr staff create` makes one: its id, email and role. */
export async function newStaff(role: 'support' | 'admin') {
  const email = `${role}-${randomUUID().slice(0, 8)}@tlr.example`;
  return internal().support.createStaff({ email, password: STAFF_PASSWORD, role });
}

// Requests and their audit records.

/** An answer's X-Request-ID; an answer without one fails the test. */
export function requestIdOf(res: { headers: Headers }): string {
  const id = res.headers.get('x-request-id');
  if (!id) throw new Error('the answer has no X-Request-ID');
  return id;
}

/** The audit records of a request, once the buffered audit log has written them (company_id as text). */
export const auditRecords = (requestId: string) =>
  waitFor(async () => {
    const { rows } = await testDb().pool.query<RequestLogRecord>(
      `SELECT request_id, actor_type, actor_id, company_id::text, method, path, status, problem_code, duration_ms, ip, created_at
       FROM request_audit_log WHERE request_id = $1`,
      [requestId],
    );
    return rows.length ? rows : undefined;
  });
