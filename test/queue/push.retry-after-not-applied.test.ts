import { afterEach, beforeEach, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { listJobs } from '../../src/queue/listJobs.js';
import { pushDueJobs } from '../../src/queue/push/pushDueJobs.js';
import { startRetryAfterProxy, type RetryAfterProxy } from '../helpers/retryAfterProxy.js';
import { pushUntilSettled, queue, startHarness, usableCustomers, type Harness } from './helpers.js';

const MAX_DELAY_MS = 1000;
const TEN_YEARS_SECONDS = 315_360_000;

let h: Harness;
let proxy: RetryAfterProxy;
/** The harness, but talking to the API through the proxy. */
let proxied: Harness;
beforeEach(async () => {
  h = await startHarness({ sim: { size: 'tiny' }, api: { retry: { attempts: 10, minDelayMs: 2, maxDelayMs: MAX_DELAY_MS, maxElapsedMs: 30_000 } } });
  proxy = await startRetryAfterProxy({ target: h.sim.url, retryAfter: '', throttles: ({ method }) => method === 'POST' });
  const config = { ...h.config, api: { ...h.config.api, baseUrl: proxy.url } };
  proxied = { ...h, config, client: createApiClient(config.api, h.logger) };
});
afterEach(async () => {
  await proxied.client.close();
  await proxy.close();
  await h.close();
});

function queuePoints(): number {
  const customer = usableCustomers(h.sim)[0];
  return queue(h, 'add_points', { customer_merchant_id: customer.merchant_id, points: '25', reason: 'retry-after' }).id;
}

it.each([
  ['ten years in seconds', String(TEN_YEARS_SECONDS)],
  ['a number past any date', '99999999999999999999'],
  ['an HTTP date ten years ahead', new Date(Date.now() + TEN_YEARS_SECONDS * 1000).toUTCString()],
])('a 429 with Retry-After %s leaves a points job queued, due after api.retry.maxDelayMs, and it lands once later', async (_name, retryAfter) => {
  proxy.retryAfter = retryAfter;
  const id = queuePoints();

  const report = await pushDueJobs({ db: h.db, client: proxied.client, config: proxied.config, logger: h.logger, now: h.now });
  expect(report).toMatchObject({ sent: 1, retried: 1, unknown: 0, dead: 0 });
  const [job] = listJobs(h.db);
  expect(job).toMatchObject({ id, state: 'queued', attempts: 0, lastStatus: 429 });
  // Due again after at most the capped delay (and the push backoff, here 20 ms), not in ten years.
  expect(Date.parse(job.nextAttemptAt) - Date.parse(job.updatedAt)).toBeLessThanOrEqual(MAX_DELAY_MS);

  proxy.throttles = () => false;
  await pushUntilSettled(proxied);
  expect(listJobs(h.db).map((j) => j.state)).toEqual(['succeeded']);
  expect(h.sim.ledger()).toHaveLength(1);
});

it('a local failure while recording a 429 leaves the job queued, not unknown at the next push', async () => {
  proxy.retryAfter = '1';
  const id = queuePoints();
  // The database refuses the write that records the 429 (a full disk, a bug): the answer is known all the same.
  h.db.exec(`CREATE TEMP TRIGGER refuse_recording BEFORE UPDATE OF last_status ON write_jobs WHEN NEW.last_status = 429
             BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`);

  await expect(pushDueJobs({ db: h.db, client: proxied.client, config: proxied.config, logger: h.logger, now: h.now })).rejects.toThrow('disk I/O error');
  expect(listJobs(h.db)).toMatchObject([{ id, state: 'queued', attempts: 0 }]);

  h.db.exec('DROP TRIGGER refuse_recording');
  proxy.throttles = () => false;
  const report = await pushUntilSettled(proxied);
  expect(report.recovered + report.unknown).toBe(0);
  expect(listJobs(h.db).map((j) => j.state)).toEqual(['succeeded']);
  expect(h.sim.ledger()).toHaveLength(1);
});
