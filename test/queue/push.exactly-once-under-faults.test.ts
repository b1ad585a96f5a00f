import { afterEach, beforeEach, expect, test } from 'vitest';
import { listJobs } from '../../src/queue/listJobs.js';
import type { WriteJob } from '../../src/queue/types.js';
import type { LedgerEntry } from '../../src/simulator/index.js';
import { mirrorCustomers, pushUntilSettled, queue, startHarness, usableCustomers, type Harness } from './helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

/** The ledger entries a job produced: each job is identifiable by a unique reason, ecom_action_id, order or review id. */
function appliedBy(job: WriteJob, ledger: LedgerEntry[]): LedgerEntry[] {
  const p = job.payload;
  return ledger.filter((entry) => {
    if (entry.kind !== job.kind) return false;
    const body = entry.body as Record<string, unknown>;
    switch (job.kind) {
      case 'add_points':
        return body.reason === p.reason;
      case 'claim_reward':
        return body.ecom_action_id === p.ecom_action_id;
      case 'create_order':
        return entry.target === p.merchant_id;
      case 'update_review':
      case 'delete_review':
        return entry.target === `${String(p.platform)}/${String(p.merchant_id)}`;
    }
  });
}

test('200 mixed jobs pushed through faults: each applied exactly once, unknown ones at most once', async () => {
  const customers = usableCustomers(h.sim).slice(0, 40);
  mirrorCustomers(h.db, customers);
  let n = 0;
  customers.forEach((c, i) => {
    queue(h, 'add_points', { customer_merchant_id: c.merchant_id, points: '2000', reason: `grant ${i}` });
    if (i < 20) queue(h, 'claim_reward', { customer_merchant_id: c.merchant_id, reward_id: '1', ecom_action_id: `claim-${i}` });
  });
  for (let i = 0; i < 50; i++) {
    queue(h, 'add_points', { customer_merchant_id: customers[i % 40].merchant_id, points: String(i % 2 ? 25 : -5), reason: `adjustment ${n++}` });
  }
  for (let i = 0; i < 40; i++) {
    queue(h, 'create_order', {
      merchant_id: `ord-test-${i}`,
      customer_id: customers[(i * 7) % 40].merchant_id,
      customer_email: customers[(i * 7) % 40].email,
      total: `${10 + i}.50`,
      total_shipping: '4.99',
      total_paid: `${10 + i}.50`,
      payment_status: 'paid',
    });
  }
  for (let i = 0; i < 30; i++) queue(h, 'update_review', { platform: 'custom', merchant_id: `rev-${1000 + i}`, status: i % 3 ? 'approved' : 'flagged', rating: '4' });
  for (let i = 0; i < 20; i++) queue(h, 'delete_review', { platform: 'custom', merchant_id: `rev-${1100 + i}` });
  expect(listJobs(h.db)).toHaveLength(200);

  h.sim.setFaults({ seed: 11, rateLimited: 0.01, rateLimitedNoRetryAfter: 0.05, serverError: 0.05, drop: 0.03, applyThenDrop: 0.08 });
  const report = await pushUntilSettled(h);

  const ledger = h.sim.ledger();
  const jobs = listJobs(h.db);
  const problems: string[] = [];
  for (const job of jobs) {
    const applied = appliedBy(job, ledger).length;
    const idempotent = job.kind === 'update_review' || job.kind === 'delete_review';
    if (job.state === 'succeeded' && (idempotent ? applied < 1 : applied !== 1)) problems.push(`job ${job.id} ${job.kind} succeeded, applied ${applied}×`);
    if (job.state === 'unknown' && applied > 1) problems.push(`job ${job.id} ${job.kind} unknown, applied ${applied}×`);
    if (job.state === 'dead' && !idempotent && applied !== 0) problems.push(`job ${job.id} ${job.kind} dead, applied ${applied}×`);
    if (!['succeeded', 'unknown', 'dead'].includes(job.state)) problems.push(`job ${job.id} ended ${job.state}`);
    if (job.state === 'dead' && job.lastErrorCode !== 'insufficient_points') problems.push(`job ${job.id} dead: ${job.lastError}`);
  }
  expect(problems).toEqual([]);
  // The faults really hit: some writes landed without an answer and were settled by lookup, not by resending.
  expect(report.reconciled).toBeGreaterThan(0);
  expect(jobs.filter((j) => j.state === 'succeeded').length).toBeGreaterThan(170);
});
