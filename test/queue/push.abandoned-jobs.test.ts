import { hostname } from 'node:os';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { listJobs } from '../../src/queue/listJobs.js';
import { pushDueJobs } from '../../src/queue/push/pushDueJobs.js';
import { mirrorCustomers, queue, startHarness, usableCustomers, type Harness } from './helpers.js';

// A push killed after claiming a job, before its request left: the next push finds the job `running` under a
// worker that is gone. The write never reached the API, and nothing else may pass for it or hold it.

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

const HOUR = 3_600_000;

/** Marks the job claimed `ago` ms before the push's clock by `worker`, as a push killed before sending leaves it. */
function claimedBy(jobId: number, worker: string, ago: number): void {
  const at = new Date(h.now().getTime() - ago).toISOString();
  h.db
    .prepare(`UPDATE write_jobs SET state = 'running', attempts = 1, first_attempt_at = @at, locked_at = @at, locked_by = @worker, updated_at = @at WHERE id = @id`)
    .run({ id: jobId, at, worker });
}

const credits = (reason: string): number => h.sim.ledger().filter((entry) => entry.kind === 'add_points' && (entry.body as { reason?: unknown }).reason === reason).length;

test("a job abandoned hours ago is not proved by a same-value credit made since by someone else: it stays unknown", async () => {
  const [customer] = usableCustomers(h.sim);
  mirrorCustomers(h.db, [customer]);
  const job = queue(h, 'add_points', { customer_merchant_id: customer.merchant_id, points: '100', reason: 'Birthday bonus' });
  claimedBy(job.id, 'otherhost:123:abcdef12', 2 * HOUR);
  // Meanwhile the program itself credits the same points for the same reason.
  await h.client.addPoints(customer.merchant_id, { points: 100, reason: 'Birthday bonus' });
  expect(credits('Birthday bonus')).toBe(1);

  const report = await pushDueJobs({ db: h.db, client: h.client, config: h.config, logger: h.logger, now: h.now });
  expect(report).toMatchObject({ recovered: 1, reconciled: 0, sent: 0 });
  expect(listJobs(h.db).map((j) => j.state)).toEqual(['unknown']);
  expect(credits('Birthday bonus')).toBe(1);
});

test('a job abandoned days ago under a pid now alive on this host is recovered, and the jobs behind it go out', async () => {
  const [customer] = usableCustomers(h.sim);
  mirrorCustomers(h.db, [customer]);
  const stuck = queue(h, 'add_points', { customer_merchant_id: customer.merchant_id, points: '7', reason: 'stuck under a reused pid' });
  queue(h, 'add_points', { customer_merchant_id: customer.merchant_id, points: '8', reason: 'queued behind it' });
  // pid 1 is always alive: a reboot or a wrap-around gave the dead push's pid to another process.
  claimedBy(stuck.id, `${hostname()}:1:abcdef12`, 3 * 24 * HOUR);

  const report = await pushDueJobs({ db: h.db, client: h.client, config: h.config, logger: h.logger, now: h.now });
  expect(report).toMatchObject({ recovered: 1, sent: 1, succeeded: 1 });
  expect(listJobs(h.db).map((j) => j.state)).toEqual(['unknown', 'succeeded']);
  expect(credits('queued behind it')).toBe(1);
  expect(credits('stuck under a reused pid')).toBe(0);
});
