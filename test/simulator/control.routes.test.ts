import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { SimulatorHandle } from '../../src/simulator/index.js';
import { call, getList } from './helpers.js';

async function control(sim: SimulatorHandle, method: string, path: string, json?: unknown) {
  const response = await fetch(`${sim.url}/__sim/${path}`, { method, body: json === undefined ? undefined : JSON.stringify(json) });
  return { status: response.status, body: (await response.json()) as unknown };
}

describe('/__sim control routes', () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startSimulator({ size: 'tiny', pageOrder: 'oldest-first' });
  });
  afterAll(() => sim.close());

  it('tick, truth and stats work without a key', async () => {
    const before = (await control(sim, 'GET', 'truth/customers')).body as unknown[];
    expect(before).toEqual(sim.truth('customers'));
    expect(await control(sim, 'POST', 'tick', { steps: 2 })).toEqual({ status: 200, body: { ok: true } });
    expect(((await control(sim, 'GET', 'truth/customers')).body as unknown[]).length).toBeGreaterThan(before.length);
    expect((await control(sim, 'GET', 'truth/unsubscribes')).body).toEqual(sim.truth('unsubscribes'));
    expect((await control(sim, 'GET', 'stats')).body).toMatchObject({ requests: expect.any(Number), byStatus: expect.any(Object), faultsInjected: 0 });
  });

  it('faults, page order and rate limit can be set and cleared', async () => {
    expect((await control(sim, 'PUT', 'faults', { serverError: 1 })).status).toBe(200);
    expect((await control(sim, 'GET', 'faults')).body).toEqual({ serverError: 1 });
    expect((await call(sim, '/v2/identity/whoami')).status).toBeGreaterThanOrEqual(500);
    expect((await control(sim, 'DELETE', 'faults')).status).toBe(200);
    expect((await call(sim, '/v2/identity/whoami')).status).toBe(200);

    const ascending = ((await getList(sim, '/v2/orders?limit=2')).orders as { id: number }[]).map((o) => o.id);
    expect(ascending[0]).toBeLessThan(ascending[1]);
    await control(sim, 'PUT', 'page-order', { order: 'newest-first' });
    const descending = ((await getList(sim, '/v2/orders?limit=2')).orders as { id: number }[]).map((o) => o.id);
    expect(descending[0]).toBeGreaterThan(descending[1]);

    await control(sim, 'PUT', 'rate-limit', { requestsPerSecond: 0.001, burst: 1 });
    const statuses = [(await call(sim, '/v2/identity/whoami')).status, (await call(sim, '/v2/identity/whoami')).status];
    await control(sim, 'DELETE', 'rate-limit');
    expect(statuses).toEqual([200, 429]);
  });

  it('ledger lists applied writes', async () => {
    const customer = (sim.truth('customers') as { merchant_id: string; blocked: boolean }[]).find((c) => !c.blocked);
    await call(sim, `/v2/customers/${customer?.merchant_id}/points`, { method: 'POST', json: { points: 3 } });
    expect((await control(sim, 'GET', 'ledger')).body).toEqual([{ seq: 1, at: expect.any(String), kind: 'add_points', target: customer?.merchant_id, body: { points: 3 }, effect: expect.stringContaining('+3') }]);
  });

  it('refuses bad control requests with 400 and unknown ones with 404', async () => {
    expect((await control(sim, 'PUT', 'faults', { drop: 2 })).status).toBe(400);
    expect((await control(sim, 'POST', 'tick', { steps: 0 })).status).toBe(400);
    expect((await control(sim, 'PUT', 'page-order', { order: 'sideways' })).status).toBe(400);
    expect((await control(sim, 'PUT', 'rate-limit', { requestsPerSecond: 'fast', burst: 1 })).status).toBe(400);
    expect((await control(sim, 'GET', 'truth/reviews')).status).toBe(404);
  });
});
