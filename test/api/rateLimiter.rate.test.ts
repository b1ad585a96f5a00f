import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/api/rateLimiter.js';

/** Resolution times, in ms after the first acquire call, of `count` acquisitions requested at once. */
async function burstOf(limiter: RateLimiter, count: number): Promise<number[]> {
  const start = performance.now();
  return Promise.all(Array.from({ length: count }, () => limiter.acquire().then(() => performance.now() - start)));
}

/** Timer slack: a token granted at t may be observed up to a millisecond early after rounding. */
const SLACK_MS = 2;

describe('RateLimiter', () => {
  it('keeps a burst of 200 calls at or under the configured rate', async () => {
    const rate = 100;
    const burst = 5;
    const times = await burstOf(new RateLimiter({ requestsPerSecond: rate, burst, slowdownAfter429Ms: 0 }), 200);
    times.sort((a, b) => a - b);
    // A token bucket allows at most burst + rate·t acquisitions by time t.
    times.forEach((t, i) => expect(i + 1).toBeLessThanOrEqual(burst + (rate * (t + SLACK_MS)) / 1000));
    const measuredRate = ((times.length - burst) * 1000) / times[times.length - 1];
    expect(measuredRate).toBeLessThanOrEqual(rate);
    expect(times[times.length - 1]).toBeGreaterThanOrEqual(((200 - burst) * 1000) / rate - SLACK_MS);
  });

  it('sends nothing before Retry-After, then runs at a reduced rate', async () => {
    const rate = 100;
    const limiter = new RateLimiter({ requestsPerSecond: rate, burst: 1, slowdownAfter429Ms: 60_000 });
    await limiter.acquire();
    limiter.note429(300);
    const times = await burstOf(limiter, 21);
    expect(times[0]).toBeGreaterThanOrEqual(300 - SLACK_MS);
    const measuredRate = (20 * 1000) / (times[20] - times[0]);
    expect(measuredRate).toBeLessThanOrEqual(rate * 0.75 + 1);
  });

  it('an aborted wait leaves the queue and takes no token', async () => {
    const limiter = new RateLimiter({ requestsPerSecond: 10, burst: 1, slowdownAfter429Ms: 0 });
    await limiter.acquire();
    const controller = new AbortController();
    const aborted = limiter.acquire(controller.signal);
    const next = limiter.acquire();
    controller.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    await next;
    await expect(limiter.acquire(AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
  });
});
