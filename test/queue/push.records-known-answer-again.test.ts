import { afterEach, beforeEach, expect, test } from 'vitest';
import { getJob } from '../../src/queue/getJob.js';
import { pushDueJobs } from '../../src/queue/push/pushDueJobs.js';
import { queue, startHarness, usableCustomers, type Harness } from './helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ sim: { size: 'tiny' } });
});
afterEach(() => h.close());

/**
 * Makes the mirror refuse the first change of a job to `state`, as a disk failing for a moment would: a
 * trigger fails that update once (RAISE(FAIL) keeps its own change, the disarming) and lets later ones through.
 */
function failFirstRecording(state: string): void {
  h.db.exec(`
    CREATE TABLE test_fault (armed INTEGER NOT NULL);
    INSERT INTO test_fault VALUES (1);
    CREATE TRIGGER test_fault_once BEFORE UPDATE OF state ON write_jobs
    WHEN NEW.state = '${state}' AND (SELECT armed FROM test_fault) = 1
    BEGIN
      UPDATE test_fault SET armed = 0;
      SELECT RAISE(FAIL, 'disk I/O error (a test fault)');
    END;
  `);
}

const push = () => pushDueJobs({ db: h.db, client: h.client, config: h.config, logger: h.logger, now: h.now });

test('a write the API applied, whose success the mirror failed to record, is recorded succeeded again: the push fails, the job is not left running', async () => {
  const [customer] = usableCustomers(h.sim);
  const job = queue(h, 'add_points', { customer_merchant_id: customer.merchant_id, points: '10', reason: 'welcome' });
  failFirstRecording('succeeded');

  await expect(push()).rejects.toThrow('disk I/O error (a test fault)');

  expect(getJob(h.db, job.id)).toMatchObject({ state: 'succeeded', inDoubt: false });
  expect(h.sim.ledger().map((entry) => [entry.kind, entry.target])).toEqual([['add_points', customer.merchant_id]]);
  // Nothing is left to send or to prove.
  expect(await push()).toMatchObject({ sent: 0, unknown: 0, recovered: 0 });
});

test('a write the API refused, whose failure the mirror failed to record, goes back to the queue, not to unknown', async () => {
  const job = queue(h, 'add_points', { customer_merchant_id: 'no-such-customer', points: '10', reason: 'welcome' });
  failFirstRecording('dead');

  await expect(push()).rejects.toThrow('disk I/O error (a test fault)');

  // As if never claimed: the refusal proved nothing landed, so the next push asks again.
  expect(getJob(h.db, job.id)).toMatchObject({ state: 'queued', attempts: 0, inDoubt: false });
  expect(await push()).toMatchObject({ sent: 1, dead: 1, unknown: 0 });
  expect(getJob(h.db, job.id)).toMatchObject({ state: 'dead', lastStatus: 404 });
  expect(h.sim.ledger()).toEqual([]);
});
