import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { parseRetryAfter, retryDelayMs } from '../../src/api/retry.js';

describe('parseRetryAfter', () => {
  it('reads delay-seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-22T12:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('Sun, 22 Nov 2026 12:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(['2'], now)).toBe(2000);
  });

  it('ignores what is neither', () => {
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('')).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});

describe('retryDelayMs', () => {
  const policy = { attempts: 10, minDelayMs: 100, maxDelayMs: 1000, maxElapsedMs: 60_000 };
  const failure = (retryAfterMs?: number) => new ApiError({ kind: 'retryable', method: 'GET', path: '/v2/orders', status: 503, retryAfterMs });

  it('honours Retry-After when the API sent one', () => {
    expect(retryDelayMs(failure(2500), 1, policy)).toBe(2500);
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
