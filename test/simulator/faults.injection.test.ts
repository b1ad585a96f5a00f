import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { FaultSpec, SimulatorHandle } from '../../src/simulator/index.js';
import { call } from './helpers.js';

const REQUESTS = 200;

interface Outcome {
  status: number | 'failed';
  retryAfter: string | null;
  text: string;
}

/** Sends requests one after another, recording what came back, including transport failures. */
async function sample(sim: SimulatorHandle, count: number, path = '/v2/transactions?limit=20'): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (let i = 0; i < count; i++) {
    try {
      const response = await fetch(`${sim.url}${path}`, { headers: { authorization: `Bearer ${sim.keys.full}` } });
      outcomes.push({ status: response.status, retryAfter: response.headers.get('retry-after'), text: await response.text() });
    } catch {
      outcomes.push({ status: 'failed', retryAfter: null, text: '' });
    }
  }
  return outcomes;
}

function share(outcomes: Outcome[], test: (outcome: Outcome) => boolean): number {
  return outcomes.filter(test).length / outcomes.length;
}

describe('fault injection', () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startSimulator({ size: 'tiny' });
  });
  afterAll(() => sim.close());

  const withFaults = async (spec: FaultSpec, count = REQUESTS) => {
    sim.setFaults({ seed: 42, ...spec });
    try {
      return await sample(sim, count);
    } finally {
      sim.setFaults(null);
    }
  };

  it('429 rate_limited with Retry-After at roughly the configured rate', async () => {
    const outcomes = await withFaults({ rateLimited: 0.2 });
    const limited = outcomes.filter((o) => o.status === 429);
    expect(limited.length / REQUESTS).toBeGreaterThan(0.1);
    expect(limited.length / REQUESTS).toBeLessThan(0.3);
    for (const o of limited) {
      expect(Number(o.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(o.text)).toMatchObject({ error: { code: 'rate_limited', message: expect.any(String) } });
    }
  });

  it('429 without Retry-After, sometimes without a code', async () => {
    const outcomes = await withFaults({ rateLimitedNoRetryAfter: 0.3 });
    const limited = outcomes.filter((o) => o.status === 429);
    expect(limited.length / REQUESTS).toBeGreaterThan(0.18);
    expect(limited.length / REQUESTS).toBeLessThan(0.42);
    expect(limited.every((o) => o.retryAfter === null)).toBe(true);
    const codes = new Set(limited.map((o) => (JSON.parse(o.text) as { error: { code?: string } }).error.code));
    expect(codes).toEqual(new Set(['rate_limited', undefined]));
  });

  it('5xx in several statuses and body shapes', async () => {
    const outcomes = await withFaults({ serverError: 0.3 });
    const errors = outcomes.filter((o) => typeof o.status === 'number' && o.status >= 500);
    expect(errors.length / REQUESTS).toBeGreaterThan(0.18);
    expect(errors.length / REQUESTS).toBeLessThan(0.42);
    expect(new Set(errors.map((o) => o.status))).toEqual(new Set([500, 502, 503]));
    expect(errors.some((o) => o.text === '')).toBe(true);
    expect(errors.some((o) => o.text.startsWith('<html>'))).toBe(true);
  });

  it('dropped connections and truncated bodies fail at the client at roughly their rates', async () => {
    const dropped = await withFaults({ drop: 0.2 });
    expect(share(dropped, (o) => o.status === 'failed')).toBeGreaterThan(0.1);
    expect(share(dropped, (o) => o.status === 'failed')).toBeLessThan(0.3);
    const truncated = await withFaults({ truncate: 0.2 });
    expect(share(truncated, (o) => o.status === 'failed')).toBeGreaterThan(0.1);
    expect(share(truncated, (o) => o.status === 'failed')).toBeLessThan(0.3);
    expect(sim.stats().byStatus.dropped).toBeGreaterThan(0);
  });

  it('apply-then-drop: the write lands and is in the ledger, though the client got no answer', async () => {
    const customer = (sim.truth('customers') as { merchant_id: string; blocked: boolean; points_approved: number }[]).find((c) => !c.blocked);
    if (customer === undefined) throw new Error('no unblocked customer');
    sim.setFaults({ applyThenDrop: 1 });
    const ledgerBefore = sim.ledger().length;
    await expect(call(sim, `/v2/customers/${customer.merchant_id}/points`, { method: 'POST', json: { points: 7, reason: 'lost answer' } })).rejects.toThrow();
    sim.setFaults(null);
    expect(sim.ledger().slice(ledgerBefore)).toMatchObject([{ kind: 'add_points', target: customer.merchant_id, body: { points: 7 } }]);
    const after = (sim.truth('customers') as { merchant_id: string; points_approved: number }[]).find((c) => c.merchant_id === customer.merchant_id);
    expect(after?.points_approved).toBe(customer.points_approved + 7);
  });

  it('stall holds the answer back until the client gives up', async () => {
    sim.setFaults({ stall: 1, stallMs: 60_000 });
    const request = fetch(`${sim.url}/v2/identity/whoami`, { headers: { authorization: `Bearer ${sim.keys.full}` }, signal: AbortSignal.timeout(100) });
    await expect(request).rejects.toThrow();
    sim.setFaults(null);
  });

  it('the same fault seed gives the same fault sequence', async () => {
    const first = (await withFaults({ serverError: 0.3 }, 40)).map((o) => o.status);
    const second = (await withFaults({ serverError: 0.3 }, 40)).map((o) => o.status);
    expect(second).toEqual(first);
  });

  it('the token bucket answers 429 rate_limited with Retry-After above the rate', async () => {
    sim.setRateLimit({ requestsPerSecond: 0.001, burst: 3 });
    const outcomes = await sample(sim, 6, '/v2/identity/whoami');
    sim.setRateLimit(null);
    expect(outcomes.slice(0, 3).map((o) => o.status)).toEqual([200, 200, 200]);
    expect(outcomes.slice(3).every((o) => o.status === 429 && Number(o.retryAfter) >= 1)).toBe(true);
    expect(JSON.parse(outcomes[5].text)).toMatchObject({ error: { code: 'rate_limited' } });
  });

  it('counts requests, statuses and injected faults', () => {
    const stats = sim.stats();
    expect(stats.requests).toBeGreaterThan(REQUESTS * 5);
    expect(stats.faultsInjected).toBeGreaterThan(100);
    expect(stats.byStatus['200']).toBeGreaterThan(0);
    expect(stats.byStatus['429']).toBeGreaterThan(0);
  });
});
