// The sign-in throttle's rule (decision 174), pure: how long a key is held after its failures, when they
// are forgotten, what a failure counted before its password was checked leaves when the password was right,
// and the address a client is counted under. sessions.ts keeps the rows and applies these.
import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

/** A kind of key's limit: the failures before `holdFrom` are free; from it on, the key is held. */
export interface ThrottleRule {
  /** The failure that first holds the key. */
  holdFrom: number;
  /** The hold after that failure, doubled with each further one ... */
  firstHoldSeconds: number;
  /** ... up to this. */
  maxHoldSeconds: number;
}

/**
 * The three kinds of key. The pair (e-mail as typed and address) is OWASP's progressive delay for one
 * person mistyping; the address alone is a hard limit against spraying one password over many e-mails;
 * the account alone (the e-mail from any address) slows distributed guessing down, for browsers that
 * hold no device cookie of the account.
 */
export const SIGN_IN_RULES = {
  pair: { holdFrom: 5, firstHoldSeconds: 60, maxHoldSeconds: 15 * 60 },
  address: { holdFrom: 20, firstHoldSeconds: 15 * 60, maxHoldSeconds: 15 * 60 },
  account: { holdFrom: 20, firstHoldSeconds: 60, maxHoldSeconds: 15 * 60 },
} as const satisfies Record<string, ThrottleRule>;

/** A key's failures are forgotten this long after its last one (longer than any hold). */
export const FORGET_SECONDS = 3600;

/** A device cookie trusts its browser while the browser has had fewer failed sign-ins than this. */
export const DEVICE_TRUSTED_FAILURES = 5;

/** How long a device cookie trusts its browser (the cookie's Max-Age and the row's expiry). */
export const DEVICE_COOKIE_SECONDS = 180 * 24 * 3600;

/** A key's row. */
export interface ThrottleState {
  failures: number;
  lastFailureAt: Date | null;
  heldUntil: Date | null;
}

export const NO_FAILURES: ThrottleState = { failures: 0, lastFailureAt: null, heldUntil: null };

/** The state as it counts at `now`: nothing once an hour has passed since the last failure. */
export function current(state: ThrottleState, now: Date): ThrottleState {
  const last = state.lastFailureAt?.getTime();
  return last === undefined || last <= now.getTime() - FORGET_SECONDS * 1000 ? NO_FAILURES : state;
}

/** Whole seconds until the key lets an attempt be checked; 0 when it does now. */
export function heldFor(state: ThrottleState, now: Date): number {
  const until = current(state, now).heldUntil?.getTime() ?? 0;
  return until > now.getTime() ? Math.ceil((until - now.getTime()) / 1000) : 0;
}

/** The hold the `failures`th failure sets: none before `holdFrom`, then doubling up to the cap. */
export function holdSeconds(rule: ThrottleRule, failures: number): number {
  if (failures < rule.holdFrom) return 0;
  // 2^20 minutes is past every cap: no overflow however many failures.
  return Math.min(rule.firstHoldSeconds * 2 ** Math.min(failures - rule.holdFrom, 20), rule.maxHoldSeconds);
}

/** The state after one more failure at `now`. */
export function afterFailure(rule: ThrottleRule, state: ThrottleState, now: Date): ThrottleState {
  const failures = current(state, now).failures + 1;
  const hold = holdSeconds(rule, failures);
  return { failures, lastFailureAt: now, heldUntil: hold ? new Date(now.getTime() + hold * 1000) : null };
}

const sameTime = (a: Date | null, b: Date | null) => (a?.getTime() ?? null) === (b?.getTime() ?? null);

/**
 * The state once a failure counted for an attempt (`counted`: the state before it and the one it wrote)
 * is taken back because the password was right: one failure fewer, and the hold and the last failure's
 * time that attempt set, if no later failure changed them, back to what they were. Never more than its
 * own failure: a success must not forgive anyone else's (an attacker would sign in to an account of its
 * own between guesses).
 */
export function withdrawFailure(rule: ThrottleRule, state: ThrottleState, counted: { before: ThrottleState; after: ThrottleState }): ThrottleState {
  const failures = Math.max(state.failures - 1, 0);
  const heldUntil = failures < rule.holdFrom ? null : sameTime(state.heldUntil, counted.after.heldUntil) ? counted.before.heldUntil : state.heldUntil;
  const lastFailureAt = sameTime(state.lastFailureAt, counted.after.lastFailureAt) ? counted.before.lastFailureAt : state.lastFailureAt;
  return { failures, lastFailureAt, heldUntil };
}

/** "45 seconds", "1 minute", "15 minutes": never sooner than the truth. */
export function waitWords(seconds: number): string {
  if (seconds < 60) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

/**
 * The address a client is counted under: an IPv4 address as it is (an IPv4-mapped IPv6 address as its
 * IPv4 address), an IPv6 address by its /64 (one subscriber line gets a whole /64, so its single
 * addresses would be no limit), anything else (no address, or what a trusted proxy sent) as it is.
 */
export function addressKey(ip: string): string {
  const text = ip.trim().toLowerCase().replace(/%.*$/, '');
  if (isIPv4(text)) return text;
  if (!isIPv6(text)) return text.slice(0, 100);
  const v6 = ipaddr.IPv6.parse(text);
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${v6.parts
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(':')}::/64`;
}
