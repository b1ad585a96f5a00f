import { afterAll, beforeAll, expect, it } from 'vitest';
import { RateLimiter } from '../../src/api/rateLimiter.js';
import { startSimulator } from '../../src/simulator/index.js';
import { testClient } from './helpers.js';

type Simulator = Awaited<ReturnType<typeof startSimulator>>;

let sim: Simulator;
beforeAll(async () => {
  // 30 requests a second: the shared 20 stay under it, two limiters of 20 each would not. A burst of 4
  // absorbs the jitter of a busy machine, where simulator and clients share one event loop.
  sim = await startSimulator({ seed: 12, size: 'tiny', rateLimit: { requestsPerSecond: 30, burst: 4 } });
});
afterAll(async () => {
  await sim.close();
});

it('two clients sharing one limiter stay under the API rate limit: no 429 at all', async () => {
  const limiter = new RateLimiter({ requestsPerSecond: 20, burst: 2, slowdownAfter429Ms: 1000 });
  const pull = testClient(sim.url, sim.keys.full, { pageSize: 5, limiter });
  const push = testClient(sim.url, sim.keys.full, { limiter });
  const walk = (async () => {
    let rows = 0;
    for await (const page of pull.listActivities()) rows += page.items.length;
    return rows;
  })();
  const whoamis = Promise.all(Array.from({ length: 10 }, () => push.whoami()));
  const [rows] = await Promise.all([walk, whoamis]);
  expect(rows).toBe(sim.truth('activities').length);
  expect(pull.stats.rateLimited + push.stats.rateLimited).toBe(0);
  expect(sim.stats().byStatus['429'] ?? 0).toBe(0);
  await pull.close();
  await push.close();
});
