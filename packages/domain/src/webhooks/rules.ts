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

/** The longest URL stored (its serialised form). */
const MAX_URL_LENGTH = 2048;

/**
 * Ports above 1023 that belong to services other than web servers: a delivery's POST written into a
 * Redis, a memcached or a database on a public address is an attack on that service, line protocols
 * read a request's lines as commands (decision 176). The ports browsers refuse (the Fetch standard's
 * "bad ports" above 1023), and the well-known ports of data stores, brokers and cluster managers.
 */
const SERVICE_PORTS = new Map<number, string>([
  ...[1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080].map(
    (p) => [p, "a service browsers refuse to reach (the Fetch standard's bad ports)"] as const,
  ),
  [1433, 'Microsoft SQL Server'],
  [1521, 'Oracle Database'],
  [1883, 'MQTT'],
  [2375, 'the Docker API'],
  [2376, 'the Docker API'],
  [2379, 'etcd'],
  [2380, 'etcd'],
  [3306, 'MySQL'],
  [4222, 'NATS'],
  [5432, 'PostgreSQL'],
  [5672, 'AMQP (RabbitMQ)'],
  [5984, 'CouchDB'],
  [6379, 'Redis'],
  [6443, 'the Kubernetes API'],
  [8500, 'Consul'],
  [9042, 'Cassandra'],
  [9092, 'Kafka'],
  [9200, 'Elasticsearch'],
  [9300, 'Elasticsearch'],
  [10250, 'the Kubernetes kubelet'],
  [11211, 'memcached'],
  [27017, 'MongoDB'],
]);

/**
 * The URL rules checked without the network, on the text a client sent or a stored row holds: a message
 * naming the rule, or undefined. Subscribing and every send run this one function (decisions 121, 176).
 */
export function checkWebhookUrl(text: string, allowInsecure: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL such as https://example.com/webhooks';
  }
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:')) return 'must use https';
  // The parsed URL forgets an empty user name and password ("https://:@host/" is "https://host/"), so the
  // text itself is read: any "@" in its authority is a credential, empty or not.
  if (url.username || url.password || rawAuthority(text).includes('@')) return 'must not carry a user name or password';
  // Port 0 is no port; below 1024 are the well-known services (SSH, SMTP, ...) a POST has no business
  // reaching. No port in the URL is the scheme's own (443, or 80 for development http://).
  if (url.port && url.port !== '443' && Number(url.port) < 1024) return 'must use port 443 or a port from 1024 to 65535';
  const service = SERVICE_PORTS.get(Number(url.port));
  if (service) return `must not use port ${url.port}, the port of ${service}: a webhook receiver is an HTTPS server`;
  // What is stored, listed and dialled is the serialised form (webhookUrl), so that is what is measured.
  if (url.href.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const why = !allowInsecure && ipaddr.isValid(host) ? forbiddenAddress(host) : undefined;
  if (why) return `must not point at ${why}`;
  if (!allowInsecure && (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) && !ipaddr.isValid(host)) {
    return 'must name a publicly resolvable host';
  }
  return undefined;
}

/** The form a URL is stored, listed and dialled in (WHATWG serialisation); call after checkWebhookUrl. */
export const webhookUrl = (text: string): string => new URL(text).href;

/**
 * The authority of an http(s) URL as written (what lies between the scheme and the path), read the way
 * WHATWG URL parsing reads it: leading and trailing spaces and control characters dropped, tabs and
 * newlines removed anywhere, any run of "/" or "\" after the scheme skipped, and "\" ending it like "/".
 */
function rawAuthority(text: string): string {
  // eslint-disable-next-line no-control-regex
  const s = text.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');
  return /^[^:]*:[/\\]*([^/\\?#]*)/.exec(s)?.[1] ?? '';
}

/** IPv6 ranges whose addresses carry an IPv4 address, by ipaddr.js range name: what each is called. */
const EMBEDS_IPV4: Record<string, string> = {
  ipv4Mapped: 'IPv4-mapped, ::ffff:0:0/96',
  rfc6145: 'SIIT, ::ffff:0:0:0/96',
  rfc6052: 'NAT64, 64:ff9b::/96 or 64:ff9b:1::/48',
  '6to4': '6to4, 2002::/16',
  teredo: 'Teredo, 2001::/32',
};
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * Why an address may not receive deliveries, as a phrase ("a loopback address"), or undefined for a
 * public unicast address. Refused: loopback, private, link-local, CGNAT, multicast, unspecified,
 * unique-local, reserved, ... (ipaddr.js ranges), and every IPv6 form that embeds an IPv4 address,
 * whatever address it carries: the host's own stack (IPv4-mapped, IPv4-compatible) or a translator or
 * tunnel on the way (NAT64, SIIT, 6to4, Teredo) may deliver it to that IPv4 address, private ones
 * included, and a receiver with a public IPv4 address is reached by that address itself (decision 176).
 */
export function forbiddenAddress(address: string): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'a malformed address';
  }
  const range = parsed.range();
  const embedded = EMBEDS_IPV4[range];
  if (embedded) return `an IPv6 address embedding an IPv4 address (${embedded})`;
  if (range !== 'unicast') return `${/^(?:[aeio]|un)/.test(range) ? 'an' : 'a'} ${range} address`;
  // ::/96 (RFC 4291, deprecated) is "unicast" to ipaddr.js; :: and ::1 in it are named above.
  if (parsed.kind() === 'ipv6' && parsed.match(IPV4_COMPATIBLE)) return 'an IPv6 address embedding an IPv4 address (IPv4-compatible, ::/96)';
  return undefined;
}
