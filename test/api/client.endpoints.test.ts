import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import type { Customer, CreateOrderBody } from '../../src/api/types.js';
import { startSimulator } from '../../src/simulator/index.js';
import { testClient } from './helpers.js';

type Simulator = Awaited<ReturnType<typeof startSimulator>>;

/** Every documented field of each resource (spec part 2), minus the ones it marks optional. */
const FIELDS = {
  customerSummary: ['id', 'merchant_id', 'email', 'points_pending', 'points_approved', 'points_spent'],
  customer: [
    'id', 'merchant_id', 'email', 'points_approved', 'points_pending', 'points_spent', 'properties', 'metadata', 'rewards_claimed',
    'blocked', 'guest', 'enrolled', 'enrolled_at', 'referral_id', 'referred_by', 'loyalty_tier_membership', 'birthday', 'referral_url',
    'receipt_upload_url', 'created_at', 'updated_at', 'linked_merchant_ids',
  ],
  order: [
    'id', 'merchant_id', 'merchant_number', 'total', 'total_tax', 'total_shipping', 'total_discounts', 'total_paid', 'total_refunded',
    'payment_status', 'fulfillment_status', 'refund_status', 'cancellation_status', 'metadata', 'created_at', 'updated_at', 'customer',
  ],
  orderDetail: [
    'cancellation_status', 'merchant_id', 'payment_status', 'refund_status', 'total_paid', 'total_shipping', 'total',
    'merchant_created_at', 'merchant_updated_at', 'payments', 'refunds',
  ],
  activity: ['id', 'merchant_id', 'value', 'state', 'customer', 'created_at', 'rule', 'flow'],
  transaction: ['id', 'customer', 'points_approved', 'points_pending', 'created_at', 'resource'],
  review: [
    'id', 'program_id', 'site_id', 'customer', 'platform', 'merchant_id', 'status', 'full_text', 'rating', 'images_count', 'videos_count',
    'merchant_created_at', 'merchant_updated_at', 'moderation_url',
  ],
  claimedReward: ['id', 'claimed_at', 'point_cost', 'redeemable', 'reward', 'state', 'session', 'auto_refund_at', 'expires_at'],
  reward: ['id', 'title', 'description', 'point_cost'],
};

let sim: Simulator;
let client: ApiClient;
beforeAll(async () => {
  sim = await startSimulator({ seed: 3, size: 'tiny' });
  client = testClient(sim.url, sim.keys.full, { pageSize: 500 });
});
afterAll(async () => {
  await client.close();
  await sim.close();
});

async function firstPage<T>(list: 'customers' | 'orders' | 'activities' | 'transactions'): Promise<T[]> {
  return (await client.fetchPage<T>(list, {})).items;
}

function customerWithPoints(): Customer {
  return (sim.truth('customers') as Customer[]).find((c) => !c.blocked) as Customer;
}

describe('every endpoint round-trips its documented fields', () => {
  it('GET /v2/identity/whoami', async () => {
    const identity = await client.whoami();
    expect(identity).toMatchObject({ kind: 'api_key', account_id: expect.any(Number), program_id: expect.any(Number) });
    expect(identity.scopes).toEqual(expect.arrayContaining(['write_reviews']));
    expect(identity).toHaveProperty('integration');
  });

  it('GET /v2/customers', async () => {
    const rows = await firstPage<Record<string, unknown>>('customers');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(Object.keys(row)).toEqual(expect.arrayContaining(FIELDS.customer));
  });

  it('GET /v2/orders', async () => {
    const rows = await firstPage<Record<string, unknown>>('orders');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(Object.keys(row)).toEqual(expect.arrayContaining(FIELDS.order));
      expect(Object.keys(row.customer as object)).toEqual(expect.arrayContaining(FIELDS.customerSummary));
      expect(row.total).toMatch(/^-?\d+(\.\d+)?$/);
    }
  });

  it('GET /v2/activities', async () => {
    const rows = await firstPage<Record<string, unknown>>('activities');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(Object.keys(row)).toEqual(expect.arrayContaining(FIELDS.activity));
  });

  it('GET /v2/transactions', async () => {
    const rows = await firstPage<Record<string, unknown>>('transactions');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(Object.keys(row)).toEqual(expect.arrayContaining(FIELDS.transaction));
      if (row.resource === 'activity') expect(Object.keys(row.activity as object)).toEqual(expect.arrayContaining(FIELDS.activity));
    }
  });

  it('GET /v2/loyalty_emails/unsubscribes', async () => {
    const rows = [];
    for await (const page of client.unsubscribePages()) rows.push(...page.items);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row).toEqual(expect.objectContaining({ email: expect.any(String), id: expect.any(String) }));
  });

  it('POST /v2/orders, then GET /v2/orders/{merchant_id}', async () => {
    const customer = customerWithPoints();
    const body: CreateOrderBody = {
      customer_id: customer.merchant_id,
      customer_email: customer.email,
      merchant_id: 'order/with space-1',
      total: '42.50',
      total_shipping: '4.00',
      total_paid: '42.50',
      payment_status: 'paid',
    };
    const before = sim.ledger().length;
    await client.createOrder(body);
    expect(sim.ledger().slice(before)).toMatchObject([{ kind: 'create_order', target: body.merchant_id }]);
    const order = await client.getOrder(body.merchant_id);
    expect(order).not.toBeNull();
    expect(Object.keys(order as object)).toEqual(expect.arrayContaining(FIELDS.orderDetail));
    expect(order).toMatchObject({ merchant_id: body.merchant_id, total: '42.50', total_shipping: '4.00', total_paid: '42.50', payment_status: 'paid' });
  });

  it('GET /v2/orders/{merchant_id} of an unknown order is null', async () => {
    expect(await client.getOrder('no-such-order')).toBeNull();
  });

  it('POST /v2/customers/{merchant_id}/points', async () => {
    const customer = customerWithPoints();
    const before = sim.ledger().length;
    await client.addPoints(customer.merchant_id, { points: 250, reason: 'round trip' });
    expect(sim.ledger().slice(before)).toMatchObject([{ kind: 'add_points', target: customer.merchant_id, body: { points: 250, reason: 'round trip' } }]);
  });

  it('POST /v2/customers/{merchant_id}/claimed_rewards', async () => {
    const customer = customerWithPoints();
    await client.addPoints(customer.merchant_id, { points: 5000, reason: 'enough for a reward' });
    const claimed = await client.claimReward(customer.merchant_id, { reward_id: 1 });
    if (claimed === null) throw new Error('expected a claimed_reward object');
    expect(Object.keys(claimed)).toEqual(expect.arrayContaining(FIELDS.claimedReward));
    expect(Object.keys(claimed.reward)).toEqual(expect.arrayContaining(FIELDS.reward));
    expect(claimed.reward.id).toBe(1);
  });

  it('PUT /v2/reviews/{platform}/{merchant_id}', async () => {
    const review = await client.updateReview('custom', 'rev-1001', { status: 'flagged', full_text: 'Changed my mind', rating: 2, images_count: 1, videos_count: 0 });
    expect(Object.keys(review)).toEqual(expect.arrayContaining(FIELDS.review));
    expect(review).toMatchObject({ platform: 'custom', merchant_id: 'rev-1001', status: 'flagged', full_text: 'Changed my mind', rating: 2, images_count: 1, videos_count: 0 });
  });

  it('DELETE /v2/reviews/{platform}/{merchant_id}: deleted, then already deleted', async () => {
    expect(await client.deleteReview('custom', 'rev-1002')).toEqual({ deleted: true });
    expect(await client.deleteReview('custom', 'rev-1002')).toEqual({ deleted: false });
  });
});
