import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { StreamName } from '../../src/simulator/index.js';

const STREAMS: StreamName[] = ['customers', 'orders', 'activities', 'transactions', 'unsubscribes'];

async function snapshot(seed: number) {
  const sim = await startSimulator({ size: 'tiny', seed });
  try {
    sim.tick(2);
    return { keys: sim.keys, data: Object.fromEntries(STREAMS.map((stream) => [stream, sim.truth(stream)])) };
  } finally {
    await sim.close();
  }
}

describe('generator', () => {
  it('gives the same data, ticks included, for the same seed and different data for another', async () => {
    const [a, b, c] = await Promise.all([snapshot(11), snapshot(11), snapshot(12)]);
    expect(a).toEqual(b);
    expect(c.data.customers).not.toEqual(a.data.customers);
  });

  it('honours sizes, fills partial sizes from tiny, and gives at least the transactions activities imply', async () => {
    const sim = await startSimulator({ size: { customers: 12, activities: 30, transactions: 1 }, seed: 5 });
    try {
      expect(sim.truth('customers')).toHaveLength(12);
      expect(sim.truth('activities')).toHaveLength(30);
      const transactions = sim.truth('transactions') as { resource: string; activity?: { id: number } }[];
      const perActivity = new Set(transactions.filter((t) => t.resource === 'activity').map((t) => t.activity?.id));
      expect(perActivity.size).toBe(30);
    } finally {
      await sim.close();
    }
  });

  it('holds the awkward values exports must survive', async () => {
    const sim = await startSimulator({ size: 'small', seed: 1 });
    try {
      const customers = sim.truth('customers') as Record<string, unknown>[];
      const text = JSON.stringify(customers);
      expect(text).toContain('Zoë \\"Zee\\" O\'Brien, Jr.');
      expect(text).toContain('\\n');
      expect(customers.some((c) => !('insights_segment' in c))).toBe(true);
      expect(customers.some((c) => !('loyalty_pass_url' in c))).toBe(true);
      expect(customers.some((c) => 'marketing_consent' in c)).toBe(true);
      const states = new Set((sim.truth('activities') as { state: string }[]).map((a) => a.state));
      expect([...states].sort()).toEqual(['approved', 'expired', 'pending', 'void']);
      const orders = sim.truth('orders') as { total: string; created_at: string }[];
      expect(orders.every((o) => /^\d+\.\d{2}$/.test(o.total))).toBe(true);
      expect(orders.some((o) => o.total.length > 9)).toBe(true);
      expect(orders.every((o) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(o.created_at))).toBe(true);
      const resources = new Set((sim.truth('transactions') as { resource: string }[]).map((t) => t.resource));
      expect(resources.has('activity') && resources.size > 1).toBe(true);
    } finally {
      await sim.close();
    }
  });
});
