import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
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

  it('never leaves a partial file when killed: the path holds the previous complete file or the new one', async () => {
    const dir = tempDir('loyalty-textfile-');
    const file = join(dir, 'loyalty_sync.prom');
    const env = envFor(dir, sim.keys.full);
    expect((await runCli(['once', '--metrics-file', file], { env })).code).toBe(0);
    await expectValidExposition(file);

    // Kill runs at later and later moments until one finishes first: some die mid-sync, some around the write.
    let completed = false;
    for (let delayMs = 150; !completed; delayMs = Math.round(delayMs * 1.4)) {
      const child = spawn(process.execPath, [CLI_PATH, 'once', '--metrics-file', file], { env: { PATH: process.env.PATH, LOG_LEVEL: 'silent', ...env }, stdio: 'ignore' });
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      const timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
      completed = (await exited) === 0;
      clearTimeout(timer);
      expect(existsSync(file)).toBe(true);
      const text = await expectValidExposition(file);
      // A cut-off file would lack the families written last; a whole one has every family of the contract.
      for (const family of CONTRACT_FAMILIES) expect(text, `${family} after a kill at ${delayMs} ms`).toContain(`# TYPE ${family} `);
    }
  });
});
