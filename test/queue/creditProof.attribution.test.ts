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
});

test('a credit of the same value without the job\'s reason proves nothing: an order rule or another tool may have made it', () => {
  expect(findCreditProof({ job: target, customerId: 7, since, transactions: [credit(1, 50, 'Place an order')], others: [] })).toMatchObject({ proved: false });
  const untitled = { ...credit(1, 50, 'Goodwill'), activity: undefined } as Transaction;
  expect(findCreditProof({ job: target, customerId: 7, since, transactions: [untitled], others: [] }).proved).toBe(false);
});

test('a reward claim is never proved from transactions, which name neither the reward nor the request', () => {
  const claim = job(4, 'claim_reward', { customer_merchant_id: 'M1', reward_id: 3 });
  const redemption = { ...credit(1, -100, ''), resource: 'claimed_reward', activity: undefined } as Transaction;
  expect(findCreditProof({ job: claim, customerId: 7, since, transactions: [redemption], others: [] }).proved).toBe(false);
});

test('a look-alike credit created after the job\'s last attempt (plus margin) proves nothing, however late the recheck', () => {
  const until = new Date('2026-03-01T12:01:00Z');
  const later = credit(1, 50, 'Place an order', '2026-03-03T09:00:00Z');
  expect(findCreditProof({ job: target, customerId: 7, since, until, transactions: [later], others: [] }).proved).toBe(false);
  expect(findCreditProof({ job: target, customerId: 7, since, until, transactions: [credit(2, 50, 'Goodwill')], others: [] }).proved).toBe(true);
});
