import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { openDatabase } from '../../src/db/open.js';
import { runCli, sentences } from '../helpers/cli.js';
import { startCli } from '../helpers/process.js';
import { tempDir } from '../helpers/tempDir.js';

let sim: SimulatorHandle;
let env: Record<string, string>;
beforeAll(async () => {
  sim = await startSimulator({ seed: 2, size: 'tiny' });
  env = { LOYALTY_BASE_URL: sim.url, LOYALTY_API_KEY: sim.keys.full, LOYALTY_DB: join(tempDir('loyalty-cli-'), 'mirror.db'), LOG_LEVEL: 'warn' };
});
afterAll(async () => {
  await sim.close();
});

describe('loyalty-sync sync and status', () => {
  it('sync --help prints the usage and exits 0', async () => {
    const result = await runCli(['sync', '--help'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--stream NAME');
  });

  it('a bad --stream names the value and the valid names, and exits 2', async () => {
    const result = await runCli(['sync', '--stream', 'refunds'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"refunds"');
    expect(result.stderr).toContain('customers, orders, activities, transactions, unsubscribes');
  });

  it('sync --stream syncs only that stream and exits 0; status shows it', async () => {
    const result = await runCli(['sync', '--stream', 'orders', '--stream', 'unsubscribes'], { env });
    expect(sentences(result.stderr)).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^orders: succeeded, \d+ rows read/m);
    expect(result.stdout).toMatch(/^unsubscribes: succeeded/m);
    expect(result.stdout).not.toMatch(/customers/);

    const status = await runCli(['status', '--json'], { env });
    expect(status.code).toBe(0);
    const parsed = JSON.parse(status.stdout) as { streams: Array<{ stream: string; rows: number; lastSuccessAt: string | null; watermark: string | null }> };
    const orders = parsed.streams.find((s) => s.stream === 'orders');
    expect(orders?.rows).toBe((sim.truth('orders') as unknown[]).length);
    expect(orders?.watermark).toBe(String(Math.max(...(sim.truth('orders') as Array<{ id: number }>).map((o) => o.id))));
    expect(parsed.streams.find((s) => s.stream === 'customers')?.lastSuccessAt).toBeNull();

    const text = await runCli(['status'], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^orders\s+\d+\s+\d+\s+\d{4}-/m);
  });

  it('exits 1 with one sentence naming the address when the API is unreachable', async () => {
    const config = join(tempDir('loyalty-cli-'), 'config.json');
    writeFileSync(config, JSON.stringify({ api: { retry: { attempts: 1, minDelayMs: 1, maxDelayMs: 1, maxElapsedMs: 1000 } } }));
    const result = await runCli(['sync', '--stream', 'customers'], { env: { ...env, LOYALTY_BASE_URL: 'http://127.0.0.1:9', LOYALTY_CONFIG: config } });
    expect(result.code).toBe(1);
    expect(sentences(result.stderr).trim().split('\n')).toEqual([expect.stringMatching(/^loyalty-sync: the API at http:\/\/127\.0\.0\.1:9 could not be reached \(GET \/v2\/customers failed: /)]);
  });

  it('SIGTERM stops after the page in flight commits: exit 1, the stream reported interrupted, the run resumable', async () => {
    // Five pages of 300 ms each: the SIGTERM after the first one lands while more than a second of them is left.
    const slow = await startSimulator({ seed: 2, size: 'small', faults: { latencyMs: 300 } });
    try {
      const dbPath = join(tempDir('loyalty-cli-'), 'mirror.db');
      const proc = startCli(['sync', '--stream', 'transactions'], { ...env, LOYALTY_BASE_URL: slow.url, LOYALTY_API_KEY: slow.keys.full, LOYALTY_DB: dbPath, LOG_LEVEL: 'debug' });
      await proc.waitForLine((line) => line.msg === 'page stored');
      proc.child.kill('SIGTERM');
      const exit = await proc.exited;
      expect(exit.code).toBe(1);
      expect(proc.stderr()).toContain('sync of transactions was interrupted; the next sync resumes it');
      const db = openDatabase(dbPath);
      expect(db.prepare("SELECT pass_state IS NOT NULL FROM sync_state WHERE stream = 'transactions'").pluck().get()).toBe(1);
      db.close();
    } finally {
      await slow.close();
    }
  });
});
