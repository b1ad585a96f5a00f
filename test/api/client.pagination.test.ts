import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ListName } from '../../src/api/client.js';
import { startSimulator } from '../../src/simulator/index.js';
import { testClient } from './helpers.js';

type Simulator = Awaited<ReturnType<typeof startSimulator>>;
const LISTS: ListName[] = ['customers', 'orders', 'activities', 'transactions'];

let sim: Simulator;
let client: ApiClient;
beforeAll(async () => {
  sim = await startSimulator({ seed: 11, size: 'tiny' });
  client = testClient(sim.url, sim.keys.full, { pageSize: 7 });
});
afterAll(async () => {
  await client.close();
  await sim.close();
});

async function walk(list: ListName): Promise<Array<Record<string, unknown>>> {
  const rows: Array<Record<string, unknown>> = [];
  let pages = 0;
  for await (const page of client.pages<Record<string, unknown>>(list, {})) {
    rows.push(...page.items);
    pages++;
    expect(page.items.length).toBeLessThanOrEqual(7);
  }
  expect(pages).toBeGreaterThan(1);
  return rows;
}

const byId = (a: Record<string, unknown>, b: Record<string, unknown>) => Number(a.id) - Number(b.id);

describe.each(['newest-first', 'oldest-first'] as const)('a list walked to the end, pages %s', (order) => {
  it.each(LISTS)('%s: every row once, exactly as the API holds it', async (list) => {
    sim.setPageOrder(order);
    const rows = await walk(list);
    const ids = rows.map((row) => row.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(rows.sort(byId)).toEqual(sim.truth(list));
  });
});

describe('resuming', () => {
  it('from a checkpointed cursor yields the rest of the list', async () => {
    const first = await client.fetchPage<Record<string, unknown>>('transactions', {});
    expect(first.nextCursor).not.toBeNull();
    const rest: Array<Record<string, unknown>> = [];
    for await (const page of client.listTransactions({}, { cursor: first.nextCursor })) rest.push(...page.items);
    expect([...first.items, ...rest].sort(byId)).toEqual(sim.truth('transactions'));
  });

  it('the unsubscribe list walks page by page to the end', async () => {
    const pages: number[] = [];
    const rows: Array<Record<string, unknown>> = [];
    for await (const page of client.unsubscribePages()) {
      pages.push(page.page);
      rows.push(...page.items);
    }
    expect(pages).toEqual(pages.map((_, i) => i + 1));
    const key = (row: Record<string, unknown>) => String(row.id);
    expect(rows.map(key).sort()).toEqual(sim.truth('unsubscribes').map((row) => key(row as Record<string, unknown>)).sort());
    expect(new Set(rows.map(key)).size).toBe(rows.length);
  });
});
