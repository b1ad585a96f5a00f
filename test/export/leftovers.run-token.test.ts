import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { runExport } from '../../src/export/index.js';
import { exportConfig, silentLogger, tempDir } from './helpers.js';

// A process that stays alive while the test runs: the holder of a live export's lock.
const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)'], { stdio: 'ignore' });
afterAll(() => {
  sleeper.kill('SIGKILL');
});

const KILLED = '20261122T200000Z-aaaa';
const LIVE = '20261122T200000Z-bbbb';
const OTHER_HOST = '20261122T200000Z-cccc';
const EXPIRED = '20261122T200000Z-dddd';

it('removes a killed run\'s temporary files even when the next run has the same pid (pid 1 in a container), and keeps a live run\'s', async () => {
  const dir = tempDir();
  const config = exportConfig(dir, { formats: ['csv'] });
  const db = openDatabase(config.db.path);
  const soon = new Date(Date.now() + 10 * 60_000).toISOString();
  const past = new Date(Date.now() - 60_000).toISOString();
  const started = new Date(Date.now() - 120_000).toISOString();
  const addRun = db.prepare(`INSERT INTO export_runs (run_id, kind, status, pid, started_at, formats) VALUES (?, 'full', 'running', ?, ?, 'csv')`);
  const addLock = db.prepare(
    `INSERT INTO instance_lock (name, token, pid, hostname, command, acquired_at, heartbeat_at, expires_at) VALUES (?, 'token', ?, ?, 'export', ?, ?, ?)`,
  );
  // The killed run had this very pid on this host, and its lease has not run out yet: only its run id tells it apart.
  addRun.run(KILLED, process.pid, started);
  addLock.run(`export:${KILLED}`, process.pid, hostname(), started, started, soon);
  addRun.run(LIVE, sleeper.pid!, started);
  addLock.run(`export:${LIVE}`, sleeper.pid!, hostname(), started, started, soon);
  addRun.run(OTHER_HOST, 1, started);
  addLock.run(`export:${OTHER_HOST}`, 1, 'another-pod', started, started, soon);
  addRun.run(EXPIRED, 1, started);
  addLock.run(`export:${EXPIRED}`, 1, 'another-pod', started, started, past);

  const root = config.export.dir;
  const partition = join(root, 'orders', 'dt=2026-11-22');
  mkdirSync(partition, { recursive: true });
  mkdirSync(join(root, 'manifests'));
  const files = {
    killedTmp: join(partition, `.tmp-${KILLED}-orders-${KILLED}.csv`),
    killedOrphan: join(partition, `orders-${KILLED}.csv`),
    killedManifestTmp: join(root, 'manifests', `.tmp-${KILLED}-${KILLED}.json`),
    expiredTmp: join(partition, `.tmp-${EXPIRED}-orders-${EXPIRED}.csv`),
    // Written by an earlier version, which named temporary files after the pid: this pid is a predecessor's.
    legacyOwnPidTmp: join(partition, `.tmp-${process.pid}-orders-20261122T190000Z-eeee.csv`),
    liveTmp: join(partition, `.tmp-${LIVE}-orders-${LIVE}.csv`),
    liveFile: join(partition, `orders-${LIVE}.csv`),
    otherHostTmp: join(partition, `.tmp-${OTHER_HOST}-orders-${OTHER_HOST}.csv`),
    unrelated: join(partition, 'notes.txt'),
  };
  for (const path of Object.values(files)) writeFileSync(path, 'x');

  const report = await runExport({ db, config, logger: silentLogger, tables: ['orders'] });

  for (const gone of [files.killedTmp, files.killedOrphan, files.killedManifestTmp, files.expiredTmp, files.legacyOwnPidTmp]) expect(existsSync(gone), gone).toBe(false);
  for (const kept of [files.liveTmp, files.liveFile, files.otherHostTmp, files.unrelated]) expect(existsSync(kept), kept).toBe(true);
  const status = (runId: string): string => db.prepare('SELECT status FROM export_runs WHERE run_id = ?').pluck().get(runId) as string;
  expect([status(KILLED), status(EXPIRED), status(LIVE), status(OTHER_HOST)]).toEqual(['interrupted', 'interrupted', 'running', 'running']);
  // The run's own lock is gone with it, and so is the lock whose lease ran out.
  const locks = db.prepare(`SELECT name FROM instance_lock ORDER BY name`).pluck().all();
  expect(locks).toEqual([`export:${KILLED}`, `export:${LIVE}`, `export:${OTHER_HOST}`]);
  expect(report.runId).not.toBe(KILLED);
  db.close();
});
