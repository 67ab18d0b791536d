import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, decryptSecret, encryptSecret, forbiddenAddress, MAX_ATTEMPTS, newSigningSecret, retryWaitMs, signatureHeader } from './rules.ts';

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
    for (const a of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:93.184.216.34']) expect(forbiddenAddress(a), a).toBeUndefined();
  });
});
