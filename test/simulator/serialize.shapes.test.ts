import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { SimulatorHandle } from '../../src/simulator/index.js';
import { getList } from './helpers.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MONEY = /^\d+\.\d{2}$/;
const SUMMARY = ['id', 'merchant_id', 'email', 'points_pending', 'points_approved', 'points_spent'];

function expectKeys(record: Record<string, unknown>, keys: string[]): void {
  for (const key of keys) expect(record, key).toHaveProperty(key);
}

describe('record shapes of the list endpoints (spec part 2)', () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startSimulator({ size: 'tiny', seed: 21 });
  });
  afterAll(() => sim.close());

  it('customers carry every field of the customer table', async () => {
    const customers = (await getList(sim, '/v2/customers?limit=500')).customers as Record<string, unknown>[];
    for (const c of customers) {
      expectKeys(c, ['id', 'merchant_id', 'email', 'points_approved', 'points_pending', 'points_spent', 'properties', 'metadata', 'rewards_claimed', 'blocked', 'guest', 'enrolled', 'enrolled_at', 'referral_id', 'referred_by', 'loyalty_tier_membership', 'birthday', 'referral_url', 'receipt_upload_url', 'created_at', 'updated_at', 'linked_merchant_ids']);
      expect(c.metadata).toEqual({ ecom_source_url: expect.any(String) });
      expect(c.loyalty_tier_membership).toMatchObject({ started_at: expect.stringMatching(TIMESTAMP), expires_at: expect.stringMatching(TIMESTAMP), manual: expect.any(Boolean), loyalty_tier: { id: expect.any(Number), name: expect.any(String), number: expect.any(Number), default: expect.any(Boolean), hidden: expect.any(Boolean), lower_bound: expect.any(String), upper_bound: expect.any(String), position: expect.any(Number) } });
      expect(c.updated_at).toMatch(TIMESTAMP);
    }
    expect(customers.some((c) => c.referred_by !== null)).toBe(true);
  });

  it('orders carry money as two-decimal strings, the spec enums and a customer summary', async () => {
    const orders = (await getList(sim, '/v2/orders?limit=500')).orders as Record<string, unknown>[];
    for (const o of orders) {
      for (const money of ['total', 'total_tax', 'total_shipping', 'total_discounts', 'total_paid', 'total_refunded']) expect(o[money], money).toMatch(MONEY);
      expect(['not_paid', 'partially_paid', 'paid']).toContain(o.payment_status);
      expect(['not_refunded', 'partially_refunded', 'refunded']).toContain(o.refund_status);
      expect(['cancelled', 'not_cancelled']).toContain(o.cancellation_status);
      expect(o.metadata).toEqual({ ecom_source_url: expect.any(String), ecom_source_name: expect.any(String), ecom_location_id: expect.any(Number) });
      expect(Object.keys(o.customer as object)).toEqual(SUMMARY);
      expectKeys(o, ['id', 'merchant_id', 'merchant_number', 'fulfillment_status', 'created_at', 'updated_at']);
    }
  });

  it('activities carry rule, flow and a summary; transactions embed the activity with resource null', async () => {
    const activities = (await getList(sim, '/v2/activities?limit=500')).activities as Record<string, unknown>[];
    for (const a of activities) {
      expectKeys(a, ['id', 'merchant_id', 'value', 'state', 'customer', 'created_at', 'resource', 'rule', 'flow']);
      expect(a.rule).toEqual({ id: expect.any(Number), name: expect.any(String), title: expect.any(String) });
      if (a.flow !== null) expect(Object.keys(a.flow as object)).toEqual(['id', 'journey_id', 'name', 'block_id']);
    }
    const transactions = (await getList(sim, '/v2/transactions?limit=500')).transactions as Record<string, unknown>[];
    for (const t of transactions) {
      expectKeys(t, ['id', 'customer', 'points_approved', 'points_pending', 'created_at', 'resource']);
      if (t.resource === 'activity') expect(t.activity).toMatchObject({ id: expect.any(Number), resource: null });
      else expect(t).not.toHaveProperty('activity');
    }
  });
});
