import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, watch } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { CLI_PATH, runCli } from '../helpers/cli.js';
import { parseSamples, promtool, sumOf } from '../helpers/exposition.js';
import { tempDir } from '../helpers/tempDir.js';

const CONTRACT_FAMILIES = [
  'loyalty_sync_rows_total',
  'loyalty_sync_runs_total',
  'loyalty_sync_last_success_timestamp_seconds',
  'loyalty_sync_duration_seconds',
  'loyalty_mirror_rows',
  'loyalty_api_requests_total',
  'loyalty_api_rate_limited_total',
  'loyalty_api_request_duration_seconds',
  'loyalty_queue_jobs',
  'loyalty_push_jobs_total',
  'loyalty_export_last_success_timestamp_seconds',
  'loyalty_export_rows_total',
  'loyalty_export_bytes_total',
];

/** Runs killed at their first change to the metrics folder, before one lands inside the write (most do at once). */
const MAX_ATTEMPTS = 10;

let sim: SimulatorHandle;
beforeAll(async () => {
  sim = await startSimulator({ seed: 21, size: 'tiny' });
});
afterAll(async () => sim.close());

function envFor(dir: string, key: string): Record<string, string> {
  return { LOYALTY_API_KEY: key, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports') };
}

async function expectValidExposition(path: string): Promise<string> {
  const text = readFileSync(path, 'utf8');
  const lint = await promtool(['check', 'metrics'], text);
  expect(lint.output).toBe('');
  expect(lint.code).toBe(0);
  return text;
}

describe('once --metrics-file', () => {
  it("writes the run's metrics after a successful run, leaving nothing else beside the file", async () => {
    const dir = tempDir('loyalty-textfile-');
    const file = join(dir, 'textfile', 'loyalty_sync.prom');
    mkdirSync(join(dir, 'textfile'));
    const result = await runCli(['once', '--metrics-file', file], { env: envFor(dir, sim.keys.full) });
    expect(result.code, result.stderr).toBe(0);
    const samples = parseSamples(await expectValidExposition(file));
    expect(sumOf(samples, 'loyalty_sync_runs_total', { outcome: 'succeeded' })).toBe(5);
    expect(sumOf(samples, 'loyalty_sync_runs_total', { outcome: 'failed' })).toBe(0);
    expect(sumOf(samples, 'loyalty_sync_rows_total', { stream: 'transactions', change: 'inserted' })).toBeGreaterThan(0);
    expect(sumOf(samples, 'loyalty_export_last_success_timestamp_seconds')).toBeGreaterThan(0);
    expect(readdirSync(join(dir, 'textfile'))).toEqual(['loyalty_sync.prom']);
  });

  it('writes it after a failed job too: a bad key shows as failed sync runs, and the exit code stays 1', async () => {
    const dir = tempDir('loyalty-textfile-');
    const file = join(dir, 'loyalty_sync.prom');
    const result = await runCli(['once', '--metrics-file', file], { env: envFor(dir, 'not-a-key') });
    expect(result.code).toBe(1);
    const samples = parseSamples(await expectValidExposition(file));
    // The refused key stops the sync at its first stream; the skipped four are not runs.
    expect(sumOf(samples, 'loyalty_sync_runs_total', { outcome: 'failed' })).toBe(1);
    expect(sumOf(samples, 'loyalty_sync_runs_total', { outcome: 'succeeded' })).toBe(0);
    expect(sumOf(samples, 'loyalty_api_requests_total', { status: '401' })).toBeGreaterThan(0);
  });

  it('never leaves a partial file when killed during the write: the path keeps the previous complete file', async () => {
    const dir = tempDir('loyalty-textfile-');
    const folder = join(dir, 'textfile');
    mkdirSync(folder);
    const file = join(folder, 'loyalty_sync.prom');
    const env = envFor(dir, sim.keys.full);
    expect((await runCli(['once', '--metrics-file', file], { env })).code).toBe(0);
    let previous = await expectValidExposition(file);

    // The run touches the folder only to write the metrics file: its first change there means the write has
    // begun. The run is killed at that moment; when the kill came too late (the write had
    // finished), it is tried again.
    let attempts = 0;
    for (let landed = false; !landed; ) {
      attempts += 1;
      expect(attempts, 'no kill landed during the write').toBeLessThanOrEqual(MAX_ATTEMPTS);
      const child = spawn(process.execPath, [CLI_PATH, 'once', '--metrics-file', file], { env: { PATH: process.env.PATH, LOG_LEVEL: 'silent', ...env }, stdio: 'ignore' });
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
      const watcher = watch(folder, () => {
        watcher.close();
        child.kill('SIGKILL');
      });
      const signal = await exited;
      watcher.close();

      const names = readdirSync(folder);
      const text = existsSync(file) ? readFileSync(file, 'utf8') : null;
      if (names.length === 1 && text !== null && text !== previous) {
        // The path changed and nothing is beside it: the write had ended, and the file must be whole (a write in
        // place, cut by the kill, would lack the families written last).
        const missing = CONTRACT_FAMILIES.filter((family) => !text.includes(`# TYPE ${family} `));
        expect(missing, `families missing from the file at the path after a kill; it holds ${text.length} bytes`).toEqual([]);
        // That whole file is now the one a later kill must leave in place.
        previous = await expectValidExposition(file);
        continue;
      }
      landed = true;
      expect(signal).toBe('SIGKILL');
      // Killed while writing: whatever it left beside the path (a hidden temporary file), the path holds the previous file, whole.
      expect(text, `after a kill during the write; the folder holds ${names.join(', ')}`).toBe(previous);
    }
  });
});
