import { describe, expect, it } from 'vitest';
import { addDays, checkDate, readDateOrDateTime, today } from './calendar.ts';

describe('today', () => {
  it('is the business day in Denmark, not in UTC or the server zone', () => {
    // Summer (CEST, UTC+2) and winter (CET, UTC+1): late evening UTC is already the next day in Copenhagen.
    expect(today(new Date('2026-06-30T23:30:00Z'))).toBe('2026-07-01');
    expect(today(new Date('2026-06-30T21:59:59Z'))).toBe('2026-06-30');
    expect(today(new Date('2026-12-31T23:00:00Z'))).toBe('2027-01-01');
    expect(today(new Date('2026-12-31T22:59:59Z'))).toBe('2026-12-31');
  });
});

describe('dates', () => {
  it('checks, and counts days across month and year ends', () => {
    expect(checkDate('2028-02-29')).toBeUndefined();
    expect(checkDate('2026-02-29')).toMatch(/valid calendar date/);
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
  });
});

describe('dates and date-times from files', () => {
  it('takes the day as written, whatever the time and offset, and refuses a day that does not exist', () => {
    expect(readDateOrDateTime('2026-03-01T23:30:00-05:00')).toEqual({ date: '2026-03-01' });
    expect(readDateOrDateTime('2026-03-01')).toEqual({ date: '2026-03-01' });
    expect(readDateOrDateTime('2026-02-31')).toEqual({ problem: 'must be a valid calendar date' });
    expect(readDateOrDateTime('2026-02-31T10:00:00Z')).toEqual({ problem: 'must be a valid calendar date (or a date and time)' });
    expect(readDateOrDateTime('01-03-2026')).toEqual({ problem: 'must be a date YYYY-MM-DD' });
  });
});
