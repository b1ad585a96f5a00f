import { afterEach, beforeEach, expect, test } from 'vitest';
import { getJob } from '../../src/queue/getJob.js';
import { pushUntilSettled, queue, startHarness, type Harness } from './helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ sim: { size: 'tiny' } });
});
afterEach(() => h.close());

test('a points write to an unknown customer and a review on an unsupported platform end dead at once, with the API message', async () => {
  const points = queue(h, 'add_points', { customer_merchant_id: 'no-such-customer', points: '10', reason: 'welcome' });
  const review = queue(h, 'update_review', { platform: 'yotpo', merchant_id: 'rev-1000', status: 'approved' });

  const report = await pushUntilSettled(h);

  expect(report).toMatchObject({ sent: 2, dead: 2, retried: 0 });
  // The report names each job with what the API answered, for the push and once lines.
  expect([...report.deadJobs].sort((a, b) => a.id - b.id)).toEqual([
    { id: points.id, kind: 'add_points', error: expect.stringContaining('404 Customer not found') },
    { id: review.id, kind: 'update_review', error: expect.stringContaining('is not supported') },
  ]);
  const deadPoints = getJob(h.db, points.id);
  expect(deadPoints).toMatchObject({ state: 'dead', attempts: 1, lastStatus: 404 });
  expect(deadPoints?.lastError).toContain('Customer not found');
  const deadReview = getJob(h.db, review.id);
  expect(deadReview).toMatchObject({ state: 'dead', attempts: 1, lastStatus: 422, lastErrorCode: 'unsupported_platform' });
  expect(deadReview?.lastError).toContain('is not supported');
  expect(h.sim.ledger()).toEqual([]);
});
