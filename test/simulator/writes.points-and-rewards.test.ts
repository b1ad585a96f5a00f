import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { SimulatorHandle } from '../../src/simulator/index.js';
import { call, walkBySinceId } from './helpers.js';

interface CustomerRow {
  id: number;
  merchant_id: string;
  email: string;
  blocked: boolean;
  points_approved: number;
  points_spent: number;
  rewards_claimed: number;
  updated_at: string;
}

async function customer(sim: SimulatorHandle, merchantId: string): Promise<CustomerRow> {
  const rows = await walkBySinceId<CustomerRow>(sim, '/v2/customers', 'customers', { limit: '500' });
  const found = rows.find((row) => row.merchant_id === merchantId);
  if (found === undefined) throw new Error(`customer ${merchantId} not listed`);
  return found;
}

describe('add points and claim rewards', () => {
  let sim: SimulatorHandle;
  let target: CustomerRow;
  beforeAll(async () => {
    sim = await startSimulator({ size: 'tiny', seed: 2 });
    target = (sim.truth('customers') as CustomerRow[]).find((c) => !c.blocked) as CustomerRow;
  });
  afterAll(() => sim.close());

  it('points: 201 with an empty string body; balance, activity and transaction show in the next reads', async () => {
    const activitiesBefore = sim.truth('activities').length;
    const reason = 'Goodwill, "sorry" — Zoë';
    const answer = await call(sim, `/v2/customers/${target.merchant_id}/points`, { method: 'POST', json: { points: 1234, reason } });
    expect(answer.status).toBe(201);
    expect(answer.body).toBe('');
    const after = await customer(sim, target.merchant_id);
    expect(after.points_approved).toBe(target.points_approved + 1234);
    expect(after.updated_at > target.updated_at).toBe(true);
    const activities = await walkBySinceId<{ id: number; value: number; state: string; rule: { name: string; title: string }; customer: { id: number } }>(sim, '/v2/activities', 'activities', { limit: '500' });
    expect(activities).toHaveLength(activitiesBefore + 1);
    const activity = activities[activities.length - 1];
    expect(activity).toMatchObject({ value: 1234, state: 'approved', rule: { name: 'manual adjustment', title: reason }, customer: { id: target.id } });
    const transactions = await walkBySinceId<{ id: number; points_approved: number; resource: string; activity: { id: number; resource: null } }>(sim, '/v2/transactions', 'transactions', { customer_id: String(target.id) });
    expect(transactions[transactions.length - 1]).toMatchObject({ points_approved: 1234, resource: 'activity', activity: { id: activity.id, resource: null } });
    expect(sim.ledger().at(-1)).toMatchObject({ kind: 'add_points', target: target.merchant_id, body: { points: 1234, reason } });
  });

  it('points: 404 with a plain-string error for an unknown customer; 400 naming points for bad values', async () => {
    const missing = await call(sim, '/v2/customers/nobody/points', { method: 'POST', json: { points: 5 } });
    expect(missing).toMatchObject({ status: 404, body: { error: expect.any(String) } });
    for (const points of [0, 1.5, '5', null]) {
      const answer = await call(sim, `/v2/customers/${target.merchant_id}/points`, { method: 'POST', json: { points, reason: 'x' } });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: { details: { points: expect.any(String) } } });
    }
    const notJson = await fetch(`${sim.url}/v2/customers/${target.merchant_id}/points`, { method: 'POST', headers: { authorization: `Bearer ${sim.keys.full}` }, body: '{nope' });
    expect(notJson.status).toBe(400);
  });

  it('claim: 201 claimed_reward, points spent and a negative transaction; 404 unknown reward; 422 too few points', async () => {
    const before = await customer(sim, target.merchant_id);
    const answer = await call(sim, `/v2/customers/${target.merchant_id}/claimed_rewards`, { method: 'POST', json: { reward_id: 1 } });
    expect(answer.status).toBe(201);
    const claimed = (answer.body as { claimed_reward: { id: number; point_cost: number; state: string; reward: { id: number } } }).claimed_reward;
    expect(claimed).toMatchObject({ state: 'approved', reward: { id: 1 } });
    const after = await customer(sim, target.merchant_id);
    expect(after.points_approved).toBe(before.points_approved - claimed.point_cost);
    expect(after.points_spent).toBe(before.points_spent + claimed.point_cost);
    expect(after.rewards_claimed).toBe(before.rewards_claimed + 1);
    const last = (sim.truth('transactions') as { points_approved: number; customer: { id: number } }[]).at(-1);
    expect(last).toMatchObject({ points_approved: -claimed.point_cost, customer: { id: target.id } });

    expect(await call(sim, `/v2/customers/${target.merchant_id}/claimed_rewards`, { method: 'POST', json: { reward_id: 999 } })).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect((await call(sim, `/v2/customers/${target.merchant_id}/claimed_rewards`, { method: 'POST', json: {} })).status).toBe(400);
    const poor = (sim.truth('customers') as CustomerRow[]).find((c) => c.points_approved < 100) as CustomerRow;
    const refused = await call(sim, `/v2/customers/${poor.merchant_id}/claimed_rewards`, { method: 'POST', json: { reward_id: 1 } });
    expect(refused.status).toBe(422);
    expect(sim.ledger().filter((entry) => entry.kind === 'claim_reward')).toHaveLength(1);
  });
});
