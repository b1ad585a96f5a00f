// Records of any age (issue 25) on the bench mirror (the 'large' preset: 100,000 orders, 900,000 activities,
// 1,000,000 transactions): what a deep refresh costs against the pages of the streams it reads, and against
// the time the rate limit allows; and how many requests a plain sync spends re-reading the activities a
// day's transactions signalled (approvals after the pending period, voids).
// Run after `npm run build`: node bench/deep.bench.mjs (or BENCH=deep npm run bench)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulatorChild } from './simulatorChild.mjs';

const PAGE = 500;
const TARGET_REQUESTS = 1.1;
const TARGET_TIME = 1.15;

const { loadConfig } = await import('../dist/config.js');
const { createLogger } = await import('../dist/log.js');
const { createApiClient } = await import('../dist/api/client.js');
const { openDatabase } = await import('../dist/db/open.js');
const { runSync } = await import('../dist/sync/index.js');

const sim = await startSimulatorChild('large');
const dir = mkdtempSync(join(tmpdir(), 'loyalty-deep-bench-'));
const logger = createLogger({ level: 'warn' });
const n = (value) => Math.round(value).toLocaleString('en-US');
try {
  const env = { LOYALTY_BASE_URL: sim.url, LOYALTY_API_KEY: sim.key, LOYALTY_DB: join(dir, 'mirror.db'), LOG_LEVEL: 'warn' };
  const unlimited = loadConfig({ env, overrides: { api: { requestsPerSecond: 1_000_000, burst: 1_000 } } });
  // The shipped rate limit (api.requestsPerSecond, api.burst) paces the deep refresh, as in production.
  const paced = loadConfig({ env });
  const db = openDatabase(unlimited.db.path);
  const sync = async (config, options) => {
    const client = createApiClient(config.api, logger);
    const started = performance.now();
    try {
      const report = await runSync({ db, client, config, logger, ...options });
      if (!report.ok) throw new Error(`sync failed: ${JSON.stringify(report.streams)}`);
      return { report, requests: client.stats.requests, seconds: (performance.now() - started) / 1000 };
    } finally {
      await client.close();
    }
  };
  const streams = ['orders', 'activities', 'transactions'];
  const first = await sync(unlimited, { streams });
  console.log(`deep bench: first sync of ${streams.join(', ')}: ${n(first.report.streams.reduce((sum, s) => sum + s.rowsRead, 0))} rows in ${first.seconds.toFixed(1)} s`);

  const deep = await sync(paced, { streams: ['orders', 'activities'], deep: true });
  const rows = deep.report.streams.reduce((sum, s) => sum + (s.deep?.rows ?? 0), 0);
  const pages = deep.report.streams.reduce((sum, s) => sum + Math.max(1, Math.ceil((s.deep?.rows ?? 0) / PAGE)), 0);
  const regular = deep.requests - deep.report.streams.reduce((sum, s) => sum + (s.deep?.pages ?? 0), 0);
  const allowed = Math.max(0, deep.requests - paced.api.burst) / paced.api.requestsPerSecond;
  const requestRatio = deep.requests / pages;
  const timeRatio = deep.seconds / allowed;
  console.log(`deep bench: deep refresh       ${n(rows)} orders and activities, ${n(deep.requests)} requests (${n(regular)} of them the regular passes) for ${n(pages)} pages of ${PAGE}: ${requestRatio.toFixed(3)}x (target <= ${TARGET_REQUESTS}x)`);
  console.log(`deep bench: deep refresh time  ${deep.seconds.toFixed(1)} s at ${paced.api.requestsPerSecond} requests/s (burst ${paced.api.burst}), where the rate limit allows ${allowed.toFixed(1)} s: ${timeRatio.toFixed(3)}x (target <= ${TARGET_TIME}x)`);

  // A day of the program: 24 simulated hours of approvals, voids, refunds and new rows.
  const ticked = await fetch(`${sim.url}/__sim/tick`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ steps: 24 }) });
  if (!ticked.ok) throw new Error(`tick failed: ${ticked.status}`);
  const seqBefore = db.prepare('SELECT value FROM change_counter').pluck().get();
  const day = await sync(unlimited, { streams });
  const activities = day.report.streams.find((s) => s.stream === 'activities');
  const transactions = day.report.streams.find((s) => s.stream === 'transactions');
  const signalled = activities.signalled ?? { rows: 0, pages: 0 };
  // Decisions of activities made before the day: what the signals are for (the day's own activities come with their transactions).
  const decided = db
    .prepare(
      `SELECT count(DISTINCT t.activity_id) FROM transactions t JOIN activities a ON a.id = t.activity_id
       WHERE t._change_seq > @seq AND t.activity_state <> 'pending' AND a.created_at < (SELECT min(created_at) FROM transactions WHERE _change_seq > @seq)`,
    )
    .pluck()
    .get({ seq: seqBefore });
  const wholeRead = Math.ceil(db.prepare('SELECT count(*) FROM activities').pluck().get() / PAGE);
  console.log(`deep bench: a day's signals    ${n(transactions.inserted)} new transactions decided ${n(decided)} older activities; the plain sync re-read ${n(signalled.rows)} activities in ${n(signalled.pages)} requests (${(decided / Math.max(1, signalled.pages)).toFixed(1)} decisions a request; a whole read of the activities is ${n(wholeRead)} pages), of ${n(day.requests)} requests in all`);
  db.close();
  if (requestRatio > TARGET_REQUESTS || timeRatio > TARGET_TIME) {
    console.log('deep bench: above target');
    process.exitCode = 1;
  }
} finally {
  sim.stop();
  rmSync(dir, { recursive: true, force: true });
}
