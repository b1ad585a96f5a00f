import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { limiterPauseMs, parseRetryAfter, retryDelayMs } from '../../src/api/retry.js';

describe('parseRetryAfter', () => {
  it('reads delay-seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-22T12:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('Sun, 22 Nov 2026 12:00:05 GMT', now)).toBe(5000);
    // A date already past says nothing of how long to wait (the clocks disagree): the usual backoff applies.
    expect(parseRetryAfter('Sun, 22 Nov 2026 11:00:00 GMT', now)).toBeUndefined();
    expect(parseRetryAfter(['2'], now)).toBe(2000);
  });

  it('reads the obsolete HTTP-date forms a recipient must accept', () => {
    const now = Date.parse('2026-11-22T12:00:00Z');
    expect(parseRetryAfter('Sunday, 22-Nov-26 12:00:07 GMT', now)).toBe(7000);
    expect(parseRetryAfter('Sun Nov 22 12:00:09 2026', now)).toBe(9000);
  });

  it('ignores what is neither: negative numbers and garbage are no Retry-After at all', () => {
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('')).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    // Date.parse reads these as dates in 2001; they are neither delay-seconds nor an HTTP date.
    expect(parseRetryAfter('-5')).toBeUndefined();
    expect(parseRetryAfter('1 2')).toBeUndefined();
    expect(parseRetryAfter('12abc')).toBeUndefined();
    expect(parseRetryAfter('0x10')).toBeUndefined();
  });

  it('keeps huge numbers and far dates finite, so every wait derived from them stays a number', () => {
    const now = Date.parse('2026-11-22T12:00:00Z');
    expect(parseRetryAfter('315360000', now)).toBe(315_360_000_000);
    for (const huge of ['9'.repeat(400), '99999999999999999999', 'Fri, 31 Dec 9999 23:59:59 GMT']) {
      const ms = parseRetryAfter(huge, now);
      expect(Number.isSafeInteger(ms)).toBe(true);
      expect(ms).toBeGreaterThan(315_360_000_000);
    }
  });
});

describe('retryDelayMs', () => {
  const policy = { attempts: 10, minDelayMs: 100, maxDelayMs: 1000, maxElapsedMs: 60_000 };
  const failure = (retryAfterMs?: number) => new ApiError({ kind: 'retryable', method: 'GET', path: '/v2/orders', status: 503, retryAfterMs });

  it('honours Retry-After when the API sent one, up to maxDelayMs', () => {
    expect(retryDelayMs(failure(700), 1, policy)).toBe(700);
    expect(retryDelayMs(failure(2500), 1, policy)).toBe(1000);
    expect(retryDelayMs(failure(315_360_000_000), 1, policy)).toBe(1000);
  });

  it('otherwise stays between minDelayMs and an exponential ceiling capped at maxDelayMs', () => {
    for (let attempt = 1; attempt <= 8; attempt++) {
      for (let i = 0; i < 50; i++) {
        const delay = retryDelayMs(failure(), attempt, policy);
        expect(delay).toBeGreaterThanOrEqual(100);
        expect(delay).toBeLessThanOrEqual(Math.min(1000, 100 * 2 ** attempt));
      }
    }
  });
});

describe('limiterPauseMs', () => {
  const policy = { maxDelayMs: 30_000, maxElapsedMs: 300_000 };

  it('pauses every request for Retry-After, up to maxDelayMs', () => {
    expect(limiterPauseMs(undefined, policy)).toBeUndefined();
    expect(limiterPauseMs(1000, policy)).toBe(1000);
    expect(limiterPauseMs(120_000, policy)).toBe(30_000);
  });

  it('does not pause the process for a Retry-After no retry budget could wait out: its callers give up instead', () => {
    expect(limiterPauseMs(3_600_000, policy)).toBe(0);
    expect(limiterPauseMs(315_360_000_000, policy)).toBe(0);
  });
});
