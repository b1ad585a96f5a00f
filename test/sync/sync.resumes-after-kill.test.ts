import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { CLI_PATH } from '../helpers/cli.js';
import { mirrorDiff, mirrorDiffAll } from '../helpers/sync.js';
import { tempDir } from '../helpers/tempDir.js';

const KILLS = 20;
const DAY = 24 * 3600 * 1000;
let sim: SimulatorHandle | undefined;
afterAll(async () => {
  await sim?.close();
});

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** `loyalty-sync sync ARGS` in a child; SIGKILLed after `killAfterMs` unless it ended first. */
function runSync(args: string[], env: Record<string, string>, killAfterMs?: number): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, 'sync', ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

it(`a sync killed with SIGKILL at ${KILLS} random moments and resumed each time ends equal to the truth`, async () => {
  // Latency makes one sync take about a second, so most kills land mid-run, some mid-transaction.
  sim = await startSimulator({ seed: 13, size: 'small', pageOrder: 'newest-first', faults: { latencyMs: 25 } });
  const dir = tempDir('loyalty-crash-');
  const dbPath = join(dir, 'mirror.db');
  const configPath = join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify({ api: { requestsPerSecond: 1000, burst: 50, retry: { attempts: 5, minDelayMs: 1, maxDelayMs: 20, maxElapsedMs: 30000 } } }));
  const env = { LOYALTY_BASE_URL: sim.url, LOYALTY_API_KEY: sim.keys.full, LOYALTY_DB: dbPath, LOYALTY_CONFIG: configPath, LOG_LEVEL: 'warn' };

  // How long a whole run takes here (startup included), measured on a scratch mirror, so the kills spread over it.
  const started = performance.now();
  expect((await runSync([], { ...env, LOYALTY_DB: join(dir, 'scratch.db') })).code).toBe(0);
  const runMs = performance.now() - started;

  const history: string[] = [`a whole run takes ${Math.round(runMs)} ms`];
  let killed = 0;
  for (let i = 0; i < KILLS; i++) {
    // Mostly re-reads of everything, so most moments fall inside a run; every fourth is incremental, after changes.
    if (i % 4 === 3) sim.tick(1);
    const args = i % 4 === 3 ? [] : ['--full'];
    const delay = Math.round(runMs * (0.1 + 0.85 * Math.random()));
    const exit = await runSync(args, env, delay);
    history.push(`#${i} ${args.join(' ')} kill@${delay}ms → ${exit.signal ?? exit.code}`);
    if (exit.signal === 'SIGKILL') killed += 1;
    else expect(exit, history.join('\n')).toMatchObject({ code: 0 });
  }
  const last = await runSync(['--refresh'], env);
  expect(last.code, `${history.join('\n')}\n${last.stderr}`).toBe(0);

  const db = openDatabase(dbPath);
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  expect(mirrorDiffAll(db, sim, ['customers', 'transactions', 'unsubscribes']), history.join('\n')).toEqual([]);
  // Orders and activities change after creation; the refresh keeps those inside the 30-day lookback exact.
  for (const table of ['orders', 'activities'] as const) {
    const newest = Math.max(...(sim.truth(table) as Array<{ created_at: string }>).map((r) => Date.parse(r.created_at)));
    expect(mirrorDiff(db, sim, table, (record) => Date.parse(String(record.created_at)) >= newest - 29 * DAY)).toEqual([]);
  }
  for (const table of ['customers', 'orders', 'activities', 'transactions', 'unsubscribes']) {
    const { rows, ids } = db.prepare(`SELECT count(*) AS rows, count(DISTINCT id) AS ids FROM ${table}`).get() as { rows: number; ids: number };
    expect(rows).toBe(ids);
  }
  expect(db.prepare('SELECT count(*) FROM sync_state WHERE pass_state IS NOT NULL').pluck().get()).toBe(0);
  // Most kills must have hit a run in progress, or the test proves little.
  expect(killed, history.join('\n')).toBeGreaterThanOrEqual(KILLS / 2);
  const interrupted = db.prepare("SELECT count(*) FROM sync_runs WHERE status = 'interrupted'").pluck().get() as number;
  expect(interrupted).toBeGreaterThan(0);
  db.close();
});
