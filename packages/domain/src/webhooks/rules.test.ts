import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  checkWebhookUrl,
  decryptSecret,
  encryptSecret,
  forbiddenAddress,
  MAX_ATTEMPTS,
  newSigningSecret,
  retryWaitMs,
  signatureHeader,
  webhookUrl,
} from './rules.ts';

describe('webhook rules', () => {
  it('waits 1, 2, 4, 8, 16, 32 minutes, then 1 hour, and gives up after the 8th attempt (contract)', () => {
    expect(Array.from({ length: MAX_ATTEMPTS }, (_, i) => retryWaitMs(i + 1))).toEqual(
      [1, 2, 4, 8, 16, 32, 60, null].map((m) => (m === null ? null : m * 60_000)),
    );
    expect(retryWaitMs(3, 10)).toBe(40);
  });

  it('signs "<t>.<raw body>" with HMAC-SHA256 keyed by the whole whsec_ string, as unpadded base64url', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const body = '{"id":"x","amount":1.10}';
    const header = signatureHeader(secret, body, 1_790_000_000);
    const [, t, v1] = /^t=(\d+),v1=([A-Za-z0-9_-]+)$/.exec(header)!;
    // An independent computation of the recipe in docs/webhooks.md.
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
      .update(Buffer.from(`${t}.${body}`, 'utf8'))
      .digest('base64')
      .replace(/=+$/, '')
      .replace(/\+/g, '-')
      .replace(/\//g, '_');
    expect(v1).toBe(expected);
    expect(signatureHeader(secret, `${body} `, 1_790_000_000)).not.toBe(header);
  });

  it('keeps secrets encrypted and authenticated: another key or a changed byte fails', () => {
    const key = randomBytes(32);
    const stored = encryptSecret('whsec_abc', key);
    expect(stored).not.toContain('abc');
    expect(decryptSecret(stored, key)).toBe('whsec_abc');
    expect(() => decryptSecret(stored, randomBytes(32))).toThrow();
    const parts = stored.split('.');
    parts[3] = Buffer.from('whsec_abd').toString('base64url');
    expect(() => decryptSecret(parts.join('.'), key)).toThrow();
  });

  it('accepts public https URLs only, unless insecure URLs are allowed for development', () => {
    expect(checkWebhookUrl('https://hooks.example.com/tlr', false)).toBeUndefined();
    expect(checkWebhookUrl('http://hooks.example.com/tlr', false)).toBe('must use https');
    expect(checkWebhookUrl('https://user:pw@hooks.example.com/', false)).toMatch(/user name or password/);
    expect(checkWebhookUrl('not a url', false)).toMatch(/absolute URL/);
    expect(checkWebhookUrl('https://127.0.0.1/x', false)).toMatch(/loopback/);
    expect(checkWebhookUrl('https://[::1]/x', false)).toMatch(/loopback/);
    expect(checkWebhookUrl('https://localhost/x', false)).toMatch(/publicly resolvable/);
    expect(checkWebhookUrl('https://intranet/x', false)).toMatch(/publicly resolvable/);
    expect(checkWebhookUrl('http://127.0.0.1:9999/x', true)).toBeUndefined();
  });

  it('refuses every non-public address class, IPv4-mapped IPv6 included', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '224.0.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '::1',
      '::',
      'fc00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:a9fe:a9fe',
      'ff02::1',
    ]) {
      expect(forbiddenAddress(a), a).toBeDefined();
    }
    for (const a of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '2001:4860:4860::8888']) expect(forbiddenAddress(a), a).toBeUndefined();
  });

  // Decision 176: whatever IPv4 address they carry, a public one included.
  const embedding: [form: string, addresses: string[]][] = [
    ['IPv4-compatible, ::/96', ['::5db8:d822', '::7f00:1', '::a9fe:a9fe', '::102:304']],
    ['IPv4-mapped, ::ffff:0:0/96', ['::ffff:93.184.216.34', '::ffff:5db8:d822', '::ffff:127.0.0.1']],
    ['SIIT, ::ffff:0:0:0/96', ['::ffff:0:5db8:d822', '::ffff:0:7f00:1']],
    ['NAT64, 64:ff9b::/96', ['64:ff9b::5db8:d822', '64:ff9b::7f00:1', '64:ff9b:1::5db8:d822', '64:ff9b:1:ffff::1']],
    ['6to4, 2002::/16', ['2002:5db8:d822::1', '2002:7f00:1::1']],
    ['Teredo, 2001::/32', ['2001:0:5db8:d822::1', '2001::a9fe:a9fe']],
  ];

  it('refuses every IPv6 form that embeds an IPv4 address, naming the form', () => {
    for (const [form, addresses] of embedding) {
      for (const a of addresses) {
        expect(forbiddenAddress(a), a).toContain('an IPv6 address embedding an IPv4 address');
        expect(forbiddenAddress(a), a).toContain(form);
        expect(checkWebhookUrl(`https://[${a}]/x`, false), a).toBe(`must not point at ${forbiddenAddress(a)}`);
      }
    }
    // The nearest public neighbours stay accepted.
    for (const a of ['::1:0:0:1', '64:ff9a::5db8:d822', '64:ff9b:2::1', '2003::1', '2001:4860::1']) {
      expect(forbiddenAddress(a), a).toBeUndefined();
      expect(checkWebhookUrl(`https://[${a}]/x`, false), a).toBeUndefined();
    }
  });

  it('refuses port 0 and the ports below 1024 other than 443, also when insecure URLs are allowed', () => {
    for (const url of ['https://93.184.216.34:0/x', 'https://93.184.216.34:22/x', 'https://93.184.216.34:80/x', 'https://93.184.216.34:1023/x']) {
      expect(checkWebhookUrl(url, false), url).toBe('must use port 443 or a port from 1024 to 65535');
    }
    for (const url of ['http://127.0.0.1:0/x', 'http://127.0.0.1:25/x', 'https://127.0.0.1:1/x']) {
      expect(checkWebhookUrl(url, true), url).toBe('must use port 443 or a port from 1024 to 65535');
    }
    for (const url of [
      'https://93.184.216.34/x',
      'https://93.184.216.34:443/x',
      'https://93.184.216.34:1024/x',
      'https://93.184.216.34:8443/x',
      'https://93.184.216.34:65535/x',
    ]) {
      expect(checkWebhookUrl(url, false), url).toBeUndefined();
    }
    // Ports above 1023 of services that are not web servers (the attack run's :6379), also with insecure URLs.
    for (const [port, service] of [
      [6379, 'Redis'],
      [11211, 'memcached'],
      [5432, 'PostgreSQL'],
      [6667, "the Fetch standard's bad ports"],
    ] as const) {
      for (const insecure of [false, true]) {
        expect(checkWebhookUrl(`https://93.184.216.34:${port}/x`, insecure)).toMatch(
          new RegExp(`^must not use port ${port}, the port of .*${service.replace(/[()']/g, '.')}`),
        );
      }
    }
    // No port is the scheme's own: 80 for development http://, and http://...:443 too.
    for (const url of ['http://127.0.0.1/x', 'http://127.0.0.1:80/x', 'http://127.0.0.1:443/x', 'http://127.0.0.1:9999/x']) {
      expect(checkWebhookUrl(url, true), url).toBeUndefined();
    }
  });

  it('refuses a user name or password even when empty, which URL parsing would drop', () => {
    for (const url of [
      'https://:@hooks.example.com/',
      'https://@hooks.example.com/',
      'https://user:@hooks.example.com/',
      'https://:pw@hooks.example.com/',
      'https:@hooks.example.com/',
      'https:\\\\@hooks.example.com/',
      'https:/\\:@hooks.example.com/x',
      ' https://\t@hooks.example.com/',
      'HTTPS://@hooks.example.com:8443?q',
      'https://a@b@hooks.example.com/',
    ]) {
      expect(new URL(url).protocol, url).toBe('https:');
      expect(checkWebhookUrl(url, false), url).toBe('must not carry a user name or password');
      expect(checkWebhookUrl(url.replace(/^( ?)https/i, '$1http'), true), url).toBe('must not carry a user name or password');
    }
    // An "@" after the authority is the path's, query's or fragment's.
    for (const url of ['https://hooks.example.com/@x', 'https://hooks.example.com\\@x', 'https://hooks.example.com?a@b', 'https://hooks.example.com#@']) {
      expect(checkWebhookUrl(url, false), url).toBeUndefined();
    }
  });

  it('stores, lists and dials the serialised form, and measures that', () => {
    expect(webhookUrl('HTTPS://Hooks.Example.COM:443/a/./b')).toBe('https://hooks.example.com/a/b');
    expect(webhookUrl(' https://[2606:2800:0220:0001:0248:1893:25C8:1946]:8443/a/../b c?x#y')).toBe(
      'https://[2606:2800:220:1:248:1893:25c8:1946]:8443/b%20c?x#y',
    );
    expect(webhookUrl('https:\\\\0x5d.184.216.34\\tlr')).toBe('https://93.184.216.34/tlr');
    const path = `https://93.184.216.34/${'a'.repeat(2048 - 'https://93.184.216.34/'.length)}`;
    expect(checkWebhookUrl(path, false)).toBeUndefined();
    // 2048 characters as sent, 2050 as stored (a space is %20): refused.
    const spaced = `${path.slice(0, -2)} a`;
    expect([spaced.length, webhookUrl(spaced).length]).toEqual([2048, 2050]);
    expect(checkWebhookUrl(spaced, false)).toBe('must be at most 2048 characters');
    // 2052 characters as sent, 2048 as stored: accepted.
    const long = path.replace('https://93.184.216.34/', 'HTTPS://93.184.216.34:443/');
    expect([long.length, webhookUrl(long)]).toEqual([2052, path]);
    expect(checkWebhookUrl(long, false)).toBeUndefined();
  });
});
