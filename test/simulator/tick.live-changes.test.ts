import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIMULATED_EPOCH, startSimulator } from '../../src/simulator/index.js';
import type { SimulatorHandle, StreamName } from '../../src/simulator/index.js';
import { call, walkBySinceId } from './helpers.js';
import type { IdRow } from './helpers.js';

const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;

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

  it('adds rows to every stream, changes customers, and leaves transactions as they were', async () => {
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
});

interface ActivityRow extends IdRow {
  state: string;
  value: number;
  created_at: string;
}
interface TransactionRow extends IdRow {
  created_at: string;
  points_approved: number;
  points_pending: number;
  activity?: { id: number; state: string };
}
interface OrderRow extends IdRow {
  created_at: string;
  updated_at: string;
  total_refunded: string;
}
interface CustomerRow extends IdRow {
  created_at: string;
  properties: Record<string, unknown>;
}

describe('ticks change old records at the rates the README states', () => {
  const HOURS = 72;
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startSimulator({ size: 'small', seed: 4 });
  });
  afterAll(() => sim.close());

  it('pending activities are decided when their 30-to-90-day period ends, mostly approved; a few orders are refunded, a few customers of any age edited', () => {
    const activitiesBefore = sim.truth('activities') as ActivityRow[];
    const ordersBefore = sim.truth('orders') as OrderRow[];
    const customersBefore = sim.truth('customers') as CustomerRow[];
    const newestTransactionBefore = Math.max(...(sim.truth('transactions') as IdRow[]).map((t) => t.id));
    sim.tick(HOURS);
    const clock = SIMULATED_EPOCH + HOURS * HOUR;

    const activitiesAfter = new Map((sim.truth('activities') as ActivityRow[]).map((a) => [a.id, a]));
    // Some of the last hour's transactions become visible an hour late, like every stream's rows.
    sim.tick();
    const newTransactions = (sim.truth('transactions') as TransactionRow[]).filter((t) => t.id > newestTransactionBefore);
    const decided = activitiesBefore.filter((a) => a.state === 'pending' && activitiesAfter.get(a.id)?.state !== 'pending');
    expect(decided.length).toBeGreaterThan(0);
    for (const activity of decided) {
      const state = activitiesAfter.get(activity.id)?.state;
      // Each decision writes one transaction, embedding the activity as decided, when the period has ended.
      const [decision, ...more] = newTransactions.filter((t) => t.activity?.id === activity.id);
      expect(more, `activity ${activity.id}`).toEqual([]);
      expect(decision.activity?.state).toBe(state);
      expect([decision.points_approved, decision.points_pending]).toEqual(state === 'approved' ? [activity.value, -activity.value] : [0, -activity.value]);
      const pendingFor = Date.parse(decision.created_at) - Date.parse(activity.created_at);
      expect(pendingFor, `activity ${activity.id}`).toBeGreaterThanOrEqual(30 * DAY);
      expect(pendingFor, `activity ${activity.id}`).toBeLessThanOrEqual(90 * DAY + HOUR);
    }
    expect(decided.filter((a) => activitiesAfter.get(a.id)?.state === 'approved').length).toBeGreaterThan(decided.length * 0.8);
    // No period is longer than 90 days, so nothing older is still pending.
    const overdue = [...activitiesAfter.values()].filter((a) => a.state === 'pending' && clock - Date.parse(a.created_at) > 90 * DAY + HOUR);
    expect(overdue).toEqual([]);

    // Refunds: 6% of orders over their life, 80% of those within 30 days, the rest 60 to 120 days after the order.
    const settled = ordersBefore.filter((o) => SIMULATED_EPOCH - Date.parse(o.created_at) > 30 * DAY);
    const settledShare = settled.filter((o) => o.total_refunded !== '0.00').length / settled.length;
    expect(settledShare).toBeGreaterThan(0.02);
    expect(settledShare).toBeLessThan(0.08);
    const refundedBefore = new Map(ordersBefore.map((o) => [o.id, o.total_refunded]));
    const ordersAfter = sim.truth('orders') as OrderRow[];
    const refunded = ordersAfter.filter((o) => o.total_refunded !== (refundedBefore.get(o.id) ?? '0.00'));
    expect(refunded.length).toBeGreaterThan(0);
    expect(refunded.length).toBeLessThanOrEqual(0.06 * ordersAfter.length);
    for (const order of refunded) {
      const age = Date.parse(order.updated_at) - Date.parse(order.created_at);
      expect(age <= 30 * DAY + HOUR || (age >= 60 * DAY - HOUR && age <= 120 * DAY + HOUR), `order ${order.id} refunded ${age / DAY} days on`).toBe(true);
    }

    // Customer edits: 0.5% of customers a day, old ones among them.
    const customersAfter = new Map((sim.truth('customers') as CustomerRow[]).map((c) => [c.id, c]));
    const edited = customersBefore.filter((c) => customersAfter.get(c.id)?.properties.last_profile_edit !== c.properties.last_profile_edit);
    const expected = 0.005 * customersAfter.size * (HOURS / 24);
    expect(edited.length).toBeGreaterThanOrEqual(expected / 2);
    expect(edited.length).toBeLessThanOrEqual(expected * 2);
    expect(edited.some((c) => clock - Date.parse(c.created_at) > 100 * DAY)).toBe(true);
  });
});
