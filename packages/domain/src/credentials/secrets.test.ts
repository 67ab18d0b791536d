import { afterEach, describe, expect, it } from 'vitest';
import { hashPassword, setPasswordHashCost, verifyPassword } from './secrets.ts';

describe('password hashes (argon2id)', () => {
  afterEach(() => setPasswordHashCost('default'));

  it("are made at the argon2 library's default cost unless told otherwise", async () => {
    const hash = await hashPassword('a long secret');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=65536,t=3,p=4\$/);
    expect(await verifyPassword(hash, 'a long secret')).toBe(true);
    expect(await verifyPassword(hash, 'another secret')).toBe(false);
  });

  it("at PASSWORD_HASH_COST=minimum, at OWASP's minimum for argon2id; either verifies the other's", async () => {
    const strong = await hashPassword('a long secret');
    setPasswordHashCost('minimum');
    const cheap = await hashPassword('a long secret');
    expect(cheap).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    // a stored hash carries its own cost: a change of the setting never locks anybody out
    expect(await verifyPassword(cheap, 'a long secret')).toBe(true);
    expect(await verifyPassword(strong, 'a long secret')).toBe(true);
  });
});
