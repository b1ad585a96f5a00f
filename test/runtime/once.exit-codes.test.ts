import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';

let sim: SimulatorHandle;
const dir = mkdtempSync(join(tmpdir(), 'ls-once-'));

beforeAll(async () => {
  sim = await startSimulator({ seed: 11, size: 'tiny' });
});
afterAll(async () => sim.close());

const env = (key: string, name: string) => ({
  LOYALTY_API_KEY: key,
  LOYALTY_BASE_URL: sim.url,
  LOYALTY_DB: join(dir, `${name}.db`),
  LOYALTY_EXPORT_DIR: join(dir, `${name}-exports`),
});

describe('once', () => {
  it('syncs, pushes and exports, one line per step, and exits 0', async () => {
    const result = await runCli(['once'], { env: env(sim.keys.full, 'good') });
    expect(result.code, result.stderr).toBe(0);
    // Logs go to stderr: stdout holds the step summaries alone.
    const lines = result.stdout.trim().split('\n');
    expect(lines.map((line) => line.split(' ')[0])).toEqual(['ok', 'ok', 'ok']);
    expect(lines.map((line) => line.slice(5).split(':')[0])).toEqual(['sync', 'push', 'export']);
    expect(readdirSync(join(dir, 'good-exports', 'manifests')).some((file) => file.endsWith('.json'))).toBe(true);

    // status then answers an operator's first questions from the same mirror.
    const status = await runCli(['status', '--json'], { env: env(sim.keys.full, 'good') });
    expect(status.code, status.stderr).toBe(0);
    const report = JSON.parse(status.stdout) as {
      streams: Array<{ stream: string; rows: number; lastSuccessAt: string | null }>;
      queue: Record<string, number | string | null>;
      lastExport: { manifestPath: string } | null;
      lock: unknown;
    };
    expect(report.streams.map((s) => [s.stream, s.rows])).toEqual(
      ['customers', 'orders', 'activities', 'transactions', 'unsubscribes'].map((stream) => [stream, sim.truth(stream as 'customers').length]),
    );
    expect(report.streams.every((s) => s.lastSuccessAt !== null)).toBe(true);
    expect(report.queue).toMatchObject({ queued: 0, dead: 0, unknown: 0, oldestQueuedAt: null });
    expect(report.lastExport?.manifestPath).toMatch(/good-exports\/manifests\/\d{8}T\d{6}Z-\w+\.json$/);
    expect(report.lock).toBeNull();
  });

  it('exits 1 when the API rejects the credential, saying so in one line per failed step, and never prints the key', async () => {
    const key = 'not-a-valid-key-7f3a9c';
    const result = await runCli(['once'], { env: env(key, 'badkey') });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/FAIL sync: .*401/);
    expect(result.stdout + result.stderr).not.toContain(key);
  });

  it('exits 2 on a bad config without touching the mirror', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ push: { concurrency: 0 } }));
    const result = await runCli(['--config', file, 'once'], { env: env(sim.keys.full, 'badconfig') });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"push.concurrency" is 0');
    expect(existsSync(join(dir, 'badconfig.db'))).toBe(false);
  });

  it('push and once exit 1 when a job goes dead in that run, naming its id, kind and the API answer; an earlier dead job fails no later run', async () => {
    const runEnv = env(sim.keys.full, 'dead');
    const queue = (customer: string) => runCli(['queue', 'add-points', '--customer', customer, '--points', '5', '--reason', 'dead test'], { env: runEnv });
    expect((await queue('no-such-customer-1')).code).toBe(0);
    const pushed = await runCli(['push'], { env: runEnv });
    expect(pushed.code, pushed.stderr).toBe(1);
    expect(pushed.stdout).toMatch(/^push: sent 1, succeeded 0, retried 0, dead 1, unknown 0; went dead: job 1 \(add_points\): POST \/v2\/customers\/no-such-customer-1\/points failed: 404 Customer not found\n$/);
    expect(pushed.stderr).toContain('loyalty-sync: 1 job went dead in this push (named above)');

    expect((await queue('no-such-customer-2')).code).toBe(0);
    const once = await runCli(['once'], { env: runEnv });
    expect(once.code, once.stderr).toBe(1);
    const lines = once.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ok {3}sync: /);
    expect(lines[1]).toMatch(/^FAIL push: sent 1, .*dead 1, .*; went dead: job 2 \(add_points\): POST \/v2\/customers\/no-such-customer-2\/points failed: 404 Customer not found$/);
    expect(lines[2]).toMatch(/^ok {3}export: /);

    // Jobs 1 and 2 stay dead (status --check and the alerts keep counting them), but nothing new died.
    const again = await runCli(['push'], { env: runEnv });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe('push: sent 0, succeeded 0, retried 0, dead 0, unknown 0\n');
  });
});
