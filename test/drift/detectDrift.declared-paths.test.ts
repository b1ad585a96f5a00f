import { describe, expect, it } from 'vitest';
import { createDriftDetector } from '../../src/drift/index.js';
import { getStream } from '../../src/streams/index.js';
import { startSimulator } from '../../src/simulator/index.js';

const summary = { id: 1, merchant_id: 'c1', email: 'ann@example.com', points_pending: 0, points_approved: 5, points_spent: 0 };

function customer(extra: Record<string, unknown> = {}, tier: Record<string, unknown> = {}): Record<string, unknown> & { id: number } {
  return {
    id: 7,
    merchant_id: 'c7',
    email: 'bo@example.com',
    points_approved: 0,
    points_pending: 0,
    points_spent: 0,
    properties: { anything: { goes: true } },
    metadata: { ecom_source_url: 'https://shop.example.com/c7' },
    rewards_claimed: 0,
    blocked: false,
    guest: false,
    enrolled: true,
    enrolled_at: '2026-03-01T00:00:00Z',
    referral_id: 'r7',
    referred_by: null,
    loyalty_tier_membership: {
      started_at: '2026-03-01T00:00:00Z',
      expires_at: '2027-03-01T00:00:00Z',
      manual: false,
      loyalty_tier: { id: 1, name: 'Bronze', number: 1, default: true, hidden: false, lower_bound: '0', upper_bound: '99', position: 0, ...tier },
    },
    birthday: '1990-01-01',
    referral_url: 'https://r/7',
    receipt_upload_url: 'https://u/7',
    created_at: '2026-03-01T00:00:00Z',
    updated_at: '2026-03-01T00:00:00Z',
    linked_merchant_ids: [],
    ...extra,
  };
}

describe('the drift detector', () => {
  it('finds nothing in records that hold only listed fields, optional ones absent, open objects filled', () => {
    const detect = createDriftDetector(getStream('customers'));
    expect(detect([customer(), customer({ insights_segment: 'At Risk', loyalty_pass_url: 'https://p', loyalty_pass_installed: true })])).toEqual([]);
  });

  it('names unlisted fields by their dotted path, at the top and deep inside, counted per record', () => {
    const detect = createDriftDetector(getStream('customers'));
    const records = [customer(), customer({ tags: ['vip'] }, { color: 'bronze' }), customer({ tags: [] }, { color: 'gold' }), customer()];
    expect(detect(records)).toEqual([
      { stream: 'customers', kind: 'field', path: 'tags', example: '["vip"]', count: 2 },
      { stream: 'customers', kind: 'field', path: 'loyalty_tier_membership.loyalty_tier.color', example: 'bronze', count: 2 },
    ]);
    // Shapes are remembered: the same records again give the same answer.
    expect(detect(records).map((finding) => finding.count)).toEqual([2, 2]);
  });

  it('checks the embedded customer summary and a transaction embedded activity, but not null objects', () => {
    const detect = createDriftDetector(getStream('transactions'));
    const activity = { id: 3, merchant_id: 'a3', value: 5, state: 'pending', customer: summary, created_at: '2026-03-01T00:00:00Z', resource: null, rule: { id: 1, name: 'n', title: 't' }, flow: null };
    const transaction = { id: 9, customer: summary, points_approved: 5, points_pending: 0, created_at: '2026-03-01T00:00:00Z', resource: 'activity', activity };
    expect(detect([transaction, { ...transaction, id: 10, activity: undefined }])).toEqual([]);
    const drifted = { ...transaction, customer: { ...summary, phone: '+1 555' }, activity: { ...activity, rule: { ...activity.rule, weight: 2 } } };
    expect(detect([drifted]).map((finding) => finding.path)).toEqual(['customer.phone', 'activity.rule.weight']);
  });

  it('reports each value outside a listed enum once per value, with its count', () => {
    const detect = createDriftDetector(getStream('orders'));
    const order = (id: number, payment_status: string, refund_status = 'not_refunded') => ({ id, payment_status, refund_status, cancellation_status: 'not_cancelled', fulfillment_status: 'anything' });
    expect(detect([order(1, 'paid'), order(2, 'authorized'), order(3, 'authorized'), order(4, 'voided', 'chargeback')])).toEqual([
      { stream: 'orders', kind: 'enum_value', path: 'payment_status', example: 'authorized', count: 2 },
      { stream: 'orders', kind: 'enum_value', path: 'payment_status', example: 'voided', count: 1 },
      { stream: 'orders', kind: 'enum_value', path: 'refund_status', example: 'chargeback', count: 1 },
    ]);
  });

  it('masks emails and truncates long examples', () => {
    const detect = createDriftDetector(getStream('unsubscribes'));
    const [note, long] = detect([{ id: 'u1', email: 'x@example.com', note: 'write to ann.lee+news@mail.example.org today', blob: 'z'.repeat(500) }]);
    expect(note.example).toBe('write to ***@mail.example.org today');
    expect(long.example).toHaveLength(80);
    expect(long.example.endsWith('…')).toBe(true);
  });

  it('finds nothing in what the simulator serves for the streams it serves as the spec lists them', async () => {
    const sim = await startSimulator({ seed: 5, size: 'tiny' });
    try {
      for (const stream of ['orders', 'activities', 'transactions', 'unsubscribes'] as const) {
        expect(createDriftDetector(getStream(stream))(sim.truth(stream) as Array<{ id: number }>)).toEqual([]);
      }
    } finally {
      await sim.close();
    }
  });
});
