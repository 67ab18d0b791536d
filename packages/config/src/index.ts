// The only reader of process.env: parses and validates the configuration once, at start, with one clear
// message per bad value. Everything else receives a Config object.
import { isIP } from 'node:net';
import { z } from 'zod';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const portNumber = (v: string, ctx: z.RefinementCtx): number => {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n > 65535) {
    ctx.addIssue({ code: 'custom', message: `must be a port number from 0 to 65535, got "${v}"` });
    return z.NEVER;
  }
  return n;
};
const port = (fallback: number) => z.string().default(String(fallback)).transform(portNumber);

const milliseconds = (fallback: number) =>
  z
    .string()
    .default(String(fallback))
    .transform((v, ctx) => {
      const n = Number(v);
      if (!/^\d+$/.test(v) || n < 100 || n > 600_000) {
        ctx.addIssue({ code: 'custom', message: `must be milliseconds from 100 to 600000, got "${v}"` });
        return z.NEVER;
      }
      return n;
    });

/** An optional whole number from `min` to `max`: unset stays undefined (the default is the consumer's). */
const optionalInteger = (min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return undefined;
      const n = Number(v);
      if (!/^\d+$/.test(v) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `must be an integer from ${min} to ${max}, got "${v}"` });
        return z.NEVER;
      }
      return n;
    });

/** The names Express's `trust proxy` takes for address ranges (proxy-addr). */
const PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

/** An IP address, or a CIDR range (/1 to /32 for IPv4, /1 to /128 for IPv6), as proxy-addr takes them. */
const proxyAddress = (v: string) => {
  const [ip = '', prefix, ...more] = v.split('/');
  const kind = isIP(ip);
  if (!kind || more.length) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) >= 1 && Number(prefix) <= (kind === 4 ? 32 : 128));
};

/**
 * TRUST_PROXY (decision 175): which peers' X-Forwarded-For and X-Forwarded-Proto count, as Express's
 * `trust proxy` takes it. Unset or `false`: none (req.ip is the TCP peer). A hop count, or a list of
 * range names, addresses and CIDR ranges. Not `true`: trusting every peer lets any client name its own
 * address and so escape the sign-in throttle.
 */
const trustProxy = z
  .string()
  .optional()
  .transform((v, ctx): false | number | string[] => {
    const text = v?.trim() ?? '';
    if (text === '' || text === 'false') return false;
    if (/^[1-9]\d{0,2}$/.test(text)) return Number(text);
    const items = text.split(',').map((s) => s.trim());
    const bad = items.filter((s) => !PROXY_RANGES.includes(s) && !proxyAddress(s));
    if (!bad.length) return items;
    const why = text === 'true' ? 'true would let every client name its own address' : `not ${bad.map((b) => `"${b}"`).join(', ')}`;
    ctx.addIssue({
      code: 'custom',
      message: `must be false, a hop count, or a comma-separated list of loopback, linklocal, uniquelocal, IP addresses and CIDR ranges (${why})`,
    });
    return z.NEVER;
  });

const schema = z
  .object({
    DATABASE_URL: z
      .string()
      .optional()
      .transform((v) => (v === '' ? undefined : v))
      .refine((v) => v === undefined || /^postgres(ql)?:\/\//.test(v), 'must be a postgresql:// URL'),
    PORT: port(3000),
    HOST: z.string().default('0.0.0.0'),
    LOG_LEVEL: z.enum(logLevels).default('info'),
    DATA_DIR: z.string().default('.data'),
    // Unset: the port kept in the embedded data folder, chosen free when the folder was made (decision 420).
    EMBEDDED_PG_PORT: z
      .string()
      .optional()
      .transform((v, ctx) => (v === undefined || v === '' ? undefined : portNumber(v, ctx))),
    DB_POOL_SIZE: z
      .string()
      .default('10')
      .transform((v, ctx) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1 || n > 200) {
          ctx.addIssue({ code: 'custom', message: `must be an integer from 1 to 200, got "${v}"` });
          return z.NEVER;
        }
        return n;
      }),
    RUN_WORKER: z
      .enum(['true', 'false'])
      .default('true')
      .transform((v) => v === 'true'),
    PUBLIC_BASE_URL: z.string().url().optional(),
    TRUST_PROXY: trustProxy,
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(15000),
    // Bounds on every wait for the database (docs/operations.md): a statement, getting a connection, a
    // whole transaction, and a whole request (past it the client gets 503 with Retry-After).
    DB_STATEMENT_TIMEOUT_MS: milliseconds(10000),
    DB_CONNECT_TIMEOUT_MS: milliseconds(5000),
    DB_TRANSACTION_TIMEOUT_MS: milliseconds(15000),
    REQUEST_TIMEOUT_MS: milliseconds(20000),
    // Where voucher documents are kept (docs/operations.md): the filesystem under STORAGE_DIR (default
    // DATA_DIR/vouchers), or S3-compatible object storage, which several servers can share.
    // Webhooks (docs/webhooks.md): the key signing secrets are encrypted under (base64 of 32 bytes; by
    // default generated once into DATA_DIR/webhook-secrets.key), the length of one "minute" of the retry
    // schedule, and, for development only, http:// and private targets.
    WEBHOOK_SECRETS_KEY: z
      .string()
      .optional()
      .refine((v) => v === undefined || Buffer.from(v, 'base64').length === 32, 'must be 32 bytes in base64 (openssl rand -base64 32)'),
    WEBHOOK_RETRY_UNIT_MS: z.coerce.number().int().min(1).default(60000),
    WEBHOOK_ALLOW_INSECURE_URLS: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true'),
    // The cost of hashing a password (argon2id): `default` is the argon2 library's (64 MiB, 3 passes, 4
    // lanes); `minimum` is OWASP's minimum for argon2id (19 MiB, 2 passes, 1 lane), about a sixth of the
    // CPU, for small machines and the test suite. A stored hash keeps its own cost: changing this changes
    // only the hashes made afterwards.
    PASSWORD_HASH_COST: z.enum(['default', 'minimum']).default('default'),
    // How long POST /sandbox/reset waits for a worker to run the reset job before running it itself.
    SANDBOX_RESET_PICKUP_MS: z.coerce.number().int().min(0).default(2000),
    // Development of a partner app: http://localhost redirect URIs may be registered for OAuth clients.
    OAUTH_ALLOW_HTTP_LOCALHOST: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true'),
    // E-invoices (docs/operations.md, E-invoicing): the access point documents are handed to. `directory`
    // writes each into EINVOICE_OUTBOX_DIR and reads receipts and responses from EINVOICE_INBOX_DIR
    // every EINVOICE_INBOX_POLL_MS (defaults under DATA_DIR/einvoice); `http` POSTs each to
    // EINVOICE_HTTP_URL with EINVOICE_HTTP_TOKEN as its Bearer token, giving up after
    // EINVOICE_HANDOVER_TIMEOUT_MS (a worker's lease on a message follows from it: a shorter one lets
    // another worker take over a dead one's messages sooner). Retries follow the webhook schedule,
    // WEBHOOK_RETRY_UNIT_MS included.
    EINVOICE_TRANSPORT: z.enum(['directory', 'http']).default('directory'),
    EINVOICE_OUTBOX_DIR: z.string().optional(),
    EINVOICE_INBOX_DIR: z.string().optional(),
    // The directory transport's receiver registry (receivers.json: each receiver's Peppol id and the
    // documents it takes, einvoice/receivers.ts), which a customer's einvoice_format auto sends by;
    // default receivers.json in the folder above the outbox (DATA_DIR/einvoice). No file: no capabilities.
    EINVOICE_RECEIVERS_FILE: z.string().optional(),
    EINVOICE_INBOX_POLL_MS: milliseconds(10000),
    EINVOICE_HTTP_URL: z
      .string()
      .optional()
      .refine((v) => v === undefined || /^https?:\/\/[^/]/.test(v), 'must be an http:// or https:// URL'),
    EINVOICE_HTTP_TOKEN: z.string().optional(),
    // The worker threads that run the official e-invoice rules (validate.ts, decision 235); unset: one
    // per core, at most 4.
    EINVOICE_VALIDATION_THREADS: optionalInteger(1, 16),
    // How long a validation worker may stay idle before it stops and gives its memory back (decision 495);
    // the worker that holds every rule set stays. Unset: 300; 0: workers never stop.
    EINVOICE_VALIDATION_IDLE_SECONDS: optionalInteger(0, 86_400),
    // A received e-invoice of more lines is imported by a job and answered 202 (decision 491); unset: 500.
    EINVOICE_ASYNC_LINES: optionalInteger(1, 100_000),
    EINVOICE_HANDOVER_TIMEOUT_MS: milliseconds(20000),
    // E-mailing documents (docs/email.md): the SMTP server (smtp:// upgrades with STARTTLS when the server
    // offers it, smtps:// is TLS from the first byte; user and password in the URL), the From address
    // (the company's name is its display name, its own e-mail the Reply-To), and the DKIM key that signs
    // each message when all three DKIM settings are set. Without SMTP_URL each e-mail is written to the
    // log instead (and counts as sent). One attempt may take EMAIL_SEND_TIMEOUT_MS; retries follow the
    // webhook schedule, WEBHOOK_RETRY_UNIT_MS included.
    SMTP_URL: z
      .string()
      .optional()
      .refine((v) => v === undefined || /^smtps?:\/\/[^/]/.test(v), 'must be an smtp:// or smtps:// URL (smtp://user:password@host:587)'),
    SMTP_FROM: z
      .string()
      .trim()
      .default('tlr@localhost')
      .refine((v) => /^[^\s@<>]+@[^\s@<>]+$/.test(v), 'must be an e-mail address (faktura@example.dk)'),
    DKIM_DOMAIN: z.string().trim().optional(),
    DKIM_SELECTOR: z.string().trim().optional(),
    DKIM_PRIVATE_KEY_FILE: z.string().trim().optional(),
    EMAIL_SEND_TIMEOUT_MS: milliseconds(30000),
    // Filing the VAT return with Skattestyrelsen (docs/vat-return.md, Filing): the provider's OCES3
    // certificate as PKCS#12 and its passphrase, the RSU B2B gateway's base URL (the three services'
    // paths hang from it), the gateway's signing certificate and its CA (PEM) that answers are checked
    // against, and how long one call may take (a submit makes two inside its transaction: keep twice it
    // below DB_TRANSACTION_TIMEOUT_MS). Without them, POST /vat-returns/{period}/submit answers 503.
    SKAT_CERT_FILE: z.string().optional(),
    SKAT_CERT_PASSPHRASE: z.string().optional(),
    SKAT_GATEWAY_URL: z
      .string()
      .optional()
      .refine((v) => v === undefined || /^https?:\/\/[^/]/.test(v), 'must be an http:// or https:// URL'),
    SKAT_GATEWAY_CERT_FILE: z.string().optional(),
    SKAT_GATEWAY_CA_FILE: z.string().optional(),
    SKAT_TIMEOUT_MS: milliseconds(5000),
    // Warm from the start (validate.ts, decision 634): the service compiles the official e-invoice rules
    // (when no build did) and loads them into its validation workers as it starts, not at the first document.
    EINVOICE_WARM_AT_START: z
      .enum(['true', 'false'])
      .default('true')
      .transform((v) => v === 'true'),
    STORAGE_BACKEND: z.enum(['filesystem', 's3']).default('filesystem'),
    STORAGE_DIR: z.string().optional(),
    S3_ENDPOINT: z.string().url().optional(),
    S3_REGION: z.string().default('us-east-1'),
    S3_BUCKET: z.string().optional(),
    S3_ACCESS_KEY_ID: z.string().optional(),
    S3_SECRET_ACCESS_KEY: z.string().optional(),
    S3_FORCE_PATH_STYLE: z
      .enum(['true', 'false'])
      .optional()
      .transform((v) => (v === undefined ? undefined : v === 'true')),
    // Backups (docs/operations.md, Backups): pgBackRest's config, passphrase file, logs under BACKUP_DIR
    // (default DATA_DIR/backup), the first repository in BACKUP_REPO_PATH (default BACKUP_DIR/repo), both
    // repositories encrypted with BACKUP_CIPHER_PASS (unset: generated once into BACKUP_DIR/cipher-pass).
    // The second repository is an S3-protocol bucket over HTTPS. With DATABASE_URL, pgBackRest runs on the
    // database host: BACKUP_PG_DATA_DIR is its data folder there, BACKUP_PG_SOCKET_DIR its socket folder.
    BACKUP_DIR: z.string().optional(),
    BACKUP_REPO_PATH: z.string().optional(),
    BACKUP_CIPHER_PASS: z.string().min(20, 'must be at least 20 characters').optional(),
    BACKUP_S3_ENDPOINT: z
      .string()
      .optional()
      .refine((v) => v === undefined || /^https:\/\/[^/]+\/?$/.test(v), 'must be an https:// URL of a host (pgBackRest speaks S3 only over HTTPS)'),
    BACKUP_S3_BUCKET: z.string().optional(),
    BACKUP_S3_REGION: z.string().default('us-east-1'),
    BACKUP_S3_ACCESS_KEY_ID: z.string().optional(),
    BACKUP_S3_SECRET_ACCESS_KEY: z.string().optional(),
    BACKUP_S3_PATH: z.string().default('/tlr-backup'),
    BACKUP_S3_CA_FILE: z.string().optional(),
    BACKUP_S3_VERIFY_TLS: z
      .enum(['true', 'false'])
      .default('true')
      .transform((v) => v === 'true'),
    BACKUP_PG_DATA_DIR: z.string().optional(),
    BACKUP_PG_SOCKET_DIR: z.string().default('/var/run/postgresql'),
    // The schedule (Danish time): a full backup weekly, an incremental one on the other days (BEK 97/2023 § 7).
    BACKUP_FULL_CRON: z.string().default('30 1 * * 0'),
    BACKUP_INCR_CRON: z.string().default('30 1 * * 1-6'),
  })
  .superRefine((c, ctx) => {
    if (c.BACKUP_S3_ENDPOINT) {
      for (const k of ['BACKUP_S3_BUCKET', 'BACKUP_S3_ACCESS_KEY_ID', 'BACKUP_S3_SECRET_ACCESS_KEY'] as const) {
        if (!c[k]) ctx.addIssue({ code: 'custom', path: [k], message: 'is required when BACKUP_S3_ENDPOINT is set' });
      }
    }
    if (c.STORAGE_BACKEND === 's3' && !c.S3_BUCKET) ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'is required when STORAGE_BACKEND is s3' });
    const dkim = (['DKIM_DOMAIN', 'DKIM_SELECTOR', 'DKIM_PRIVATE_KEY_FILE'] as const).filter((k) => c[k]);
    if (dkim.length && dkim.length < 3) {
      for (const k of ['DKIM_DOMAIN', 'DKIM_SELECTOR', 'DKIM_PRIVATE_KEY_FILE'] as const) {
        if (!c[k])
          ctx.addIssue({
            code: 'custom',
            path: [k],
            message: `is required when ${dkim.join(' and ')} ${dkim.length > 1 ? 'are' : 'is'} set (DKIM needs all three)`,
          });
      }
    }
    if (c.EINVOICE_TRANSPORT === 'http' && !c.EINVOICE_HTTP_URL) {
      ctx.addIssue({ code: 'custom', path: ['EINVOICE_HTTP_URL'], message: 'is required when EINVOICE_TRANSPORT is http' });
    }
  });

export type Config = z.infer<typeof schema>;

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
}

/** The contract version, reported in X-API-Version, in the OpenAPI document and in every event. */
export const API_VERSION = '2026-04-10';

/**
 * A request id a client may send in X-Request-ID and get back (decision 5); any other is replaced by one
 * the server mints. The server (request-context.ts) keeps it by this rule, the OpenAPI document states it.
 */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The calendar a company's business days are counted in (Danish companies): the domain's "today"
 * (calendar.ts) and the daily jobs' schedules (@tlr/jobs) both read it here.
 */
export const BUSINESS_TIME_ZONE = 'Europe/Copenhagen';
