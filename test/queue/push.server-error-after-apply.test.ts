import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { createApiClient, type ApiClient } from '../../src/api/client.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Db } from '../../src/db/open.js';
import { createLogger } from '../../src/log.js';
import { getJob } from '../../src/queue/getJob.js';
import { pushDueJobs } from '../../src/queue/push/pushDueJobs.js';
import { json, scriptedServer, stall, type Responder, type ScriptedServer } from '../api/helpers.js';
import { queue } from './helpers.js';

let server: ScriptedServer | undefined;
let client: ApiClient | undefined;
let db: Db | undefined;
let dir: string | undefined;
afterEach(async () => {
  await client?.close();
  db?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = client = db = dir = undefined;
});

/** A gateway that answers 502 with an HTML page after the app behind it applied the write. */
const badGateway: Responder = (_req, res) => {
  res.writeHead(502, { 'content-type': 'text/html' });
  res.end('<html><body>502 Bad Gateway</body></html>');
};

async function setup(responders: Responder[], requestTimeoutMs = 30_000) {
  server = await scriptedServer(responders);
  dir = mkdtempSync(join(tmpdir(), 'queue-5xx-'));
  const config = loadConfig({
    env: { LOYALTY_API_KEY: 'sk_test_server_error_0123', LOYALTY_BASE_URL: server.url, LOYALTY_DB: join(dir, 'mirror.db'), LOG_LEVEL: 'silent' },
    overrides: {
      push: { concurrency: 1, maxAttempts: 5, backoffBaseMs: 1, backoffMaxMs: 1 },
      api: { requestsPerSecond: 2000, burst: 50, slowdownAfter429Ms: 0, requestTimeoutMs, retry: { attempts: 3, minDelayMs: 1, maxDelayMs: 2, maxElapsedMs: 5_000 } },
    },
  });
  const logger = createLogger({ level: 'silent' });
  db = openDatabase(config.db.path);
  client = createApiClient(config.api, logger);
  const now = () => new Date();
  const push = (signal?: AbortSignal) => pushDueJobs({ db: db as Db, client: client as ApiClient, config, logger, now, signal });
  return { db, push, now };
}

test('points answered 5xx are never sent again: the job becomes unknown, not queued for a resend', async () => {
  const { db, push, now } = await setup([badGateway, json(201, '')]);
  const job = queue({ db, now }, 'add_points', { customer_merchant_id: 'c-1', points: '10', reason: 'welcome' });
  await push();
  await new Promise((resolve) => setTimeout(resolve, 20));
  await push();
  const posts = server!.requests.filter((r) => r.method === 'POST');
  expect(posts).toHaveLength(1);
  expect(getJob(db, job.id)).toMatchObject({ state: 'unknown', lastStatus: 502, inDoubt: true });
});

test('an order answered 5xx is looked up by merchant_id before any resend', async () => {
  const order = { merchant_id: 'o-1', payment_status: 'paid' };
  const { db, push, now } = await setup([badGateway, json(200, order)]);
  const job = queue({ db, now }, 'create_order', {
    merchant_id: 'o-1', customer_id: 'c-1', customer_email: 'a@example.com', total: '1.00', total_shipping: '0.00', total_paid: '1.00', payment_status: 'paid',
  });
  for (let run = 0; run < 3; run++) {
    await push();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(server!.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /v2/orders', 'GET /v2/orders/o-1']);
  expect(getJob(db, job.id)).toMatchObject({ state: 'succeeded' });
});

test('an order refused as a duplicate on resend, while its lookup still answers 404, is unknown and found later, never dead', async () => {
  const order = { merchant_id: 'o-2', payment_status: 'paid' };
  const notFound = json(404, { error: { message: 'Order not found' } });
  const duplicate = json(422, { error: { message: 'An order with merchant_id "o-2" already exists.', code: 'duplicate_order' } });
  // Applied, answered 502; then listed late: the lookup before the resend and the one after its refusal find nothing.
  const { db, push, now } = await setup([badGateway, notFound, duplicate, notFound, json(200, order)]);
  const job = queue({ db, now }, 'create_order', {
    merchant_id: 'o-2', customer_id: 'c-1', customer_email: 'a@example.com', total: '1.00', total_shipping: '0.00', total_paid: '1.00', payment_status: 'paid',
  });
  const reports = [];
  for (let run = 0; run < 2; run++) {
    reports.push(await push());
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(reports.map((report) => report.dead)).toEqual([0, 0]);
  expect(getJob(db, job.id)).toMatchObject({ state: 'unknown' });
  // The next push looks again, and the order is there.
  await new Promise((resolve) => setTimeout(resolve, 20));
  await push();
  expect(server!.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /v2/orders', 'GET /v2/orders/o-2', 'POST /v2/orders', 'GET /v2/orders/o-2', 'GET /v2/orders/o-2']);
  expect(getJob(db, job.id)).toMatchObject({ state: 'succeeded' });
});

test('a look-up of an unknown job that the API keeps rate limiting ends the look-ups of this push: the others wait for the next', async () => {
  const limited = json(429, { error: { code: 'rate_limited', message: 'Too many requests' } }, { 'retry-after': '1' });
  const { db, push, now } = await setup([limited]);
  const jobs = [1, 2, 3].map((i) => {
    db.prepare(`INSERT INTO customers (id, merchant_id, email, raw, _synced_at, _change_seq) VALUES (?, ?, ?, '{}', ?, 0)`).run(i, `c-${i}`, `c${i}@example.com`, now().toISOString());
    const job = queue({ db, now }, 'add_points', { customer_merchant_id: `c-${i}`, points: '10', reason: `storm ${i}` });
    db.prepare(`UPDATE write_jobs SET state = 'unknown', attempts = 1, in_doubt = 1, first_attempt_at = ?, updated_at = ? WHERE id = ?`).run(now().toISOString(), now().toISOString(), job.id);
    return job;
  });
  const report = await push();
  expect(report).toMatchObject({ reconciled: 0, sent: 0 });
  // One look-up, with the client's retries (3): not one for each unknown job.
  expect(server!.requests).toHaveLength(4);
  expect(jobs.map((job) => getJob(db, job.id)?.state)).toEqual(['unknown', 'unknown', 'unknown']);
  expect(jobs.map((job) => getJob(db, job.id)?.checkedAt ?? null)).toEqual([null, null, null]);
});

test("a push stopped while it looks up an unknown job abandons the read at once: a look-up is a read, safe to drop", async () => {
  // The API never answers, and a request would wait ten minutes for it.
  const { db, push, now } = await setup([stall], 600_000);
  db.prepare(`INSERT INTO customers (id, merchant_id, email, raw, _synced_at, _change_seq) VALUES (1, 'c-1', 'c1@example.com', '{}', ?, 0)`).run(now().toISOString());
  const job = queue({ db, now }, 'add_points', { customer_merchant_id: 'c-1', points: '10', reason: 'stopped' });
  db.prepare(`UPDATE write_jobs SET state = 'unknown', attempts = 1, in_doubt = 1, first_attempt_at = ?, updated_at = ? WHERE id = ?`).run(now().toISOString(), now().toISOString(), job.id);
  const stop = new AbortController();
  const pushed = push(stop.signal);
  while (server!.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  stop.abort(new Error('received SIGTERM'));
  expect(await pushed).toMatchObject({ reconciled: 0, sent: 0 });
  expect(server!.requests).toHaveLength(1);
  expect(getJob(db, job.id)).toMatchObject({ state: 'unknown', checkedAt: null });
});

test('an order refused on resend for a reason no duplicate gives (403: a missing scope) is dead, not unknown', async () => {
  const notFound = json(404, { error: { message: 'Order not found' } });
  const forbidden = json(403, { error: { message: 'This key may not create orders', code: 'forbidden' } });
  const { db, push, now } = await setup([badGateway, notFound, forbidden, notFound]);
  const job = queue({ db, now }, 'create_order', {
    merchant_id: 'o-3', customer_id: 'c-1', customer_email: 'a@example.com', total: '1.00', total_shipping: '0.00', total_paid: '1.00', payment_status: 'paid',
  });
  const reports = [];
  for (let run = 0; run < 2; run++) {
    reports.push(await push());
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(reports.map((report) => report.dead)).toEqual([0, 1]);
  expect(getJob(db, job.id)).toMatchObject({ state: 'dead', lastStatus: 403 });
});
