import { expect, test } from 'vitest';
import type { Transaction } from '../../src/api/types.js';
import { findCreditProof } from '../../src/queue/push/creditProof.js';
import type { WriteJob } from '../../src/queue/types.js';

const since = new Date('2026-03-01T12:00:00Z');

function job(id: number, kind: WriteJob['kind'], payload: WriteJob['payload'], extra: Partial<WriteJob> = {}): WriteJob {
  return {
    id, kind, payload, idempotencyKey: `k${id}`, orderingKey: 'customer:M1', state: 'unknown', attempts: 1, nextAttemptAt: since.toISOString(),
    firstAttemptAt: since.toISOString(), inDoubt: true, checkedAt: null, lastStatus: null, lastError: null, lastErrorCode: null, response: null,
    source: 'test', lockedBy: null, lockedAt: null, createdAt: since.toISOString(), updatedAt: since.toISOString(), ...extra,
  };
}

function credit(id: number, points: number, title: string, at = '2026-03-01T12:00:05Z'): Transaction {
  return {
    id, customer: { id: 7, merchant_id: 'M1', email: 'm@example.com', points_pending: 0, points_approved: 0, points_spent: 0 },
    points_approved: points, points_pending: 0, created_at: at, resource: 'activity',
    activity: { id: id + 1000, value: points, rule: { id: 105, name: 'manual adjustment', title } } as Transaction['activity'],
  } as Transaction;
}

const target = job(1, 'add_points', { customer_merchant_id: 'M1', points: 50, reason: 'Goodwill' });

test('one transaction with the points and the reason, after the first attempt, proves the write landed', () => {
  const proof = findCreditProof({ job: target, customerId: 7, since, transactions: [credit(1, 50, 'Goodwill'), credit(2, 50, 'Other')], others: [] });
  expect(proof).toMatchObject({ proved: true, transaction: { id: 1 } });
});

test('no proof when the match is older than the attempt, ambiguous, or could be another write of ours', () => {
  expect(findCreditProof({ job: target, customerId: 7, since, transactions: [credit(1, 50, 'Goodwill', '2026-03-01T11:00:00Z')], others: [] }).proved).toBe(false);
  expect(findCreditProof({ job: target, customerId: 7, since, transactions: [credit(1, 50, 'Goodwill'), credit(2, 50, 'Goodwill')], others: [] }).proved).toBe(false);
  const twin = job(2, 'add_points', { customer_merchant_id: 'M1', points: 50, reason: 'Goodwill' }, { state: 'succeeded' });
  expect(findCreditProof({ job: target, customerId: 7, since, transactions: [credit(1, 50, 'Goodwill')], others: [twin] }).proved).toBe(false);
  // Without the reason on the record, an order of the same customer could have earned the same value.
  const order = job(3, 'create_order', { merchant_id: 'O1', customer_id: 'M1' }, { state: 'succeeded' });
  expect(findCreditProof({ job: target, customerId: 7, since, transactions: [credit(1, 50, 'Place an order')], others: [order] }).proved).toBe(false);
  expect(findCreditProof({ job: target, customerId: 7, since, transactions: [credit(1, 50, 'Place an order')], others: [] }).proved).toBe(true);
});
