import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ListName } from '../../src/api/client.js';
import type { FaultSpec } from '../../src/simulator/index.js';
import { startSimulator } from '../../src/simulator/index.js';
import { testClient } from './helpers.js';

type Simulator = Awaited<ReturnType<typeof startSimulator>>;

let sim: Simulator;
let client: ApiClient;
beforeAll(async () => {
  sim = await startSimulator({ seed: 5, size: 'tiny' });
});
afterEach(async () => {
  sim.setFaults(null);
  await client.close();
});
afterAll(async () => {
  await sim.close();
});

async function walkAll(list: ListName): Promise<unknown[]> {
  const rows: unknown[] = [];
  for await (const page of client.pages(list, {})) rows.push(...page.items);
  return rows.sort((a, b) => Number((a as { id: number }).id) - Number((b as { id: number }).id));
}

// Each fault on about a third of the requests; retries are plentiful so the walk always ends.
const CASES: Array<[string, FaultSpec]> = [
  ['429 with Retry-After', { rateLimited: 0.15, seed: 1 }],
  ['429 without Retry-After', { rateLimitedNoRetryAfter: 0.4, seed: 2 }],
  ['5xx (JSON, HTML or empty body)', { serverError: 0.4, seed: 3 }],
  ['dropped connections', { drop: 0.4, seed: 4 }],
  ['truncated bodies', { truncate: 0.4, seed: 5 }],
];

describe.each(CASES)('%s', (_name, faults) => {
  it('are retried and the walk still returns every row once', async () => {
    client = testClient(sim.url, sim.keys.full, { pageSize: 10, retry: { attempts: 30, minDelayMs: 1, maxDelayMs: 5, maxElapsedMs: 60_000 } });
    const injectedBefore = sim.stats().faultsInjected;
    sim.setFaults(faults);
    const rows = await walkAll('transactions');
    sim.setFaults(null);
    expect(rows).toEqual(sim.truth('transactions'));
    expect(sim.stats().faultsInjected).toBeGreaterThan(injectedBefore);
    expect(client.stats.retries).toBeGreaterThan(0);
    expect(client.stats.failures).toBe(0);
  });
});

describe('a rate-limited 429 slows the whole client down', () => {
  it('counts the 429s and still returns the data', async () => {
    client = testClient(sim.url, sim.keys.full, { pageSize: 10 });
    sim.setFaults({ rateLimited: 0.1, rateLimitedNoRetryAfter: 0.3, seed: 9 });
    const rows = await walkAll('customers');
    sim.setFaults(null);
    expect(rows).toEqual(sim.truth('customers'));
    expect(client.stats.rateLimited).toBeGreaterThan(0);
    expect(client.stats.retries).toBe(client.stats.rateLimited);
  });
});
