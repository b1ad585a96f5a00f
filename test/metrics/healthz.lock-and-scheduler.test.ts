import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { createLogger } from '../../src/log.js';
import { createHealth, type Health } from '../../src/metrics/health.js';
import { createMetrics } from '../../src/metrics/registry.js';
import { startMetricsServer, type MetricsServer } from '../../src/metrics/server.js';
import { acquireLock, type HeldLock } from '../../src/runtime/lock.js';
import { startScheduler, type Scheduler } from '../../src/runtime/scheduler.js';
import { freshMirror } from '../helpers/tempDir.js';

const LEASE_MS = 300;
const NEVER = '0 0 1 1 *';
const SCHEDULE = { timezone: 'UTC', sync: NEVER, push: NEVER, refresh: NEVER, deepRefresh: NEVER, export: NEVER, verify: NEVER };
const logger = createLogger({ level: 'silent' });

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The pieces `run` wires to /healthz: a real lock on a real mirror file, a real scheduler, the real server. */
async function startRun(path: string, health: Health): Promise<{ base: string; takeLock: () => Promise<HeldLock>; startSchedules: () => Scheduler }> {
  // A short busy timeout: a renewal that meets a writer fails at once instead of blocking the server's answers.
  const db = openDatabase(path, { busyTimeoutMs: 20 });
  const server: MetricsServer = await startMetricsServer({ address: { host: '127.0.0.1', port: 0 }, registry: createMetrics().registry, health, logger });
  cleanups.push(() => db.close(), () => server.close());
  health.mirrorOpened();
  return {
    base: `http://127.0.0.1:${server.port}`,
    takeLock: async () => {
      const lock = await acquireLock({ db, dbPath: path, command: 'run', leaseMs: LEASE_MS, logger, onRenewed: (at) => health.lockRenewed(at, LEASE_MS) });
      lock.lost.addEventListener('abort', () => health.lockLost(), { once: true });
      cleanups.push(() => lock.release());
      return lock;
    },
    startSchedules: () => {
      const scheduler = startScheduler({ schedule: SCHEDULE, logger, run: (job) => Promise.resolve({ job, ok: true, summary: job }), health });
      cleanups.push(() => scheduler.stop());
      return scheduler;
    },
  };
}

async function healthz(base: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${base}/healthz`);
  return { status: response.status, body: await response.text() };
}

/** Polls /healthz until it answers `status` (the lock's timer decides when, not the test). */
async function until(base: string, status: number): Promise<{ status: number; body: string }> {
  for (;;) {
    const answer = await healthz(base);
    if (answer.status === status) return answer;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('/healthz', () => {
  it('answers 503 with the reason when another process takes the writer lock, and 200 again once the lock is held anew', async () => {
    const mirror = freshMirror();
    const health = createHealth();
    const run = await startRun(mirror.path, health);
    expect(await healthz(run.base)).toEqual({ status: 503, body: 'the scheduler is not started\n' });
    const lock = await run.takeLock();
    run.startSchedules();
    expect(await healthz(run.base)).toEqual({ status: 200, body: 'ok\n' });
    expect((await fetch(`${run.base}/readyz`)).status).toBe(200);

    mirror.db.prepare("UPDATE instance_lock SET token = 'another-process'").run();
    expect(await until(run.base, 503)).toEqual({ status: 503, body: 'the writer lock was taken over by another process\n' });
    expect(lock.lost.aborted).toBe(true);

    mirror.db.prepare('DELETE FROM instance_lock').run();
    await run.takeLock();
    expect(await healthz(run.base)).toEqual({ status: 200, body: 'ok\n' });
  });

  it("answers 503 while the writer lock's lease goes unrenewed past its length, and 200 once renewals succeed again", async () => {
    const mirror = freshMirror();
    const health = createHealth();
    const run = await startRun(mirror.path, health);
    await run.takeLock();
    run.startSchedules();
    expect((await healthz(run.base)).status).toBe(200);

    // Another connection holds the write lock of the file: every renewal fails until it lets go.
    mirror.db.exec('BEGIN IMMEDIATE');
    const stale = await until(run.base, 503);
    expect(stale.body).toMatch(/^the writer lock's lease was last renewed \d+\.\d s ago, longer than its 0\.3 s lease\n$/);
    mirror.db.exec('COMMIT');
    expect(await until(run.base, 200)).toEqual({ status: 200, body: 'ok\n' });
  });

  it('answers 503 once the scheduler stops, and 200 again when schedules run again', async () => {
    const mirror = freshMirror();
    const health = createHealth();
    const run = await startRun(mirror.path, health);
    await run.takeLock();
    const scheduler = run.startSchedules();
    expect((await healthz(run.base)).status).toBe(200);

    await scheduler.stop();
    expect(await healthz(run.base)).toEqual({ status: 503, body: 'the scheduler is stopped\n' });

    run.startSchedules();
    expect(await healthz(run.base)).toEqual({ status: 200, body: 'ok\n' });
  });

  it('answers 404 for any other path and readyz 503 until the mirror is open', async () => {
    const health = createHealth();
    const server = await startMetricsServer({ address: { host: '127.0.0.1', port: 0 }, registry: createMetrics().registry, health, logger });
    cleanups.push(() => server.close());
    const base = `http://127.0.0.1:${server.port}`;
    expect((await fetch(`${base}/readyz`)).status).toBe(503);
    expect(await (await fetch(`${base}/readyz`)).text()).toBe('the mirror is not open yet\n');
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(`${base}/healthz/x`)).status).toBe(404);
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(404);
  });
});
