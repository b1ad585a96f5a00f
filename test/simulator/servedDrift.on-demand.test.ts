import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';

let sim: SimulatorHandle;
beforeAll(async () => {
  sim = await startSimulator({ seed: 6, size: 'tiny' });
});
afterAll(async () => {
  await sim.close();
});

async function listOrders(): Promise<Array<Record<string, unknown>>> {
  const response = await fetch(`${sim.url}/v2/orders?since_id=0&limit=500`, { headers: { authorization: `Bearer ${sim.keys.full}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { orders: Array<Record<string, unknown>> }).orders;
}

async function control(method: string, body?: unknown): Promise<number> {
  const response = await fetch(`${sim.url}/__sim/schema-drift`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  await response.arrayBuffer();
  return response.status;
}

describe('drift the simulator serves on demand', () => {
  it('serves only listed fields and values until asked, then an unlisted field and payment_status, until stopped', async () => {
    const before = await listOrders();
    expect(before.some((order) => 'customer_note' in order || order.payment_status === 'authorized')).toBe(false);

    expect(await control('PUT', { unlistedField: true, unlistedEnumValue: true })).toBe(200);
    const during = await listOrders();
    expect(during.every((order) => typeof order.customer_note === 'string')).toBe(true);
    expect(during.filter((order) => order.payment_status === 'authorized').map((order) => order.id)).toEqual(during.map((order) => order.id as number).filter((id) => id % 3 === 0));

    expect(await control('DELETE')).toBe(200);
    expect(await listOrders()).toEqual(before);
  });

  it('refuses an unknown kind of drift or a value that is not a boolean', async () => {
    expect(await control('PUT', { unlistedTable: true })).toBe(400);
    expect(await control('PUT', { unlistedField: 'yes' })).toBe(400);
  });
});
