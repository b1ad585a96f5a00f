import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { RateLimiter } from '../../src/api/rateLimiter.js';

it('a ten-year pause sets no timer past what Node can hold, so the waiting limiter does not wake every millisecond', async () => {
  const overflows: string[] = [];
  const onWarning = (warning: Error) => {
    if (warning.name === 'TimeoutOverflowWarning') overflows.push(warning.message);
  };
  process.on('warning', onWarning);
  try {
    const limiter = new RateLimiter({ requestsPerSecond: 100, burst: 1, slowdownAfter429Ms: 0 });
    limiter.note429(315_360_000_000);
    const stop = new AbortController();
    let sent = false;
    const waiting = limiter.acquire(stop.signal).then(() => (sent = true));
    // Node warns for every timer past 2^31-1 ms and fires it after 1 ms: a polling limiter warns here dozens of times.
    await sleep(50);
    expect(sent).toBe(false);
    stop.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    expect(overflows).toEqual([]);
  } finally {
    process.off('warning', onWarning);
  }
});
