import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, expect, test } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { listJobs } from '../../src/queue/listJobs.js';
import { pushDueJobs } from '../../src/queue/push/pushDueJobs.js';
import { pushUntilSettled, queue, startHarness, usableCustomers, type Harness } from './helpers.js';

let h: Harness | undefined;
afterEach(() => h?.close());

test('rate limits and an unreachable API delay jobs but never count as attempts or make them dead', async () => {
  h = await startHarness({
    sim: { size: 'tiny' },
    push: { maxAttempts: 2, backoffBaseMs: 1, backoffMaxMs: 1 },
    // No retries inside the client: every push meets the failure itself.
    api: { retry: { attempts: 1, minDelayMs: 1, maxDelayMs: 1, maxElapsedMs: 1000 } },
  });
  const harness = h;
  const [first, second, third] = usableCustomers(harness.sim);
  queue(harness, 'add_points', { customer_merchant_id: first.merchant_id, points: '10', reason: 'outage 1' });
  queue(harness, 'add_points', { customer_merchant_id: second.merchant_id, points: '20', reason: 'outage 2' });
  queue(harness, 'update_review', { platform: 'custom', merchant_id: 'rev-1000', status: 'approved' });
  queue(harness, 'create_order', { merchant_id: 'ord-outage', customer_id: third.merchant_id, customer_email: third.email, total: '30.00', total_shipping: '0.00', total_paid: '30.00', payment_status: 'paid' });
  const pushRounds = async (client: Harness['client'], rounds: number): Promise<void> => {
    for (let round = 0; round < rounds; round += 1) {
      await sleep(5);
      const report = await pushDueJobs({ db: harness.db, client, config: harness.config, logger: harness.logger, now: harness.now });
      expect(report.dead + report.unknown).toBe(0);
      // Each job is tried once per push: a push ends even while every request fails.
      expect(report.sent).toBeLessThanOrEqual(4);
    }
  };

  harness.sim.setFaults({ seed: 5, rateLimitedNoRetryAfter: 1 });
  await pushRounds(harness.client, 4);
  expect(listJobs(harness.db).map((job) => [job.state, job.lastStatus])).toEqual(Array(4).fill(['queued', 429]));

  harness.sim.setFaults(null);
  const unreachable = createApiClient({ ...harness.config.api, baseUrl: 'http://127.0.0.1:1' }, harness.logger);
  await pushRounds(unreachable, 3);
  await unreachable.close();
  // None of those tries counted: a 5xx now would be the first attempt toward push.maxAttempts.
  expect(listJobs(harness.db).map((job) => [job.state, job.lastErrorCode, job.attempts])).toEqual(Array(4).fill(['queued', 'ECONNREFUSED', 0]));

  await pushUntilSettled(harness);
  expect(listJobs(harness.db).map((job) => job.state)).toEqual(Array(4).fill('succeeded'));
  const ledger = harness.sim.ledger();
  expect(ledger).toHaveLength(4);
  expect(new Set(ledger.map((entry) => JSON.stringify([entry.kind, entry.target, entry.body]))).size).toBe(4);
});
