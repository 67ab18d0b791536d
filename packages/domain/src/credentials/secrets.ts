// Secret material: API keys are high-entropy random strings, so a SHA-256 digest is a safe lookup hash
// (no salt or slow hash needed, and the lookup stays an index probe on every request). Passwords are
// low-entropy and get argon2id.
import { createHash, randomBytes } from 'node:crypto';
import type * as Argon2 from 'argon2';

export type KeyMode = 'live' | 'test';
export const KEY_PATTERN = /^tlr_(live|test)_[0-9a-f]{48}$/;

export function generateApiKey(mode: KeyMode): string {
  return `tlr_${mode}_${randomBytes(24).toString('hex')}`;
}

export const keyDigest = (key: string): Uint8Array<ArrayBuffer> => new Uint8Array(createHash('sha256').update(key).digest());

/** What listings show of a key: its prefix and first 4 hex characters. */
export const keyPrefix = (key: string) => key.slice(0, 13);

// argon2, a native addon, is loaded by the first password: a process that hashes none (most CLI commands)
// does not pay its load (decision 421).
let loaded: Promise<typeof Argon2> | undefined;
const argon2 = () => (loaded ??= import('argon2'));

/** PASSWORD_HASH_COST: the argon2 library's defaults, or OWASP's minimum for argon2id (19 MiB, t=2, p=1). */
export type PasswordHashCost = 'default' | 'minimum';
let cost: PasswordHashCost = 'default';
/** Sets the cost of the hashes made from now on (the service and the CLI, from their configuration). */
export function setPasswordHashCost(next: PasswordHashCost): void {
  cost = next;
}

export const hashPassword = async (password: string) => {
  const { hash, argon2id } = await argon2();
  return hash(password, { type: argon2id, ...(cost === 'minimum' ? { memoryCost: 19_456, timeCost: 2, parallelism: 1 } : {}) });
};
export const verifyPassword = async (digest: string, password: string) => (await argon2()).verify(digest, password).catch(() => false);
