import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { openDatabase, type Db } from '../../src/db/open.js';
import { claimDueJobs } from '../../src/queue/claimDueJobs.js';
import { failJob } from '../../src/queue/failJob.js';
import { markUnknown } from '../../src/queue/markUnknown.js';
import { queue } from './helpers.js';

let dir: string;
let db: Db;
const t0 = new Date('2026-03-01T12:00:00Z');
const now = () => t0;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'queue-claim-'));
  db = openDatabase(join(dir, 'mirror.db'));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const points = (customer: string, reason: string) => queue({ db, now }, 'add_points', { customer_merchant_id: customer, points: '1', reason });

test('one job per customer or review at a time, in queue order; a job in backoff holds the later ones', () => {
  const a1 = points('A', 'a1');
  const a2 = points('A', 'a2');
  const b1 = points('B', 'b1');
  const order = queue({ db, now }, 'create_order', { merchant_id: 'O1', customer_id: 'A', customer_email: 'a@example.com', total: '1', total_shipping: '0', total_paid: '1', payment_status: 'paid' });
  const review = queue({ db, now }, 'delete_review', { platform: 'custom', merchant_id: 'r1' });

  const first = claimDueJobs(db, { workerId: 'w', limit: 10, now: t0 });
  expect(first.map((j) => j.id)).toEqual([a1.id, b1.id, review.id]);
  expect(claimDueJobs(db, { workerId: 'w', limit: 10, now: t0 })).toEqual([]);

  // a1 fails and waits a minute: a2 and A's order must wait behind it.
  failJob(db, { id: a1.id, workerId: 'w', status: 503, message: 'down', code: null, retryAt: new Date(t0.getTime() + 60_000), inDoubt: false, now: t0 });
  expect(claimDueJobs(db, { workerId: 'w', limit: 10, now: t0 })).toEqual([]);
  expect(claimDueJobs(db, { workerId: 'w', limit: 10, now: new Date(t0.getTime() + 60_000) }).map((j) => j.id)).toEqual([a1.id]);

  // An unknown outcome does not hold the customer's later jobs: it waits for a person, not for the queue.
  markUnknown(db, { id: a1.id, workerId: 'w', status: null, message: 'lost', code: null, now: t0 });
  expect(claimDueJobs(db, { workerId: 'w', limit: 10, now: t0 }).map((j) => j.id)).toEqual([a2.id]);
  expect(order.orderingKey).toBe('customer:A');
});
