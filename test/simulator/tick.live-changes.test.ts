import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { SimulatorHandle, StreamName } from '../../src/simulator/index.js';
import { call, walkBySinceId } from './helpers.js';
import type { IdRow } from './helpers.js';

type Stamped = IdRow & { updated_at: string; points_approved: number };

function ids(rows: unknown[]): Set<number> {
  return new Set((rows as IdRow[]).map((row) => row.id));
}

describe('tick', () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startSimulator({ size: 'tiny', seed: 3 });
  });
  afterAll(() => sim.close());

  it('adds rows to every stream, changes customers and orders, and leaves transactions as they were', async () => {
    const streams: StreamName[] = ['customers', 'orders', 'activities', 'transactions'];
    const before = Object.fromEntries(streams.map((s) => [s, sim.truth(s)])) as Record<StreamName, IdRow[]>;
    const unsubscribesBefore = sim.truth('unsubscribes');
    sim.tick(3);
    for (const stream of streams) {
      const after = sim.truth(stream) as IdRow[];
      expect(after.length, stream).toBeGreaterThan(before[stream].length);
    }
    const customersAfter = new Map((sim.truth('customers') as Stamped[]).map((c) => [c.id, c]));
    const changed = (before.customers as Stamped[]).filter((c) => customersAfter.get(c.id)?.updated_at !== c.updated_at);
    expect(changed.length).toBeGreaterThan(0);
    const ordersAfter = new Map((sim.truth('orders') as IdRow[]).map((o) => [o.id, JSON.stringify(o)]));
    expect(before.orders.some((o) => ordersAfter.get(o.id) !== JSON.stringify(o))).toBe(true);
    // Transactions are immutable: every old one is still there, byte for byte.
    const transactionsAfter = new Map((sim.truth('transactions') as IdRow[]).map((t) => [t.id, t]));
    for (const old of before.transactions) expect(transactionsAfter.get(old.id)).toEqual(old);
    expect(sim.truth('unsubscribes')).not.toEqual(unsubscribesBefore);
  });

  it('some new rows get ids below the visible maximum and appear only at the next tick', async () => {
    sim.tick();
    const visibleNow = sim.truth('transactions') as IdRow[];
    const maxVisible = Math.max(...visibleNow.map((row) => row.id));
    sim.tick();
    const late = (sim.truth('transactions') as IdRow[]).filter((row) => row.id < maxVisible && !ids(visibleNow).has(row.id));
    expect(late.length).toBeGreaterThan(0);
    // A reader that only asks for ids above what it has seen misses them; the worker must re-read an overlap.
    const after = await walkBySinceId(sim, '/v2/transactions', 'transactions', { limit: '500' });
    expect(after.map((row) => row.id)).toEqual(expect.arrayContaining(late.map((row) => row.id)));
  });

  it('a late-visible order leaves a gap in the ids, then appears at the next tick and get-order finds it', async () => {
    const visibleBefore = ids(sim.truth('orders'));
    sim.tick();
    const afterOne = sim.truth('orders') as (IdRow & { merchant_id: string })[];
    const newIds = afterOne.map((o) => o.id).filter((id) => !visibleBefore.has(id));
    sim.tick();
    const afterOneIds = ids(afterOne);
    const late = (sim.truth('orders') as (IdRow & { merchant_id: string })[]).filter((o) => !visibleBefore.has(o.id) && !afterOneIds.has(o.id) && o.id < Math.max(...newIds));
    expect(late.length).toBeGreaterThan(0);
    expect((await call(sim, `/v2/orders/${late[0].merchant_id}`)).status).toBe(200);
  });

  it('pending activities get decided over time', () => {
    const pendingBefore = (sim.truth('activities') as (IdRow & { state: string })[]).filter((a) => a.state === 'pending');
    sim.tick(6);
    const states = new Map((sim.truth('activities') as (IdRow & { state: string })[]).map((a) => [a.id, a.state]));
    expect(pendingBefore.some((a) => states.get(a.id) !== 'pending')).toBe(true);
  });
});
