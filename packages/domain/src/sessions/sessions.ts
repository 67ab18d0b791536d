// Sign-in and browser sessions of the owner pages and the authorization page. Sessions live in
// PostgreSQL (any server can serve any request); the cookie holds 256 random bits and only their digest
// is stored. Sign-in is throttled per e-mail as typed and per address, the same whether the e-mail
// exists or not, and an unknown e-mail costs the same argon2id verification as a wrong password.
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '@tlr/db';
import { hashPassword, verifyPassword } from '../credentials/secrets.ts';

/** Idle and absolute lifetimes of a signed-in session; a sign-in form's session lasts an hour. */
const SESSION_IDLE_SECONDS = 2 * 3600;
const SESSION_ABSOLUTE_SECONDS = 12 * 3600;
const ANONYMOUS_SECONDS = 3600;

/** Failed sign-ins allowed per window: per e-mail, and per address (an office behind one NAT). */
const SIGN_IN_LIMITS = { email: 5, ip: 50, windowSeconds: 15 * 60 };

const digest = (s: string) => new Uint8Array(createHash('sha256').update(s).digest());

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

/** Deletes expired sessions and throttle windows (a daily job). */
export async function purgeWebSessions(db: Db, now = new Date()): Promise<number> {
  const sessions = await db.webSession.deleteMany({ where: { expires_at: { lt: now } } });
  const throttles = await db.signInThrottle.deleteMany({ where: { window_start: { lt: new Date(now.getTime() - SIGN_IN_LIMITS.windowSeconds * 1000) } } });
  return sessions.count + throttles.count;
}

export type SignInResult =
  { ok: true; userId: string; email: string } | { ok: false; reason: 'invalid' } | { ok: false; reason: 'throttled'; retryAfter: number };

let dummyHash: Promise<string> | undefined;

/**
 * Checks an e-mail and password. `throttled` comes before any password is checked, for e-mails that
 * exist and e-mails that do not alike, so the answer tells nothing about which exist.
 */
export async function signIn(db: Db, email: string, password: string, ip: string, realm: SessionRealm = 'owner'): Promise<SignInResult> {
  const normalized = email.trim().toLowerCase();
  const keys = [
    { hash: digest(`${realm}:email:${normalized}`), limit: SIGN_IN_LIMITS.email },
    { hash: digest(`${realm}:ip:${ip}`), limit: SIGN_IN_LIMITS.ip },
  ];
  const windowMs = SIGN_IN_LIMITS.windowSeconds * 1000;
  const rows = await db.signInThrottle.findMany({ where: { key_hash: { in: keys.map((k) => k.hash) } } });
  const now = Date.now();
  for (const k of keys) {
    const row = rows.find((r) => Buffer.from(r.key_hash).equals(Buffer.from(k.hash)));
    if (row && row.window_start.getTime() + windowMs > now && row.failures >= k.limit) {
      return { ok: false, reason: 'throttled', retryAfter: Math.ceil((row.window_start.getTime() + windowMs - now) / 1000) };
    }
  }
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
  const valid = user
    ? await verifyPassword(user.password_hash, password)
    : await verifyPassword(await (dummyHash ??= hashPassword(randomBytes(16).toString('hex'))), password).then(() => false);
  if (user && valid) {
    await db.signInThrottle.deleteMany({ where: { key_hash: keys[0]!.hash } });
    return { ok: true, userId: user.id, email: user.email };
  }
  // One statement per key: the window restarts once it has passed, else the failure is counted.
  for (const k of keys) {
    await db.$executeRaw`
      INSERT INTO sign_in_throttles AS t (key_hash, window_start, failures) VALUES (${Buffer.from(k.hash)}, now(), 1)
      ON CONFLICT (key_hash) DO UPDATE SET
        window_start = CASE WHEN t.window_start <= now() - make_interval(secs => ${SIGN_IN_LIMITS.windowSeconds}) THEN now() ELSE t.window_start END,
        failures = CASE WHEN t.window_start <= now() - make_interval(secs => ${SIGN_IN_LIMITS.windowSeconds}) THEN 1 ELSE t.failures + 1 END`;
  }
  return { ok: false, reason: 'invalid' };
}

/** The live companies a user owns (the company select of the pages). */
export async function ownedCompanies(db: Db, userId: string): Promise<{ id: string; name: string; cvr: string | null }[]> {
  return db.company.findMany({
    where: { owner_user_id: userId, sandbox_of_id: null },
    orderBy: [{ name: 'asc' }, { id: 'asc' }],
    select: { id: true, name: true, cvr: true },
  });
}
