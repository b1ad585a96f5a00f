import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { SimulatorHandle } from '../../src/simulator/index.js';
import { call, getList } from './helpers.js';

interface Envelope {
  error: { message: string; code?: string; details?: Record<string, string> };
}

describe('list parameter validation', () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startSimulator({ size: 'tiny' });
  });
  afterAll(() => sim.close());

  const bad: [string, string][] = [
    ['/v2/customers?limit=0', 'limit'],
    ['/v2/customers?limit=501', 'limit'],
    ['/v2/orders?limit=ten', 'limit'],
    ['/v2/transactions?since_id=-1', 'since_id'],
    ['/v2/orders?since_id=1.5', 'since_id'],
    ['/v2/customers?page=0', 'page'],
    ['/v2/customers?sort_field=email', 'sort_field'],
    ['/v2/customers?sort_direction=up', 'sort_direction'],
    ['/v2/customers?updated_at_min=yesterday', 'updated_at_min'],
    ['/v2/transactions?created_at_max=2026-13-45T00:00:00Z', 'created_at_max'],
    ['/v2/transactions?customer_id=abc', 'customer_id'],
    ['/v2/transactions?format=xml', 'format'],
    ['/v2/orders?cursor=not-a-cursor!', 'cursor'],
    ['/v2/loyalty_emails/unsubscribes?page=0', 'page'],
    ['/v2/loyalty_emails/unsubscribes?limit=600', 'limit'],
  ];
  for (const [path, parameter] of bad) {
    it(`${path} → 400 naming ${parameter}`, async () => {
      const answer = await call(sim, path);
      expect(answer.status).toBe(400);
      const body = answer.body as Envelope;
      expect(body.error.message).toContain(parameter);
      expect(body.error.details).toHaveProperty(parameter);
      expect(body.error.code).toBe('invalid_parameter');
    });
  }

  it('activities errors carry no code, as the spec defines them', async () => {
    const answer = await call(sim, '/v2/activities?limit=0');
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: { message: expect.stringContaining('limit'), details: { limit: expect.any(String) } } });
  });

  it('a cursor of another list, or a tampered one, is a 400', async () => {
    const orders = await getList(sim, '/v2/orders?limit=2');
    expect((await call(sim, `/v2/customers?cursor=${orders.cursor.next}`)).status).toBe(400);
    const tampered = Buffer.from(JSON.stringify({ stream: 'orders', sort: 'id', dir: 'asc', back: false, position: ['x'], filters: {}, limit: 2 })).toString('base64url');
    expect((await call(sim, `/v2/orders?cursor=${tampered}`)).status).toBe(400);
  });

  it('default page sizes: 100 for customers and activities, 50 for orders and transactions, 100 for unsubscribes', async () => {
    const big = await startSimulator({ size: { customers: 120, activities: 120, orders: 60, transactions: 200, unsubscribes: 110 } });
    try {
      const count = async (path: string, key: string) => ((await getList(big, path))[key] as unknown[]).length;
      expect(await count('/v2/customers', 'customers')).toBe(100);
      expect(await count('/v2/activities', 'activities')).toBe(100);
      expect(await count('/v2/orders', 'orders')).toBe(50);
      expect(await count('/v2/transactions', 'transactions')).toBe(50);
      expect(((await call(big, '/v2/loyalty_emails/unsubscribes')).body as unknown[]).length).toBe(100);
    } finally {
      await big.close();
    }
  });

  it('unsubscribes: a bare array paged by page and limit, equal to truth()', async () => {
    const all: unknown[] = [];
    for (let page = 1; ; page++) {
      const answer = await call(sim, `/v2/loyalty_emails/unsubscribes?limit=7&page=${page}`);
      expect(Array.isArray(answer.body)).toBe(true);
      const rows = answer.body as { id: string; email: string }[];
      if (rows.length === 0) break;
      all.push(...rows);
    }
    expect(all).toEqual(sim.truth('unsubscribes'));
    expect(all.every((row) => typeof (row as { id: unknown }).id === 'string')).toBe(true);
  });

  it('transactions format=csv answers an RFC 4180 page with a header row', async () => {
    const answer = await call(sim, '/v2/transactions?format=csv&limit=3&since_id=0');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('text/csv');
    const lines = answer.text.trimEnd().split('\r\n');
    expect(lines[0]).toMatch(/^id,customer_id,/);
    expect(lines).toHaveLength(4);
    expect(answer.headers.get('x-cursor-next')).toBeTruthy();
  });
});
