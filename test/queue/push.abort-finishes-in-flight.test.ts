import { afterEach, beforeEach, expect, test } from 'vitest';
import { pushDueJobs } from '../../src/queue/push/pushDueJobs.js';
import { jobsByState, queue, startHarness, usableCustomers, type Harness } from './helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ sim: { size: 'tiny', faults: { latencyMs: 30 } }, push: { concurrency: 4 } });
});
afterEach(() => h.close());

test('an abort (SIGTERM) stops claiming; the jobs in flight finish and their outcomes are recorded', async () => {
  const customers = usableCustomers(h.sim).slice(0, 10);
  customers.forEach((c, i) => queue(h, 'add_points', { customer_merchant_id: c.merchant_id, points: '1', reason: `abort ${i}` }));
  const controller = new AbortController();

  // The first claim happens before pushDueJobs first yields, so exactly `concurrency` jobs are in flight.
  const running = pushDueJobs({ db: h.db, client: h.client, config: h.config, logger: h.logger, now: h.now, signal: controller.signal });
  controller.abort();
  const report = await running;

  expect(report).toMatchObject({ sent: 4, succeeded: 4 });
  expect(jobsByState(h.db)).toEqual({ succeeded: 4, queued: 6 });
  expect(h.sim.ledger()).toHaveLength(4);
});
