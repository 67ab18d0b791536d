import { describe, expect, it } from 'vitest';
import { addressKey, afterFailure, heldFor, holdSeconds, NO_FAILURES, SIGN_IN_RULES, waitWords, withdrawFailure, type ThrottleState } from './rules.ts';

const t0 = new Date('2026-11-27T10:00:00.000Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

/** `n` failures at t0, one after another. */
const failures = (rule: (typeof SIGN_IN_RULES)[keyof typeof SIGN_IN_RULES], n: number, now = t0) => {
  let s: ThrottleState = NO_FAILURES;
  for (let i = 0; i < n; i++) s = afterFailure(rule, s, now);
  return s;
};

describe('the pair (e-mail as typed and address)', () => {
  const rule = SIGN_IN_RULES.pair;

  it('lets 4 failures through free; the 5th holds it 1 minute, doubling with each further one up to 15 minutes', () => {
    expect([1, 2, 3, 4].map((n) => holdSeconds(rule, n))).toEqual([0, 0, 0, 0]);
    expect([5, 6, 7, 8, 9, 10, 50, 10_000].map((n) => holdSeconds(rule, n))).toEqual([60, 120, 240, 480, 900, 900, 900, 900]);
    expect(heldFor(failures(rule, 4), t0)).toBe(0);
    expect(heldFor(failures(rule, 5), t0)).toBe(60);
    expect(heldFor(failures(rule, 5), at(59.5))).toBe(1);
    expect(heldFor(failures(rule, 5), at(60))).toBe(0);
  });

  it('grows the delay with each failure after a hold ends', () => {
    let s = failures(rule, 5);
    const holds: number[] = [];
    let now = t0;
    for (let i = 0; i < 6; i++) {
      holds.push(heldFor(s, now));
      now = new Date(s.heldUntil!.getTime());
      s = afterFailure(rule, s, now);
    }
    expect(holds).toEqual([60, 120, 240, 480, 900, 900]);
  });

  it('forgets the failures an hour after the last one, not an hour after the first', () => {
    const s = afterFailure(rule, failures(rule, 3), at(50 * 60));
    expect(afterFailure(rule, s, at(50 * 60 + 3599)).failures).toBe(5);
    expect(afterFailure(rule, s, at(50 * 60 + 3600)).failures).toBe(1);
    expect(heldFor(failures(rule, 9), at(3600))).toBe(0);
  });
});

describe('the address', () => {
  const rule = SIGN_IN_RULES.address;

  it('holds for 15 minutes from the 20th failure, and another 15 with each failure before an hour of quiet', () => {
    expect(heldFor(failures(rule, 19), t0)).toBe(0);
    const held = failures(rule, 20);
    expect(heldFor(held, t0)).toBe(900);
    const again = afterFailure(rule, held, at(900));
    expect(again.failures).toBe(21);
    expect(heldFor(again, at(900))).toBe(900);
    // An hour of quiet after the 21st: free again.
    expect(afterFailure(rule, again, at(900 + 3600)).failures).toBe(1);
  });
});

describe('the account', () => {
  it('holds from the 20th failure for 1 minute, doubling to 15', () => {
    const rule = SIGN_IN_RULES.account;
    expect(heldFor(failures(rule, 19), t0)).toBe(0);
    expect([20, 21, 22, 23, 24, 25].map((n) => holdSeconds(rule, n))).toEqual([60, 120, 240, 480, 900, 900]);
  });
});

describe('withdrawFailure (a right password takes back the failure counted before it was checked)', () => {
  const rule = SIGN_IN_RULES.address;

  it('takes back its own failure only', () => {
    const before = failures(rule, 7);
    const after = afterFailure(rule, before, at(10));
    expect(withdrawFailure(rule, after, { before, after })).toEqual(before);
    // Failures counted after it stay.
    const later = afterFailure(rule, after, at(20));
    expect(withdrawFailure(rule, later, { before, after })).toEqual({ failures: 8, lastFailureAt: at(20), heldUntil: null });
  });

  it('lifts the hold it set, and only that one', () => {
    const before = failures(rule, 19);
    const after = afterFailure(rule, before, at(10));
    expect(heldFor(after, at(10))).toBe(900);
    expect(withdrawFailure(rule, after, { before, after })).toEqual(before);
    // A hold that a later failure set on 20 genuine failures stays.
    const genuine = afterFailure(rule, afterFailure(rule, after, at(11 + 900)), at(11 + 900));
    expect(heldFor(withdrawFailure(rule, genuine, { before, after }), at(11 + 900))).toBe(900);
  });

  it('lifts a hold that counted it once the failures are below the limit again', () => {
    const before = failures(rule, 18);
    const after = afterFailure(rule, before, at(10));
    const nextOne = afterFailure(rule, after, at(11)); // the 20th, counting the attempt that turned out right
    expect(heldFor(nextOne, at(11))).toBe(900);
    expect(withdrawFailure(rule, nextOne, { before, after })).toEqual({ failures: 19, lastFailureAt: at(11), heldUntil: null });
  });
});

describe('waitWords', () => {
  it('says seconds under a minute, else whole minutes rounded up', () => {
    expect([1, 30, 59, 60, 61, 120, 900].map(waitWords)).toEqual(['1 second', '30 seconds', '59 seconds', '1 minute', '2 minutes', '2 minutes', '15 minutes']);
  });
});

describe('addressKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:cb00:7107', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['64:ff9b::203.0.113.7', '64:ff9b:0:0::/64'],
    ['', ''],
    ['not an address', 'not an address'],
  ])('%s counts as %s', (ip, key) => {
    expect(addressKey(ip)).toBe(key);
  });
});
