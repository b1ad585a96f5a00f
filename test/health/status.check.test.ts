import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import type { HealthFinding } from '../../src/health/checkHealth.js';
import type { DeepRefreshStatus } from '../../src/sync/deepRefreshStatus.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tempDir.js';

const HOUR_MS = 3_600_000;

describe('status --check', () => {
  const dir = tempDir('loyalty-health-');
  const dbPath = join(dir, 'mirror.db');
  let sim: SimulatorHandle;
  let env: Record<string, string>;

  /** Changes the mirror the way time or a failure would have (the test cannot wait hours). */
  const edit = (sql: string, ...params: unknown[]): void => {
    const db = openDatabase(dbPath);
    try {
      db.prepare(sql).run(...params);
    } finally {
      db.close();
    }
  };
  const hoursAgo = (hours: number): string => new Date(Date.now() - hours * HOUR_MS).toISOString();
  const check = async (): Promise<{ code: number | null; lines: string[] }> => {
    const result = await runCli(['status', '--check'], { env });
    expect(result.stderr).toBe('');
    return { code: result.code, lines: result.stdout.trim().split('\n') };
  };

  beforeAll(async () => {
    sim = await startSimulator({ seed: 31, size: 'tiny' });
    env = { LOYALTY_BASE_URL: sim.url, LOYALTY_API_KEY: sim.keys.full, LOYALTY_DB: dbPath, LOYALTY_EXPORT_DIR: join(dir, 'exports') };
    const sync = await runCli(['sync'], { env });
    expect(sync.code, sync.stderr).toBe(0);
  });
  afterAll(async () => sim.close());

  it('a freshly synced mirror is healthy: exit 0 and one line, which says there is no export yet', async () => {
    expect(await check()).toEqual({ code: 0, lines: ['healthy: streams synced, no dead or long-unknown jobs, no export yet, deep refreshes on time'] });
  });

  it('a mirror that never exported fails only where exports are configured and due: a target is set and the mirror first synced over health.maxExportAgeHours ago', async () => {
    const withTarget = { ...env, LOYALTY_EXPORT_URL: 's3://analytics-exports/daily' };
    const checkWith = async (environment: Record<string, string>) => {
      const result = await runCli(['status', '--check'], { env: environment });
      expect(result.stderr).toBe('');
      return { code: result.code, lines: result.stdout.trim().split('\n') };
    };
    // Configured but not due yet: the mirror synced minutes ago.
    expect(await checkWith(withTarget)).toEqual({ code: 0, lines: ['healthy: streams synced, no dead or long-unknown jobs, no export to s3://analytics-exports/daily yet, deep refreshes on time'] });

    const firstSync = (db: ReturnType<typeof openDatabase>) => db.prepare(`SELECT min(finished_at) FROM sync_runs WHERE status = 'succeeded'`).pluck().get() as string;
    const db = openDatabase(dbPath);
    const synced = firstSync(db);
    db.close();
    const longAgo = hoursAgo(30);
    edit(`UPDATE sync_runs SET finished_at = ? WHERE finished_at = ?`, longAgo, synced);
    try {
      // Without a target and without any export ever, this is a sync-only mirror: nothing is due.
      expect(await check()).toEqual({ code: 0, lines: ['healthy: streams synced, no dead or long-unknown jobs, no export yet, deep refreshes on time'] });
      expect(await checkWith(withTarget)).toEqual({
        code: 1,
        lines: ['stale export: no full export of csv, parquet to s3://analytics-exports/daily yet, and the mirror first synced 30h 0m ago (limit 26h)'],
      });
    } finally {
      edit(`UPDATE sync_runs SET finished_at = ? WHERE finished_at = ?`, synced, longAgo);
    }
  });

  it('a mirror never synced: exit 1, one finding per configured stream', async () => {
    // status reads only a mirror that exists; a queue command creates one that has never synced.
    const queued = await runCli(['queue', 'add-points', '--customer', 'c-1', '--points', '1', '--reason', 'r'], { env: { ...env, LOYALTY_DB: join(dir, 'empty.db') } });
    expect(queued.code, queued.stderr).toBe(0);
    const result = await runCli(['status', '--check'], { env: { ...env, LOYALTY_DB: join(dir, 'empty.db') } });
    expect(result.code).toBe(1);
    expect(result.stdout.trim().split('\n')).toEqual(['customers', 'orders', 'activities', 'transactions', 'unsubscribes'].map((stream) => `stale sync: ${stream} has never synced successfully`));
  });

  it('a stream whose last success is older than health.maxSyncAgeMinutes: exit 1, naming it', async () => {
    edit(`UPDATE sync_state SET last_success_at = ? WHERE stream = 'orders'`, hoursAgo(2));
    expect(await check()).toEqual({ code: 1, lines: ['stale sync: orders last synced 2h 0m ago (limit 60m)'] });
    // Streams not configured for sync are not checked.
    const file = join(dir, 'no-orders.json');
    (await import('node:fs')).writeFileSync(file, JSON.stringify({ sync: { streams: ['customers', 'activities', 'transactions', 'unsubscribes'] } }));
    expect((await runCli(['--config', file, 'status', '--check'], { env })).code).toBe(0);
    edit(`UPDATE sync_state SET last_success_at = ? WHERE stream = 'orders'`, new Date().toISOString());
  });

  it('a dead job: exit 1, naming its kind, id and the API answer', async () => {
    const queued = await runCli(['queue', 'add-points', '--customer', 'no-such-customer', '--points', '5', '--reason', 'health check test'], { env });
    expect(queued.code, queued.stderr).toBe(0);
    const pushed = await runCli(['push'], { env });
    expect(pushed.code, pushed.stderr).toBe(1);
    const { code, lines } = await check();
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    // The API's answer names its status once: "POST … failed: 404 …", not "404 POST … failed: 404 …".
    expect(lines[0]).toMatch(/^dead: 1 job \(add_points, job 1: POST \/v2\/customers\/no-such-customer\/points failed: 404 [^0-9]+\)$/);
    edit(`UPDATE write_jobs SET state = 'cancelled' WHERE id = 1`);
  });

  it('a job unknown for longer than health.maxUnknownAgeHours: exit 1; one unknown for less is no finding', async () => {
    const queued = await runCli(['queue', 'add-points', '--customer', 'another-customer', '--points', '7', '--reason', 'unknown test'], { env });
    expect(queued.code, queued.stderr).toBe(0);
    edit(`UPDATE write_jobs SET state = 'unknown', last_status = 503, last_error = 'Service unavailable', updated_at = ? WHERE id = 2`, hoursAgo(1));
    expect((await check()).code).toBe(0);
    edit(`UPDATE write_jobs SET updated_at = ? WHERE id = 2`, hoursAgo(30));
    expect(await check()).toEqual({ code: 1, lines: ['unknown for over 24h: 1 job (add_points, job 2: 503 Service unavailable)'] });
    edit(`UPDATE write_jobs SET state = 'cancelled' WHERE id = 2`);
  });

  it('exports that were tried and never succeeded: exit 1, naming the last error', async () => {
    expect((await check()).code).toBe(0);
    edit(
      `INSERT INTO export_runs (run_id, kind, status, pid, started_at, finished_at, formats, error) VALUES (?, 'full', 'failed', 1, ?, ?, 'parquet', ?)`,
      '20261101T000000Z-dead', hoursAgo(2), hoursAgo(2), 'encoding Parquet: Dyn casting error',
    );
    const { code, lines } = await check();
    expect(code).toBe(1);
    expect(lines).toEqual(['stale export: no export has ever succeeded (1 run failed; last error: encoding Parquet: Dyn casting error)']);
    edit(`DELETE FROM export_runs WHERE run_id = ?`, '20261101T000000Z-dead');
  });

  it('a deep refresh that has not completed for twice sync.deepRefreshIntervalHours: exit 1, naming the stream; status shows it', async () => {
    // Written as the sync records a deep refresh; after this test, one that completed just now.
    const deepRefresh = (stream: string, started: string, completed: string) =>
      edit(
        `INSERT INTO deep_refresh (stream, last_started_at, last_completed_at, last_removed, updated_at) VALUES (@stream, @started, @completed, 3, @completed)
         ON CONFLICT (stream) DO UPDATE SET plan = NULL, pages = 0, rows = 0, started_at = NULL, last_started_at = @started, last_completed_at = @completed, last_removed = 3`,
        { stream, started, completed },
      );
    deepRefresh('orders', hoursAgo(48), hoursAgo(47));
    expect((await check()).code).toBe(0);
    deepRefresh('orders', hoursAgo(51), hoursAgo(50));
    expect(await check()).toEqual({ code: 1, lines: ['overdue deep refresh: orders last completed one 2d 2h ago (limit 48h, twice sync.deepRefreshIntervalHours)'] });
    // One under way for that long, with none ever completed, is overdue too.
    edit(
      `INSERT INTO deep_refresh (stream, plan, started_at, pages, rows, updated_at) VALUES ('activities', '{"params":{},"spans":[]}', @at, 40, 4000, @at)
       ON CONFLICT (stream) DO UPDATE SET plan = excluded.plan, started_at = @at, pages = 40, rows = 4000, last_started_at = NULL, last_completed_at = NULL`,
      { at: hoursAgo(60) },
    );
    expect((await check()).lines).toEqual([
      'overdue deep refresh: orders last completed one 2d 2h ago (limit 48h, twice sync.deepRefreshIntervalHours)',
      'overdue deep refresh: activities has never completed one, and the one under way began 2d 12h ago (limit 48h, twice sync.deepRefreshIntervalHours)',
    ]);

    const json = await runCli(['status', '--json'], { env });
    const [orders, activities] = (JSON.parse(json.stdout) as { deepRefresh: DeepRefreshStatus[] }).deepRefresh;
    expect(orders).toMatchObject({ stream: 'orders', last: { removed: 3 }, underWay: null, overdue: true, lastError: null });
    // The next is due a day (sync.deepRefreshIntervalHours) after the last began.
    expect(orders.dueAt).toBe(new Date(Date.parse(orders.last!.startedAt) + 24 * HOUR_MS).toISOString());
    expect(activities).toMatchObject({ stream: 'activities', last: null, underWay: { pages: 40, rows: 4000 }, dueAt: null, overdue: true });
    const text = await runCli(['status'], { env });
    expect(text.stdout).toMatch(/\nDeep refresh\nstream +last started +completed +removed +under way +next due\norders +\S+ +\S+ +3 +- +\S+ \(OVERDUE\)\nactivities +never +- +- +40 pages, 4000 rows since \S+ +continues at the next sync \(OVERDUE\)\n/);

    const now = new Date().toISOString();
    for (const stream of ['orders', 'activities']) deepRefresh(stream, now, now);
    expect((await check()).code).toBe(0);
  });

  it('an export older than health.maxExportAgeHours: exit 1; --json gives the findings as a list', async () => {
    // A one-table CSV export is not the export the config asks for (every stream table, CSV and Parquet).
    const partial = await runCli(['export', '--format', 'csv', '--table', 'customers'], { env });
    expect(partial.code, partial.stderr).toBe(0);
    expect(await check()).toEqual({ code: 0, lines: ['healthy: streams synced, no dead or long-unknown jobs, no export yet, deep refreshes on time'] });
    const exported = await runCli(['export'], { env });
    expect(exported.code, exported.stderr).toBe(0);
    expect(await check()).toEqual({ code: 0, lines: ['healthy: streams synced, no dead or long-unknown jobs, exports current, deep refreshes on time'] });
    edit(`UPDATE export_runs SET finished_at = ?`, hoursAgo(30));
    const { code, lines } = await check();
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^stale export: the last export \(\d{8}T\d{6}Z-[0-9a-f]{4}\) finished 30h 0m ago \(limit 26h\)$/);

    const json = await runCli(['status', '--check', '--json'], { env });
    expect(json.code).toBe(1);
    const findings = JSON.parse(json.stdout) as HealthFinding[];
    expect(findings.map((finding) => finding.kind)).toEqual(['stale_export']);
    expect(findings[0].ageSeconds).toBeGreaterThanOrEqual(30 * 3600);
  });
});
