import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, onTestFailed, onTestFinished } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { completeDeepRefresh, loadDeepRefresh, saveDeepRefresh } from '../../src/sync/deepRefreshState.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { alertsFiring } from '../helpers/alerts.js';
import { runCli } from '../helpers/cli.js';
import { parseSamples, promtool, sumOf, type Sample } from '../helpers/exposition.js';
import { startCli } from '../helpers/process.js';
import { tempDir } from '../helpers/tempDir.js';

const STREAMS = ['activities', 'customers', 'orders', 'transactions', 'unsubscribes'];
const KINDS = ['add_points', 'update_review', 'delete_review', 'create_order', 'claim_reward'];
const MINUTE = 60;
const HOUR = 60 * MINUTE;
/** Never within a test: `run` only starts, serves and reads the mirror. */
const NEVER = '0 0 1 1 *';

let sim: SimulatorHandle;
beforeAll(async () => {
  sim = await startSimulator({ seed: 23, size: 'tiny' });
});
afterAll(async () => sim.close());

function envFor(dir: string): Record<string, string> {
  return { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports') };
}

/** Starts `run` with every job off schedule, and returns what its /metrics serves once the mirror is open. */
async function scrapeAtStart(dir: string): Promise<{ text: string; samples: Sample[]; scrapedAt: Date }> {
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ schedule: { sync: NEVER, refresh: NEVER, push: NEVER, export: NEVER, verify: NEVER } }));
  const proc = startCli(['--config', configFile, 'run', '--metrics-listen', '127.0.0.1:0'], envFor(dir));
  onTestFinished(() => {
    if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
  });
  onTestFailed(() => console.error(`stderr: ${proc.stderr()}\nlast log records: ${JSON.stringify(proc.lines.slice(-10))}`));
  const serving = await proc.waitForLine((line) => typeof line.msg === 'string' && line.msg.startsWith('serving /metrics'));
  const base = `http://127.0.0.1:${String(serving.port)}`;
  // /readyz answers 200 once the mirror is open, which is when what it remembers is read.
  while ((await fetch(`${base}/readyz`)).status !== 200) await sleep(50);
  const scrapedAt = new Date();
  const text = await (await fetch(`${base}/metrics`)).text();
  proc.child.kill('SIGTERM');
  expect((await proc.exited).code).toBe(0);
  const lint = await promtool(['check', 'metrics'], text);
  expect(lint.output).toBe('');
  expect(lint.code).toBe(0);
  return { text, samples: parseSamples(text), scrapedAt };
}

describe('run --metrics-listen, right after it starts', () => {
  it('a restart of a healthy instance: the last sync and export come from the mirror, and no alert fires until they age', async () => {
    const dir = tempDir('loyalty-restart-');
    const once = await runCli(['once'], { env: envFor(dir) });
    expect(once.code, once.stderr).toBe(0);
    const db = openDatabase(join(dir, 'mirror.db'), { readonly: true });
    const synced = db.prepare('SELECT stream, last_success_at AS at FROM sync_state ORDER BY stream').all() as Array<{ stream: string; at: string }>;
    const exported = db.prepare(`SELECT max(finished_at) FROM export_runs WHERE status = 'succeeded'`).pluck().get() as string;
    db.close();

    const { samples, scrapedAt } = await scrapeAtStart(dir);
    expect(synced.map((row) => row.stream)).toEqual(STREAMS);
    for (const { stream, at } of synced) expect(sumOf(samples, 'loyalty_sync_last_success_timestamp_seconds', { stream }), stream).toBe(Date.parse(at) / 1000);
    expect(sumOf(samples, 'loyalty_export_last_success_timestamp_seconds')).toBe(Date.parse(exported) / 1000);
    // No job is unknown: no sample, rather than a 0 that reads as a job unknown since 1970.
    expect(samples.filter((sample) => sample.name === 'loyalty_queue_oldest_unknown_timestamp_seconds')).toEqual([]);

    expect(await alertsFiring(samples, scrapedAt, 50 * MINUTE)).toEqual([]);
    // The times are the real ones: an hour without a sync still pages.
    expect(await alertsFiring(samples, scrapedAt, 2 * HOUR)).toEqual(STREAMS.map((stream) => `LoyaltySyncStale{stream="${stream}"}`));
  });

  it('a fresh instance: every counter with known labels is served at 0, no success time is made up, and one that never succeeds still pages', async () => {
    const { text, samples, scrapedAt } = await scrapeAtStart(tempDir('loyalty-fresh-'));
    const series = (name: string) => samples.filter((sample) => sample.name === name);

    expect(series('loyalty_push_jobs_total').map((s) => `${s.labels.kind}/${s.labels.outcome}=${s.value}`).sort()).toEqual(
      KINDS.flatMap((kind) => ['succeeded', 'dead', 'unknown', 'retried'].map((outcome) => `${kind}/${outcome}=0`)).sort(),
    );
    expect(series('loyalty_sync_runs_total').map((s) => `${s.labels.stream}/${s.labels.outcome}=${s.value}`).sort()).toEqual(
      STREAMS.flatMap((stream) => ['failed', 'succeeded'].map((outcome) => `${stream}/${outcome}=0`)),
    );
    expect(series('loyalty_sync_rows_total').map((s) => `${s.labels.stream}/${s.labels.change}=${s.value}`).sort()).toEqual(
      STREAMS.flatMap((stream) => ['inserted', 'removed', 'updated'].map((change) => `${stream}/${change}=0`)),
    );
    // Every table a scheduled export writes: the streams and the points ledger's model tables.
    const exported = ['activities', 'customer_points_daily', 'customers', 'orders', 'points_ledger_daily', 'program_metrics_daily', 'transactions', 'unsubscribes'];
    for (const name of ['loyalty_export_rows_total', 'loyalty_export_bytes_total']) {
      expect(series(name).map((s) => `${s.labels.table}/${s.labels.format}=${s.value}`).sort(), name).toEqual(exported.flatMap((table) => ['csv', 'parquet'].map((format) => `${table}/${format}=0`)));
    }
    for (const name of [
      'loyalty_sync_last_success_timestamp_seconds',
      'loyalty_export_last_success_timestamp_seconds',
      'loyalty_queue_oldest_unknown_timestamp_seconds',
      'loyalty_verify_last_run_timestamp_seconds',
      'loyalty_deep_refresh_last_success_timestamp_seconds',
    ]) {
      expect(series(name), name).toEqual([]);
      expect(text, `${name} is still described`).toContain(`# TYPE ${name} gauge`);
    }

    expect(await alertsFiring(samples, scrapedAt, 30 * MINUTE)).toEqual([]);
    const neverSynced = STREAMS.map((stream) => `LoyaltySyncNeverSucceeded{stream="${stream}"}`);
    expect(await alertsFiring(samples, scrapedAt, HOUR + 10 * MINUTE)).toEqual(neverSynced);
    expect(await alertsFiring(samples, scrapedAt, 26 * HOUR + 10 * MINUTE)).toEqual(['LoyaltyExportNeverSucceeded', ...neverSynced]);
  });
});

describe('run --metrics-listen after a verify, with deep refreshes behind it', () => {
  it("reads the last verify's differences, time and result and each deep refresh's last success and progress from the mirror; a defect pages at once", async () => {
    const dir = tempDir('loyalty-verified-');
    const env = envFor(dir);
    const once = await runCli(['once'], { env });
    expect(once.code, once.stderr).toBe(0);
    const db = openDatabase(join(dir, 'mirror.db'));
    const now = new Date().toISOString();
    completeDeepRefresh(db, 'orders', { startedAt: now, removed: 0 }, now);
    saveDeepRefresh(db, 'activities', { plan: { params: {}, spans: [[1, 500]] }, cursor: 'next', startedAt: now, pages: 7, rows: 700 }, now);
    const damaged = db.prepare('SELECT min(id) FROM transactions').pluck().get() as number;
    db.prepare("UPDATE transactions SET raw = json_set(raw, '$.points_approved', 999999) WHERE id = ?").run(damaged);
    db.close();
    const verified = await runCli(['verify', '--full', '--stream', 'transactions'], { env });
    expect(verified.code).toBe(1);

    const { samples, scrapedAt } = await scrapeAtStart(dir);
    const mirror = openDatabase(join(dir, 'mirror.db'), { readonly: true });
    const finishedAt = mirror.prepare('SELECT finished_at FROM verify_runs ORDER BY id DESC LIMIT 1').pluck().get() as string;
    const deep = (['activities', 'orders'] as const).map((stream) => ({ stream, ...loadDeepRefresh(mirror, stream) }));
    mirror.close();
    const series = (name: string) => samples.filter((sample) => sample.name === name).map((sample) => `${Object.values(sample.labels).join('/')}=${sample.value}`).sort();
    expect(series('loyalty_verify_differences')).toEqual(['transactions/defect=1', 'transactions/pending=0']);
    expect(series('loyalty_verify_last_run_ok')).toEqual(['=0']);
    expect(series('loyalty_verify_last_run_timestamp_seconds')).toEqual([`=${Date.parse(finishedAt) / 1000}`]);
    expect(series('loyalty_deep_refresh_pages')).toEqual(deep.map((state) => `${state.stream}=${state.plan === null ? 0 : state.pages}`));
    expect(series('loyalty_deep_refresh_last_success_timestamp_seconds')).toEqual(
      deep.filter((state) => state.lastCompletedAt !== null).map((state) => `${state.stream}=${Date.parse(state.lastCompletedAt!) / 1000}`),
    );
    expect(series('loyalty_deep_refresh_pages')).toContain('activities=7');
    expect(series('loyalty_deep_refresh_last_success_timestamp_seconds')).toContain(`orders=${Date.parse(now) / 1000}`);
    // The one under way (activities') says when it began; orders has none under way.
    expect(series('loyalty_deep_refresh_started_timestamp_seconds')).toEqual([`activities=${Date.parse(now) / 1000}`]);

    // (LoyaltyDeepRefreshOverdue's hours are tested on their own, in test/deploy/prometheus.rules.test.ts.)
    expect(await alertsFiring(samples, scrapedAt, 50 * MINUTE)).toEqual(['LoyaltyVerifyDefects{stream="transactions"}']);
  });
});
