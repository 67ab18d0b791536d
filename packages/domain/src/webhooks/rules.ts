// Webhook rules, pure: the contract's retry schedule, the signature, signing secrets and their
// encryption at rest, and which URLs and addresses a delivery may go to (no SSRF into our network).
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import ipaddr from 'ipaddr.js';

/** Contract, Limits: "Active webhook subscriptions: 25 per company". */
export const MAX_ACTIVE_SUBSCRIPTIONS = 25;
/** Contract, Limits: "Delivery history: latest 100 entries". */
export const DELIVERY_HISTORY = 100;
/** Contract: at most 8 attempts. */
export const MAX_ATTEMPTS = 8;
/** Contract: waits of 1, 2, 4, 8, 16, 32 minutes, then 1 hour, between attempts 1..7 and the next. */
const WAIT_MINUTES = [1, 2, 4, 8, 16, 32, 60] as const;
/** A receiver has this long to answer (the contract says "a few seconds"). */
export const DELIVERY_TIMEOUT_MS = 5_000;

export const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'dead_letter'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The wait after failed attempt `attempt` (1-based), or null after the last: dead_letter. */
export function retryWaitMs(attempt: number, minuteMs = 60_000): number | null {
  if (attempt >= MAX_ATTEMPTS) return null;
  return WAIT_MINUTES[Math.min(attempt, WAIT_MINUTES.length) - 1]! * minuteMs;
}

/** `whsec_` and 32 random bytes (256 bits) in base64url. */
export const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

/**
 * Service-Signature: `t=<unix seconds>,v1=<unpadded base64url HMAC-SHA256 of "<t>.<raw body>">`, keyed
 * with the whole secret string, `whsec_` included, as UTF-8 (docs/webhooks.md).
 */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('base64url');
  return `t=${unixSeconds},v1=${v1}`;
}

// Secrets at rest: AES-256-GCM, a fresh 12-byte IV each, stored as "v1.<iv>.<tag>.<ciphertext>" (base64url).
export function encryptSecret(secret: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), data].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

export function decryptSecret(stored: string, key: Buffer): string {
  const [version, iv, tag, data] = stored.split('.');
  if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('not an encrypted webhook secret');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}

/** The URL rules checked without the network; a message naming the rule, or undefined. */
export function checkWebhookUrl(text: string, allowInsecure: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL such as https://example.com/webhooks';
  }
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:')) return 'must use https';
  if (url.username || url.password) return 'must not carry a user name or password';
  if (text.length > 2048) return 'must be at most 2048 characters';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host) && !allowInsecure && forbiddenAddress(host)) return `must not point at a ${forbiddenAddress(host)} address`;
  if (!allowInsecure && (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) && !ipaddr.isValid(host)) {
    return 'must name a publicly resolvable host';
  }
  return undefined;
}

/**
 * Why an address may not receive deliveries (loopback, private, link-local, CGNAT, multicast,
 * unspecified, unique-local, reserved, ...), or undefined for a public unicast address. IPv4-mapped
 * IPv6 addresses are judged as the IPv4 address they carry.
 */
export function forbiddenAddress(address: string): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'malformed';
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  return range === 'unicast' ? undefined : range;
}
