import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { SimulatorHandle } from '../../src/simulator/index.js';
import { call, walkBySinceId } from './helpers.js';

interface ActivityRow {
  id: number;
  state: string;
  value: number;
  merchant_id: string;
  rule: { name: string };
}
interface TransactionRow {
  id: number;
  points_approved: number;
  points_pending: number;
  activity?: { id: number; state: string };
}

/** The generator names the reviews it holds on platform custom rev-1000, rev-1001, …; with seed 9 this one has earned no points yet. */
const REVIEW = '/v2/reviews/custom/rev-1004';

describe('reviews', () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startSimulator({ size: 'tiny', seed: 9 });
  });
  afterAll(() => sim.close());

  it('PUT returns the review; approving triggers the review rule once', async () => {
    expect((await call(sim, REVIEW, { method: 'PUT', json: { status: 'pending' } })).status).toBe(200);
    const before = sim.truth('activities').length;
    const answer = await call(sim, REVIEW, { method: 'PUT', json: { status: 'approved', full_text: 'Lovely, "really" — 5/5', rating: 5, images_count: 2, videos_count: 0, date: '2026-03-01T10:00:00.000Z' } });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ review: { platform: 'custom', merchant_id: 'rev-1004', status: 'approved', rating: 5, images_count: 2, merchant_updated_at: '2026-03-01T10:00:00.000Z', customer: { id: expect.any(Number), email: expect.any(String) } } });
    const activities = sim.truth('activities') as ActivityRow[];
    expect(activities.length).toBeGreaterThan(before);
    expect(activities.at(-1)).toMatchObject({ state: 'approved', rule: { name: 'submitted a review' } });
    await call(sim, REVIEW, { method: 'PUT', json: { status: 'approved' } });
    expect((sim.truth('activities') as ActivityRow[]).filter((a) => a.merchant_id === 'rev-1004' && a.state !== 'void')).toHaveLength(1);
  });

  it('DELETE voids the review activities, each with an adding and a removing transaction; again answers deleted:false', async () => {
    const deleted = await call(sim, REVIEW, { method: 'DELETE' });
    expect(deleted).toMatchObject({ status: 200, body: { deleted: true } });
    const voided = (await walkBySinceId<ActivityRow>(sim, '/v2/activities', 'activities', { limit: '500' })).filter((a) => a.merchant_id === 'rev-1004');
    expect(voided.length).toBeGreaterThan(0);
    const transactions = await walkBySinceId<TransactionRow>(sim, '/v2/transactions', 'transactions', { limit: '500' });
    for (const activity of voided) {
      expect(activity.state).toBe('void');
      const pair = transactions.filter((t) => t.activity?.id === activity.id);
      expect(pair).toHaveLength(2);
      expect(pair[0].points_approved + pair[0].points_pending).toBe(activity.value);
      expect(pair[1].points_approved + pair[1].points_pending).toBe(-activity.value);
    }
    expect(await call(sim, REVIEW, { method: 'DELETE' })).toMatchObject({ status: 200, body: { deleted: false } });
    expect(sim.ledger().slice(-2).map((entry) => entry.effect)).toEqual([expect.stringMatching(/^deleted/), 'already deleted']);
    expect(await call(sim, REVIEW, { method: 'PUT', json: { status: 'approved' } })).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
  });

  it('unknown reviews are 404 not_found; unsupported platforms 422 unsupported_platform', async () => {
    expect(await call(sim, '/v2/reviews/custom/no-such-review', { method: 'DELETE' })).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect(await call(sim, '/v2/reviews/judgeme/rev-1000', { method: 'PUT', json: { status: 'approved' } })).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect(await call(sim, '/v2/reviews/yotpo/rev-1000', { method: 'DELETE' })).toMatchObject({ status: 422, body: { error: { code: 'unsupported_platform' } } });
  });

  const invalid: [string, Record<string, unknown>][] = [
    ['status', { status: 'published' }],
    ['status', {}],
    ['full_text', { status: 'approved', full_text: '' }],
    ['rating', { status: 'approved', rating: 0 }],
    ['rating', { status: 'approved', rating: 4.5 }],
    ['images_count', { status: 'approved', images_count: 1001 }],
    ['videos_count', { status: 'approved', videos_count: -1 }],
    ['date', { status: 'approved', date: 'soon' }],
  ];
  for (const [field, body] of invalid) {
    it(`PUT 400 naming ${field} for ${JSON.stringify(body)}`, async () => {
      const answer = await call(sim, '/v2/reviews/custom/rev-1000', { method: 'PUT', json: body });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: { message: expect.stringContaining(field), details: { [field]: expect.any(String) } } });
    });
  }
});
