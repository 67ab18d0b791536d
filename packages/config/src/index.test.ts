import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './index.ts';

describe('configuration', () => {
  it('has working defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ PORT: 3000, RUN_WORKER: true, LOG_LEVEL: 'info', DB_POOL_SIZE: 10 });
    expect(c.DATABASE_URL).toBeUndefined();
  });

  it('names every bad value in one message', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud', DB_POOL_SIZE: '0' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const name of ['PORT', 'DATABASE_URL', 'LOG_LEVEL', 'DB_POOL_SIZE']) expect(message).toContain(name);
    expect(message).toContain('"eighty"');
  });

  it('sends e-invoices through the directory transport unless told otherwise; http needs its URL', () => {
    expect(loadConfig({})).toMatchObject({ EINVOICE_TRANSPORT: 'directory', EINVOICE_INBOX_POLL_MS: 10000, EINVOICE_HANDOVER_TIMEOUT_MS: 20000 });
    expect(loadConfig({ EINVOICE_HANDOVER_TIMEOUT_MS: '2000' }).EINVOICE_HANDOVER_TIMEOUT_MS).toBe(2000);
    expect(() => loadConfig({ EINVOICE_HANDOVER_TIMEOUT_MS: '20s' })).toThrow(/EINVOICE_HANDOVER_TIMEOUT_MS: must be milliseconds/);
    expect(() => loadConfig({ EINVOICE_TRANSPORT: 'http' })).toThrow(/EINVOICE_HTTP_URL: is required when EINVOICE_TRANSPORT is http/);
    expect(() => loadConfig({ EINVOICE_TRANSPORT: 'http', EINVOICE_HTTP_URL: 'ftp://ap.example' })).toThrow(/EINVOICE_HTTP_URL/);
    expect(loadConfig({ EINVOICE_TRANSPORT: 'http', EINVOICE_HTTP_URL: 'https://ap.example/send' }).EINVOICE_HTTP_URL).toBe('https://ap.example/send');
  });

  it('e-mail: SMTP_URL is smtp:// or smtps://, SMTP_FROM an address, and DKIM all three settings or none', () => {
    expect(loadConfig({})).toMatchObject({ SMTP_FROM: 'tlr@localhost', EMAIL_SEND_TIMEOUT_MS: 30000 });
    expect(loadConfig({}).SMTP_URL).toBeUndefined();
    expect(loadConfig({ SMTP_URL: 'smtps://u:p@mail.example:465' }).SMTP_URL).toBe('smtps://u:p@mail.example:465');
    expect(() => loadConfig({ SMTP_URL: 'http://mail.example' })).toThrow(/SMTP_URL: must be an smtp:\/\/ or smtps:\/\/ URL/);
    expect(() => loadConfig({ SMTP_FROM: 'faktura' })).toThrow(/SMTP_FROM: must be an e-mail address/);
    expect(() => loadConfig({ DKIM_DOMAIN: 'tlr.example' })).toThrow(/DKIM_SELECTOR: is required when DKIM_DOMAIN is set/);
    const dkim = { DKIM_DOMAIN: 'tlr.example', DKIM_SELECTOR: 's1', DKIM_PRIVATE_KEY_FILE: '/etc/tlr/dkim.pem' };
    expect(loadConfig(dkim)).toMatchObject(dkim);
  });

  it('EINVOICE_VALIDATION_THREADS: unset leaves the size to the pool; else an integer from 1 to 16', () => {
    expect(loadConfig({}).EINVOICE_VALIDATION_THREADS).toBeUndefined();
    expect(loadConfig({ EINVOICE_VALIDATION_THREADS: '16' }).EINVOICE_VALIDATION_THREADS).toBe(16);
    for (const bad of ['0', '17', '2.5', 'four', '']) {
      expect(() => loadConfig({ EINVOICE_VALIDATION_THREADS: bad })).toThrow(`EINVOICE_VALIDATION_THREADS: must be an integer from 1 to 16, got "${bad}"`);
    }
  });

  it('EINVOICE_VALIDATION_IDLE_SECONDS: unset leaves 300 to the pool; else an integer from 0 to 86400 (decision 495)', () => {
    expect(loadConfig({}).EINVOICE_VALIDATION_IDLE_SECONDS).toBeUndefined();
    expect(loadConfig({ EINVOICE_VALIDATION_IDLE_SECONDS: '0' }).EINVOICE_VALIDATION_IDLE_SECONDS).toBe(0);
    expect(loadConfig({ EINVOICE_VALIDATION_IDLE_SECONDS: '86400' }).EINVOICE_VALIDATION_IDLE_SECONDS).toBe(86_400);
    for (const bad of ['86401', '-1', '2.5', 'x', '']) {
      expect(() => loadConfig({ EINVOICE_VALIDATION_IDLE_SECONDS: bad })).toThrow(
        `EINVOICE_VALIDATION_IDLE_SECONDS: must be an integer from 0 to 86400, got "${bad}"`,
      );
    }
  });

  it('EINVOICE_ASYNC_LINES: unset leaves 500 to the domain; else an integer from 1 to 100000 (decision 491)', () => {
    expect(loadConfig({}).EINVOICE_ASYNC_LINES).toBeUndefined();
    expect(loadConfig({ EINVOICE_ASYNC_LINES: '3' }).EINVOICE_ASYNC_LINES).toBe(3);
    for (const bad of ['0', '100001', '2.5', 'x']) {
      expect(() => loadConfig({ EINVOICE_ASYNC_LINES: bad })).toThrow(`EINVOICE_ASYNC_LINES: must be an integer from 1 to 100000, got "${bad}"`);
    }
  });

  it("PASSWORD_HASH_COST: the argon2 library's default unless set to OWASP's minimum; nothing else", () => {
    expect(loadConfig({}).PASSWORD_HASH_COST).toBe('default');
    expect(loadConfig({ PASSWORD_HASH_COST: 'minimum' }).PASSWORD_HASH_COST).toBe('minimum');
    expect(() => loadConfig({ PASSWORD_HASH_COST: 'none' })).toThrow(/PASSWORD_HASH_COST/);
  });

  it('treats an empty DATABASE_URL as unset', () => {
    expect(loadConfig({ DATABASE_URL: '' }).DATABASE_URL).toBeUndefined();
  });
});

describe('TRUST_PROXY', () => {
  it('is off unless set: X-Forwarded-For counts from no peer', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '' }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
  });

  it("takes what Express's trust proxy takes: range names, addresses, CIDR ranges, or a hop count", () => {
    expect(loadConfig({ TRUST_PROXY: 'loopback' }).TRUST_PROXY).toEqual(['loopback']);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8,fd00::/8 , 192.0.2.7' }).TRUST_PROXY).toEqual(['loopback', '10.0.0.0/8', 'fd00::/8', '192.0.2.7']);
    expect(loadConfig({ TRUST_PROXY: 'linklocal,uniquelocal,::1' }).TRUST_PROXY).toEqual(['linklocal', 'uniquelocal', '::1']);
    expect(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
  });

  it.each([
    ['true', 'true would let every client name its own address'],
    ['lopback', 'not "lopback"'],
    ['10.0.0.0/33', 'not "10.0.0.0/33"'],
    ['10.0.0.0/0', 'not "10.0.0.0/0"'],
    ['loopback,10.0.0.300', 'not "10.0.0.300"'],
    ['0', 'not "0"'],
    ['-1', 'not "-1"'],
  ])('refuses %s at start with a clear message', (value, why) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(
      `TRUST_PROXY: must be false, a hop count, or a comma-separated list of loopback, linklocal, uniquelocal, IP addresses and CIDR ranges (${why})`,
    );
  });
});
