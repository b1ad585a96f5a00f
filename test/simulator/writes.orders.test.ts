import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { SimulatorHandle } from '../../src/simulator/index.js';
import { call, walkBySinceId } from './helpers.js';

const ORDER = {
  merchant_id: 'web-9001',
  customer_id: 'new-customer-77',
  customer_email: 'new.customer77@example.com',
  total: '1234567.89',
  total_shipping: '4.99',
  total_paid: '1234567.89',
  payment_status: 'paid',
  merchant_number: '#9001',
  discount_codes: ['SPRING, 10%'],
};

describe('orders', () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startSimulator({ size: 'tiny', seed: 4 });
  });
  afterAll(() => sim.close());

  it('creates an order: 201 with an empty body, then listed, readable by merchant_id, and its new customer listed', async () => {
    const created = await call(sim, '/v2/orders', { method: 'POST', json: ORDER });
    expect(created.status).toBe(201);
    expect(created.text).toBe('');
    const listed = (await walkBySinceId(sim, '/v2/orders', 'orders', { limit: '500' })).at(-1);
    expect(listed).toMatchObject({ merchant_id: 'web-9001', total: '1234567.89', total_paid: '1234567.89', payment_status: 'paid', customer: { merchant_id: 'new-customer-77', email: ORDER.customer_email } });
    const single = await call(sim, '/v2/orders/web-9001');
    expect(single.status).toBe(200);
    expect(single.body).toEqual({
      cancellation_status: 'not_cancelled',
      merchant_id: 'web-9001',
      payment_status: 'paid',
      refund_status: 'not_refunded',
      total_paid: '1234567.89',
      total_shipping: '4.99',
      total: '1234567.89',
      merchant_created_at: expect.any(String),
      merchant_updated_at: expect.any(String),
      payments: [{ amount: '1234567.89', created_at: expect.any(String), gateway: 'api' }],
      refunds: [],
    });
    expect((sim.truth('customers') as { merchant_id: string }[]).some((c) => c.merchant_id === 'new-customer-77')).toBe(true);
    expect(sim.ledger().at(-1)).toMatchObject({ kind: 'create_order', target: 'web-9001' });
  });

  it('refuses a second order with the same merchant_id with 422, and applies nothing', async () => {
    const ledgerBefore = sim.ledger().length;
    const duplicate = await call(sim, '/v2/orders', { method: 'POST', json: ORDER });
    expect(duplicate).toMatchObject({ status: 422, body: { error: { code: 'duplicate_order' } } });
    expect(sim.ledger()).toHaveLength(ledgerBefore);
  });

  it('get-order answers 404 with a plain-string error for an unknown merchant_id', async () => {
    expect(await call(sim, '/v2/orders/nope')).toMatchObject({ status: 404, body: { error: expect.any(String) } });
  });

  it('existing orders come back with payments and refunds', async () => {
    const refunded = (sim.truth('orders') as { merchant_id: string; refund_status: string }[]).find((o) => o.refund_status !== 'not_refunded');
    expect(refunded).toBeDefined();
    const single = (await call(sim, `/v2/orders/${refunded?.merchant_id}`)).body as { refunds: { amount: string }[] };
    expect(single.refunds.length).toBeGreaterThan(0);
    expect(single.refunds[0].amount).toMatch(/^\d+\.\d{2}$/);
  });

  const invalid: [string, Record<string, unknown>][] = [
    ['merchant_id', { merchant_id: '' }],
    ['customer_email', { customer_email: 'not-an-email' }],
    ['total', { total: '12,00' }],
    ['total_shipping', { total_shipping: 4.99 }],
    ['total_paid', { total_paid: '1.234' }],
    ['payment_status', { payment_status: 'refunded' }],
    ['date', { date: 'last tuesday' }],
    ['claimed_reward_ids', { claimed_reward_ids: ['a'] }],
    ['guest', { guest: 'yes' }],
  ];
  for (const [field, change] of invalid) {
    it(`400 naming ${field} for a bad value`, async () => {
      const answer = await call(sim, '/v2/orders', { method: 'POST', json: { ...ORDER, merchant_id: `bad-${field}`, ...change } });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: { message: expect.stringContaining(field), details: { [field]: expect.any(String) } } });
    });
  }
});
