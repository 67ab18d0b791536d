// Contract, Limits: "100 per 60 seconds, enforced across all servers"; rate limit headers "on every
// authenticated response, errors and 429 included"; "A 429 carries Retry-After in seconds."
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, databaseUrl, newCompany, startTestService } from './helpers.ts';
import type { Service } from '../src/service.ts';

let svc: Service;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.stop());

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** A real second and third server: separate processes on the same database. */
function startServerProcess(): Promise<{ url: string; proc: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl(), PORT: '0', HOST: '127.0.0.1', RUN_WORKER: 'false', LOG_LEVEL: 'warn' },
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

describe('rate limits', () => {
  it('allows 100 requests per 60 s per credential, then 429 with Retry-After and the headers', async () => {
    const company = await newCompany();
    const c = client(svc.url, (await company.key()).key);
    const first = await c.get('/customers');
    expect(first.headers.get('x-ratelimit-limit')).toBe('100');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('99');
    const reset = Number(first.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(60);
    for (let i = 2; i <= 99; i++) await c.get('/customers');
    // an error response counts and carries the headers too
    const err = await c.get('/customers/not-a-uuid');
    expect(err.status).toBe(400);
    expect(err.headers.get('x-ratelimit-remaining')).toBe('0');
    const limited = await c.get('/customers');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(limited.body).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(limited.body.title).toMatch(/100 requests per 60 seconds/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('100');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-request-id')).toBeTruthy();
    // another credential of the same company has its own budget
    expect((await client(svc.url, (await company.key()).key).get('/customers')).status).toBe(200);
  });

  it('starts a new window once 60 s have passed', async () => {
    const company = await newCompany();
    const k = await company.key();
    const c = client(svc.url, k.key);
    await c.get('/customers');
    const { testDb } = await import('./helpers.ts');
    await testDb().pool.query(`UPDATE rate_limit_windows SET count = 100, window_start = now() - interval '61 seconds' WHERE credential_id = $1`, [k.id]);
    const r = await c.get('/customers');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ratelimit-remaining')).toBe('99');
  });

  it('is enforced across all servers: two server processes share one budget', async () => {
    const [a, b] = await Promise.all([startServerProcess(), startServerProcess()]);
    try {
      const company = await newCompany();
      const key = (await company.key()).key;
      const replies = await Promise.all(
        Array.from({ length: 130 }, (_, i) => client(i % 2 ? a.url : b.url, key).get('/customers')),
      );
      const ok = replies.filter((r) => r.status === 200);
      const limited = replies.filter((r) => r.status === 429);
      expect(ok).toHaveLength(100);
      expect(limited).toHaveLength(30);
      // each server saw only 65 requests, yet each now refuses: neither keeps a count of its own
      expect((await client(a.url, key).get('/customers')).status).toBe(429);
      expect((await client(b.url, key).get('/customers')).status).toBe(429);
      const remaining = ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y);
      expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => i));
    } finally {
      a.proc.kill('SIGTERM');
      b.proc.kill('SIGTERM');
    }
  });
});
