import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { SimulatorHandle, StreamName } from '../../src/simulator/index.js';
import { byId, getList, walkByCursor, walkBySinceId } from './helpers.js';
import type { IdRow } from './helpers.js';

const LISTS: { stream: StreamName; path: string }[] = [
  { stream: 'customers', path: '/v2/customers' },
  { stream: 'orders', path: '/v2/orders' },
  { stream: 'activities', path: '/v2/activities' },
  { stream: 'transactions', path: '/v2/transactions' },
];

function expectNoDuplicates(rows: IdRow[]): void {
  expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
}

describe('list walks', () => {
  let sim: SimulatorHandle;

  beforeAll(async () => {
    sim = await startSimulator({ size: 'tiny', seed: 7 });
    // Ticks leave late-visible rows and changed records behind, so the walks meet them.
    sim.tick(2);
  });
  afterAll(() => sim.close());

  for (const order of ['newest-first', 'oldest-first'] as const) {
    for (const { stream, path } of LISTS) {
      it(`${stream}, ${order}: walking by cursor yields every visible row once, equal to truth()`, async () => {
        sim.setPageOrder(order);
        const rows = await walkByCursor(sim, path, stream, { limit: '7' });
        expectNoDuplicates(rows);
        const ids = rows.map((row) => row.id);
        const sorted = [...ids].sort((a, b) => (order === 'newest-first' ? b - a : a - b));
        expect(ids).toEqual(sorted);
        expect(byId(rows)).toEqual(sim.truth(stream));
      });
    }
  }

  for (const { stream, path } of LISTS) {
    it(`${stream}: walking by since_id yields every visible row once, ascending, equal to truth()`, async () => {
      sim.setPageOrder('newest-first');
      const rows = await walkBySinceId(sim, path, stream, { limit: '6' });
      expectNoDuplicates(rows);
      expect(rows).toEqual(sim.truth(stream));
    });
  }

  it('a since_id request continued by cursor keeps the since_id filter', async () => {
    const truth = sim.truth('transactions') as IdRow[];
    const middle = truth[Math.floor(truth.length / 2)].id;
    const rows = await walkByCursor(sim, '/v2/transactions', 'transactions', { since_id: String(middle), limit: '5' });
    expect(rows).toEqual(truth.filter((row) => row.id > middle));
  });

  it('cursor.prev walks back over the same rows in the same order', async () => {
    sim.setPageOrder('oldest-first');
    const first = await getList(sim, '/v2/activities?limit=4');
    expect(first.cursor.prev).toBeNull();
    const second = await getList(sim, `/v2/activities?cursor=${first.cursor.next}`);
    const back = await getList(sim, `/v2/activities?cursor=${second.cursor.prev}`);
    expect(back.activities).toEqual(first.activities);
    expect(back.cursor.prev).toBeNull();
  });

  it('a full last page still offers next, which leads to an empty page with next null', async () => {
    const count = sim.truth('orders').length;
    const full = await getList(sim, `/v2/orders?limit=${count}`);
    expect(full.orders).toHaveLength(count);
    expect(full.cursor.next).not.toBeNull();
    const empty = await getList(sim, `/v2/orders?cursor=${full.cursor.next}`);
    expect(empty).toEqual({ orders: [], cursor: { prev: null, next: null } });
  });

  it('customers sorted by updated_at ascending from updated_at_min are the truth rows in that window and order', async () => {
    const truth = sim.truth('customers') as (IdRow & { updated_at: string })[];
    const min = [...truth].sort((a, b) => a.updated_at.localeCompare(b.updated_at))[Math.floor(truth.length / 3)].updated_at;
    const rows = await walkByCursor(sim, '/v2/customers', 'customers', { sort_field: 'updated_at', sort_direction: 'asc', updated_at_min: min, limit: '4' });
    const expected = truth.filter((row) => row.updated_at >= min).sort((a, b) => a.updated_at.localeCompare(b.updated_at) || a.id - b.id);
    expect(rows).toEqual(expected);
  });

  it('customers filter by email substring, created_at window and updated_at_max (exclusive)', async () => {
    const truth = sim.truth('customers') as (IdRow & { email: string; created_at: string; updated_at: string })[];
    const byEmail = await walkByCursor(sim, '/v2/customers', 'customers', { email: '@EXAMPLE.com', limit: '500' });
    expect(byId(byEmail)).toEqual(truth.filter((c) => c.email.toLowerCase().includes('@example.com')));
    const pivot = truth[5];
    const created = await walkByCursor(sim, '/v2/customers', 'customers', { created_at_min: pivot.created_at, created_at_max: truth[20].created_at });
    expect(byId(created)).toEqual(truth.filter((c) => c.created_at >= pivot.created_at && c.created_at < truth[20].created_at));
    const updated = await walkByCursor(sim, '/v2/customers', 'customers', { updated_at_max: pivot.updated_at });
    expect(byId(updated)).toEqual(truth.filter((c) => c.updated_at < pivot.updated_at));
  });

  it('activities and transactions filter by created_at window; transactions by customer_id', async () => {
    for (const stream of ['activities', 'transactions'] as const) {
      const truth = sim.truth(stream) as (IdRow & { created_at: string })[];
      const times = truth.map((row) => row.created_at).sort();
      const [min, max] = [times[Math.floor(times.length / 4)], times[Math.floor((times.length * 3) / 4)]];
      const rows = await walkByCursor(sim, `/v2/${stream}`, stream, { created_at_min: min, created_at_max: max, limit: '9' });
      expect(byId(rows)).toEqual(truth.filter((row) => row.created_at >= min && row.created_at < max));
    }
    const transactions = sim.truth('transactions') as (IdRow & { customer: { id: number } })[];
    const customerId = transactions[0].customer.id;
    const mine = await walkBySinceId(sim, '/v2/transactions', 'transactions', { customer_id: String(customerId) });
    expect(mine).toEqual(transactions.filter((t) => t.customer.id === customerId));
  });

  it('the deprecated page parameter pages by offset in the page order', async () => {
    sim.setPageOrder('newest-first');
    const truth = sim.truth('orders') as IdRow[];
    const second = await getList(sim, '/v2/orders?limit=5&page=2');
    expect(second.orders).toEqual([...truth].reverse().slice(5, 10));
  });

  it('a page walk in progress yields every row visible at its start exactly once, though rows arrive meanwhile', async () => {
    sim.setPageOrder('oldest-first');
    const before = sim.truth('transactions') as IdRow[];
    const seen: IdRow[] = [];
    let page = await getList(sim, '/v2/transactions?limit=10');
    seen.push(...(page.transactions as IdRow[]));
    sim.tick();
    while (page.cursor.next !== null) {
      page = await getList(sim, `/v2/transactions?cursor=${page.cursor.next}`);
      seen.push(...(page.transactions as IdRow[]));
    }
    expectNoDuplicates(seen);
    const seenIds = new Set(seen.map((row) => row.id));
    expect(before.filter((row) => !seenIds.has(row.id))).toEqual([]);
    expect(seen.length).toBeGreaterThan(before.length);
  });
});
