// Sign-in and browser sessions of the owner pages, the authorization page and the admin app. Sessions
// live in PostgreSQL (any server can serve any request); the cookie holds 256 random bits and only their
// digest is stored. Sign-in is throttled by account and address together (decision 174, the rule in
// rules.ts), the same whether the e-mail exists or not, and an unknown e-mail costs the same argon2id
// verification as a wrong password.
import { createHash, randomBytes } from 'node:crypto';
import { Prisma, type Db, type InTransaction } from '@tlr/db';
import { hashPassword, verifyPassword } from '../credentials/secrets.ts';
import {
  addressKey,
  afterFailure,
  current,
  DEVICE_COOKIE_SECONDS,
  DEVICE_TRUSTED_FAILURES,
  FORGET_SECONDS,
  heldFor,
  SIGN_IN_RULES,
  withdrawFailure,
  type ThrottleRule,
  type ThrottleState,
} from './rules.ts';

/** Idle and absolute lifetimes of a signed-in session; a sign-in form's session lasts an hour. */
const SESSION_IDLE_SECONDS = 2 * 3600;
const SESSION_ABSOLUTE_SECONDS = 12 * 3600;
const ANONYMOUS_SECONDS = 3600;

const digest = (s: string): Uint8Array<ArrayBuffer> => new Uint8Array(createHash('sha256').update(s).digest());

/** Whose session: a company owner's (users) or a staff member's (staff_users). A session never crosses. */
export type SessionRealm = 'owner' | 'staff';

export interface WebSession {
  token: string;
  userId: string | null;
  csrfToken: string;
}

export async function createWebSession(db: Db, userId: string | null, realm: SessionRealm = 'owner'): Promise<WebSession> {
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const lifetime = userId ? SESSION_IDLE_SECONDS : ANONYMOUS_SECONDS;
  await db.webSession.create({
    data: { id_hash: digest(token), realm, user_id: userId, csrf_token: csrfToken, expires_at: new Date(Date.now() + lifetime * 1000) },
  });
  return { token, userId, csrfToken };
}

/** The session of a cookie, extending a signed-in one's idle time (at most once a minute, never past its absolute end). */
export async function findWebSession(db: Db, token: string | undefined, realm: SessionRealm = 'owner'): Promise<WebSession | null> {
  if (!token || token.length > 100) return null;
  const row = await db.webSession.findUnique({ where: { id_hash: digest(token) } });
  const now = Date.now();
  if (!row || row.realm !== realm || row.expires_at.getTime() <= now) return null;
  if (row.user_id && now - row.last_seen_at.getTime() > 60_000) {
    const end = Math.min(now + SESSION_IDLE_SECONDS * 1000, row.created_at.getTime() + SESSION_ABSOLUTE_SECONDS * 1000);
    await db.webSession.update({ where: { id_hash: row.id_hash }, data: { last_seen_at: new Date(now), expires_at: new Date(end) } });
  }
  return { token, userId: row.user_id, csrfToken: row.csrf_token };
}

export async function deleteWebSession(db: Db, token: string): Promise<void> {
  await db.webSession.deleteMany({ where: { id_hash: digest(token) } });
}

/** Deletes expired sessions, forgotten throttle keys and expired device cookies (the hourly purge job). */
export async function purgeWebSessions(db: Db, now = new Date()): Promise<number> {
  const sessions = await db.webSession.deleteMany({ where: { expires_at: { lt: now } } });
  const forgotten = new Date(now.getTime() - FORGET_SECONDS * 1000);
  const throttles = await db.signInThrottle.deleteMany({ where: { OR: [{ last_failure_at: null }, { last_failure_at: { lt: forgotten } }] } });
  const devices = await db.signInDevice.deleteMany({ where: { expires_at: { lt: now } } });
  return sessions.count + throttles.count + devices.count;
}

export interface SignInAttempt {
  email: string;
  password: string;
  /** The client's address as the server sees it (req.ip, which TRUST_PROXY decides). */
  ip: string;
  realm: SessionRealm;
  /** The browser's device cookie of the realm, if it sent one. */
  device?: string | undefined;
}

export type SignInResult =
  /** `device`: the browser's new device cookie (it replaces the one it sent). */
  { ok: true; userId: string; email: string; device: string } | { ok: false; reason: 'invalid' } | { ok: false; reason: 'throttled'; retryAfter: number };

type KeyKind = keyof typeof SIGN_IN_RULES;

/**
 * The digests an attempt is counted under: the pair (e-mail as typed and address), the address, and the
 * account (the e-mail as typed, from any address). By the e-mail as typed, never by whether it exists.
 */
export function signInThrottleKeys(realm: SessionRealm, email: string, ip: string): Record<KeyKind, Uint8Array<ArrayBuffer>> {
  const e = email.trim().toLowerCase();
  const a = addressKey(ip);
  const key = (...parts: string[]) => digest(JSON.stringify([realm, ...parts]));
  return { pair: key('pair', e, a), address: key('address', a), account: key('account', e) };
}

/** A failure counted for an attempt before its password was checked. */
interface Counted {
  kind: KeyKind;
  hash: Uint8Array<ArrayBuffer>;
  rule: ThrottleRule;
  before: ThrottleState;
  after: ThrottleState;
}

/** Thrown inside the check's transaction to roll it back (a held attempt leaves nothing behind). */
class Held {
  readonly retryAfter: number;
  constructor(retryAfter: number) {
    this.retryAfter = retryAfter;
  }
}

interface ThrottleRow {
  failures: number;
  last_failure_at: Date | null;
  held_until: Date | null;
}
const stateOf = (r: ThrottleRow): ThrottleState => ({ failures: r.failures, lastFailureAt: r.last_failure_at, heldUntil: r.held_until });

/** Rows are locked in one order (device first, then keys by digest) so that two attempts never deadlock. */
const byDigest = <T extends { hash: Uint8Array }>(keys: T[]) => [...keys].sort((a, b) => Buffer.compare(a.hash, b.hash));

/** The digest of a device cookie as sent, if it may be one. */
const deviceDigest = (token: string | undefined) => (token && token.length <= 100 ? digest(token) : null);

/**
 * Whether the browser's device cookie is one of this account's that still trusts it (fewer than 5
 * failures since it was set); `lock` takes the row's lock for the rest of the transaction. Asked for an
 * e-mail that exists or not alike (no user id matches nothing), so its time tells nothing either.
 */
async function trustedDevice(db: Db, attempt: SignInAttempt, userId: string | null, lock: boolean): Promise<Uint8Array<ArrayBuffer> | null> {
  const hash = deviceDigest(attempt.device);
  if (!hash) return null;
  const rows = await db.$queryRaw<{ failures: number }[]>`
    SELECT failures FROM sign_in_devices
    WHERE id_hash = ${Buffer.from(hash)} AND realm = ${attempt.realm} AND user_id = ${userId}::uuid AND expires_at > now()
    ${lock ? Prisma.sql`FOR UPDATE` : Prisma.empty}`;
  return rows[0] && rows[0].failures < DEVICE_TRUSTED_FAILURES ? hash : null;
}

/** The keys that apply: a browser its device cookie trusts is not held by the account's key. */
const keysOf = (hashes: Record<KeyKind, Uint8Array<ArrayBuffer>>, trusted: boolean) =>
  byDigest(
    (trusted ? (['pair', 'address'] as const) : (['pair', 'address', 'account'] as const)).map((kind) => ({
      kind,
      hash: hashes[kind],
      rule: SIGN_IN_RULES[kind],
    })),
  );

/**
 * The throttle's clock: the database's now() (one clock for every server), unless a test sets `now` (an
 * injected clock, so that "Try again in 1 minute" does not depend on how fast the machine is).
 */
export const signInClock: { now?: (() => Date) | undefined } = {};
const clockNow = (): Date | null => signInClock.now?.() ?? null;

/**
 * Seconds an attempt is held for by what its keys' rows say now, read without a lock: a flood of held
 * attempts (what an attacker sends once held) then takes no transaction and queues on no row lock. It
 * only ever refuses; whether an attempt may be checked is decided under the lock (`checkAndCount`).
 */
async function heldAlready(db: Db, keys: { hash: Uint8Array<ArrayBuffer> }[]): Promise<number> {
  const rows = await db.$queryRaw<(ThrottleRow & { now: Date })[]>`
    SELECT failures, last_failure_at, held_until, COALESCE(${clockNow()}::timestamptz, now()) AS now FROM sign_in_throttles
    WHERE key_hash IN (${Prisma.join(keys.map((k) => Buffer.from(k.hash)))})`;
  return Math.max(0, ...rows.map((r) => heldFor(stateOf(r), r.now)));
}

/**
 * The check and the count in one transaction: the keys' rows are locked, and unless one of them holds the
 * attempt, each counts it as a failure now, before the password is checked. So parallel guesses on any
 * servers are counted one after another and none gets through a hold the ones before it set; a right
 * password takes its failure back afterwards (`settleSuccess`).
 */
async function checkAndCount(
  inTx: InTransaction,
  attempt: SignInAttempt,
  hashes: Record<KeyKind, Uint8Array<ArrayBuffer>>,
  userId: string | null,
): Promise<Counted[] | Held> {
  try {
    return await inTx(async (tx) => {
      // Distributed guessing cannot lock the owner's own browser out.
      const device = await trustedDevice(tx, attempt, userId, true);
      const keys = keysOf(hashes, device !== null);
      let now = new Date();
      const rows: ThrottleState[] = [];
      for (const k of keys) {
        // Creates the key's row or locks it; a row made here by a held attempt goes with the rollback.
        const [row] = await tx.$queryRaw<(ThrottleRow & { now: Date })[]>`
          INSERT INTO sign_in_throttles AS t (key_hash) VALUES (${Buffer.from(k.hash)})
          ON CONFLICT (key_hash) DO UPDATE SET failures = t.failures
          RETURNING t.failures, t.last_failure_at, t.held_until, COALESCE(${clockNow()}::timestamptz, now()) AS now`;
        now = row!.now;
        rows.push(stateOf(row!));
      }
      const retryAfter = Math.max(0, ...rows.map((r) => heldFor(r, now)));
      if (retryAfter > 0) throw new Held(retryAfter);
      const counted = keys.map((k, i) => ({ ...k, before: current(rows[i]!, now), after: afterFailure(k.rule, rows[i]!, now) }));
      for (const c of counted) {
        await tx.signInThrottle.update({
          where: { key_hash: c.hash },
          data: { failures: c.after.failures, last_failure_at: c.after.lastFailureAt, held_until: c.after.heldUntil },
        });
      }
      if (device) await tx.signInDevice.update({ where: { id_hash: device }, data: { failures: { increment: 1 } } });
      return counted;
    });
  } catch (e) {
    if (e instanceof Held) return e;
    throw e;
  }
}

/**
 * A right password: the pair's failures are cleared, the address's and the account's lose only the
 * failure this attempt counted, and the browser gets a new device cookie of the account in place of the
 * one it sent.
 */
async function settleSuccess(inTx: InTransaction, attempt: SignInAttempt, userId: string, counted: Counted[]): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await inTx(async (tx) => {
    const sent = deviceDigest(attempt.device);
    if (sent) await tx.signInDevice.deleteMany({ where: { id_hash: sent } });
    for (const c of counted) {
      if (c.kind === 'pair') {
        await tx.signInThrottle.deleteMany({ where: { key_hash: c.hash } });
        continue;
      }
      const [row] = await tx.$queryRaw<ThrottleRow[]>`
        SELECT failures, last_failure_at, held_until FROM sign_in_throttles WHERE key_hash = ${Buffer.from(c.hash)} FOR UPDATE`;
      if (!row) continue;
      const next = withdrawFailure(c.rule, stateOf(row), c);
      await tx.signInThrottle.update({
        where: { key_hash: c.hash },
        data: { failures: next.failures, last_failure_at: next.lastFailureAt, held_until: next.heldUntil },
      });
    }
    await tx.signInDevice.create({
      data: { id_hash: digest(token), realm: attempt.realm, user_id: userId, expires_at: new Date(Date.now() + DEVICE_COOKIE_SECONDS * 1000) },
    });
  });
  return token;
}

let dummyHash: Promise<string> | undefined;

/**
 * Checks an e-mail and password. `throttled` comes before any password is checked and counts nothing,
 * for e-mails that exist and e-mails that do not alike, so the answer tells nothing about which exist.
 */
export async function signIn(db: Db, inTx: InTransaction, attempt: SignInAttempt): Promise<SignInResult> {
  const { realm, password } = attempt;
  const normalized = attempt.email.trim().toLowerCase();
  // No stored e-mail has control characters or broken UTF-16, and PostgreSQL refuses NUL in text: such
  // an e-mail is a wrong one, answered (and counted) like any other, never sent to the database.
  const plausible =
    normalized.length <= 320 &&
    password.length <= 1024 &&
    normalized.isWellFormed() &&
    ![...normalized].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);
  const user = !plausible
    ? null
    : realm === 'owner'
      ? await db.user.findUnique({ where: { email: normalized } })
      : await db.staffUser.findFirst({ where: { email: normalized, disabled_at: null } });
  const hashes = signInThrottleKeys(realm, attempt.email, attempt.ip);
  const held = await heldAlready(db, keysOf(hashes, (await trustedDevice(db, attempt, user?.id ?? null, false)) !== null));
  if (held > 0) return { ok: false, reason: 'throttled', retryAfter: held };
  const checked = await checkAndCount(inTx, attempt, hashes, user?.id ?? null);
  if (checked instanceof Held) return { ok: false, reason: 'throttled', retryAfter: checked.retryAfter };
  const valid = user
    ? await verifyPassword(user.password_hash, password)
    : await verifyPassword(await (dummyHash ??= hashPassword(randomBytes(16).toString('hex'))), password).then(() => false);
  if (!user || !valid) return { ok: false, reason: 'invalid' };
  const device = await settleSuccess(inTx, attempt, user.id, checked);
  return { ok: true, userId: user.id, email: user.email, device };
}

/** The live companies a user owns (the company select of the pages). */
export async function ownedCompanies(db: Db, userId: string): Promise<{ id: string; name: string; cvr: string | null }[]> {
  return db.company.findMany({
    where: { owner_user_id: userId, sandbox_of_id: null },
    orderBy: [{ name: 'asc' }, { id: 'asc' }],
    select: { id: true, name: true, cvr: true },
  });
}
