import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed, onTestFinished } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { RUN_ID_PATTERN } from '../../src/export/layout.js';
import { DELTA_LOCK } from '../../src/export/delta/exportDelta.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { startCli, type CliProcess } from '../helpers/process.js';
import { tempDir } from '../helpers/tempDir.js';

const NEVER = '0 0 1 1 *';

let sim: SimulatorHandle;
const dir = tempDir('ls-sigterm-export-');
const env = (): Record<string, string> => ({ LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports') });

beforeAll(async () => {
  sim = await startSimulator({ seed: 14, size: 'tiny' });
  const synced = await runCli(['sync'], { env: env() });
  expect(synced.code, synced.stderr).toBe(0);
});
afterAll(async () => sim.close());

/**
 * Holds the mirror's Delta lock as a live process of this host (the test itself) would: an export that
 * writes Delta waits for it, so the test knows the export is in flight, and where, when it signals.
 */
function holdDeltaLock(): { release: () => void } {
  const db = openDatabase(join(dir, 'mirror.db'));
  const now = new Date();
  db.prepare(`INSERT INTO instance_lock (name, token, pid, hostname, command, acquired_at, heartbeat_at, expires_at) VALUES (?, 'test', ?, ?, 'export', ?, ?, ?)`).run(
    DELTA_LOCK,
    process.pid,
    hostname(),
    now.toISOString(),
    now.toISOString(),
    new Date(now.getTime() + 3_600_000).toISOString(),
  );
  return {
    release: () => {
      db.prepare('DELETE FROM instance_lock WHERE name = ? AND token = ?').run(DELTA_LOCK, 'test');
      db.close();
    },
  };
}

/** `run` with only the export scheduled, every second, as Delta and CSV, and this shutdown deadline. */
function startRun(deadlineSeconds: number): CliProcess {
  const configFile = join(dir, `config-${deadlineSeconds}.json`);
  writeFileSync(
    configFile,
    JSON.stringify({
      runtime: { shutdownDeadlineSeconds: deadlineSeconds },
      export: { formats: ['csv', 'delta'] },
      schedule: { sync: NEVER, refresh: NEVER, push: NEVER, verify: NEVER, export: '* * * * * *' },
    }),
  );
  const proc = startCli(['--config', configFile, 'run'], env());
  onTestFinished(() => {
    if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
  });
  onTestFailed(() => console.error(`stderr: ${proc.stderr()}\nlast log records: ${JSON.stringify(proc.lines.slice(-10))}`));
  return proc;
}

const manifests = (): string[] => (existsSync(join(dir, 'exports', 'manifests')) ? readdirSync(join(dir, 'exports', 'manifests')).filter((name) => RUN_ID_PATTERN.test(name.replace(/\.json$/, ''))) : []);
const waitingForDeltaLock = (line: Record<string, unknown>): boolean => typeof line.msg === 'string' && line.msg.includes(`another loyalty-sync (export, pid ${process.pid}`) && line.msg.endsWith('Waiting for it.');

describe('SIGTERM during a scheduled export', () => {
  it('lets the export in flight finish within runtime.shutdownDeadlineSeconds, then exits 0', async () => {
    const lock = holdDeltaLock();
    const proc = startRun(60);
    try {
      await proc.waitForLine(waitingForDeltaLock);
      expect(manifests()).toEqual([]);
      proc.child.kill('SIGTERM');
      await proc.waitForLine((line) => line.msg === 'stopping: finishing the work in flight');
    } finally {
      lock.release();
    }
    const { code } = await proc.exited;
    expect(code, proc.stderr()).toBe(0);
    const exported = proc.lines.find((line) => line.job === 'export' && typeof line.finishedAt === 'string');
    expect(exported?.ok, String(exported?.msg)).toBe(true);
    expect(exported?.msg).toMatch(/^export: 8 files, \d+ rows, manifest .*, Delta: 8 new version\(s\)$/);
    expect(manifests()).toHaveLength(1);
    expect(proc.lines.some((line) => line.msg === 'stopped cleanly')).toBe(true);
  });

  it('aborts the export once the deadline has passed, and exits 1 saying so', async () => {
    const before = manifests();
    const lock = holdDeltaLock();
    const proc = startRun(1);
    try {
      await proc.waitForLine(waitingForDeltaLock);
      proc.child.kill('SIGTERM');
      const { code } = await proc.exited;
      expect(code, proc.stderr()).toBe(1);
    } finally {
      lock.release();
    }
    expect(proc.stderr()).toBe('loyalty-sync: the work in flight did not finish within runtime.shutdownDeadlineSeconds (1 s) of the stop signal, so it was aborted\n');
    expect(proc.lines.some((line) => line.msg === 'work in flight did not finish before the shutdown deadline; aborting it')).toBe(true);
    const exported = proc.lines.find((line) => line.job === 'export' && typeof line.finishedAt === 'string');
    expect(exported).toMatchObject({ ok: false, msg: expect.stringContaining('did not finish within runtime.shutdownDeadlineSeconds') });
    expect(manifests()).toEqual(before);
  });
});
