import { afterEach, beforeEach, expect, test } from 'vitest';
import { listJobs } from '../../src/queue/listJobs.js';
import { pushDueJobs } from '../../src/queue/push/pushDueJobs.js';
import { pushUntilSettled, queue, startHarness, usableCustomers, type Harness } from './helpers.js';

let h: Harness;
beforeEach(async () => {
  // Retry-After is honoured up to api.retry.maxDelayMs, so the cap leaves room for the simulator's 1 s, as the default 30 s does.
  h = await startHarness({ sim: { size: 'tiny' }, api: { retry: { attempts: 10, minDelayMs: 2, maxDelayMs: 1000, maxElapsedMs: 30_000 } } });
});
afterEach(() => h.close());

test('a 429 storm delays the jobs but loses none and applies none twice', async () => {
  const customers = usableCustomers(h.sim).slice(0, 4);
  customers.forEach((c, i) => queue(h, 'add_points', { customer_merchant_id: c.merchant_id, points: '10', reason: `storm ${i}` }));
  queue(h, 'update_review', { platform: 'custom', merchant_id: 'rev-1000', status: 'approved' });
  queue(h, 'create_order', {
    merchant_id: 'ord-storm',
    customer_id: customers[0].merchant_id,
    customer_email: customers[0].email,
    total: '30.00',
    total_shipping: '0.00',
    total_paid: '30.00',
    payment_status: 'paid',
  });

  h.sim.setFaults({ seed: 3, rateLimited: 0.8 });
  const stormed = await pushDueJobs({ db: h.db, client: h.client, config: h.config, logger: h.logger, now: h.now });
  expect(stormed.retried).toBeGreaterThan(0);
  expect(stormed.dead + stormed.unknown).toBe(0);
  const waiting = listJobs(h.db, { state: 'queued' });
  expect(waiting.length).toBeGreaterThan(0);
  // Retry-After (1 s) is honoured: no job the storm deferred is due again before it.
  const deferred = waiting.filter((j) => j.lastStatus === 429);
  expect(deferred.length).toBeGreaterThan(0);
  for (const job of deferred) expect(Date.parse(job.nextAttemptAt) - Date.parse(job.updatedAt)).toBeGreaterThanOrEqual(1000);

  h.sim.setFaults(null);
  await pushUntilSettled(h);

  const jobs = listJobs(h.db);
  expect(jobs.map((j) => j.state)).toEqual(Array(6).fill('succeeded'));
  const ledger = h.sim.ledger();
  expect(ledger).toHaveLength(6);
  expect(new Set(ledger.map((e) => JSON.stringify([e.kind, e.target, e.body]))).size).toBe(6);
});
