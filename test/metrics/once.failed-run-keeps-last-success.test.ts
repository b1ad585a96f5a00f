import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { alertsFiring } from '../helpers/alerts.js';
import { runCli } from '../helpers/cli.js';
import { parseSamples, sumOf, type Sample } from '../helpers/exposition.js';
import { pushedGroup, startPushgateway, type PrometheusTool } from '../helpers/prometheus.js';
import { tempDir } from '../helpers/tempDir.js';

const STREAMS = ['activities', 'customers', 'orders', 'transactions', 'unsubscribes'];
const HOUR = 3600;

let sim: SimulatorHandle;
/** Debian's prometheus-pushgateway. */
let gateway: PrometheusTool;

beforeAll(async () => {
  sim = await startSimulator({ seed: 24, size: 'tiny' });
  gateway = await startPushgateway();
});
afterAll(async () => {
  await sim.close();
  await gateway.stop();
});

describe('once after a failed sync', () => {
  it("still carries each stream's last successful sync from the mirror, to the metrics file and the Pushgateway, so LoyaltySyncStale can fire", async () => {
    const dir = tempDir('loyalty-failing-cron-');
    const env = { LOYALTY_BASE_URL: sim.url, LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports') };
    const good = await runCli(['once'], { env: { ...env, LOYALTY_API_KEY: sim.keys.full } });
    expect(good.code, good.stderr).toBe(0);
    const db = openDatabase(env.LOYALTY_DB, { readonly: true });
    const synced = db.prepare('SELECT stream, last_success_at AS at FROM sync_state ORDER BY stream').all() as Array<{ stream: string; at: string }>;
    db.close();
    expect(synced.map((row) => row.stream)).toEqual(STREAMS);

    // The key was revoked: every later run of the CronJob fails its sync.
    const file = join(dir, 'loyalty_sync.prom');
    const failed = await runCli(['once', '--metrics-file', file, '--pushgateway', gateway.url], { env: { ...env, LOYALTY_API_KEY: 'revoked-key' } });
    const ranAt = new Date();
    expect(failed.code).toBe(1);

    // A revoked key cannot name the program, so the run's group is program_id "unknown".
    for (const [where, samples] of [
      ['metrics file', parseSamples(readFileSync(file, 'utf8'))],
      ['Pushgateway', await pushedGroup(gateway, { job: 'loyalty_sync', program_id: 'unknown' })],
    ] as Array<[string, Sample[]]>) {
      expect(sumOf(samples, 'loyalty_sync_runs_total', { outcome: 'failed' }), where).toBeGreaterThan(0);
      expect(sumOf(samples, 'loyalty_sync_runs_total', { outcome: 'succeeded' }), where).toBe(0);
      for (const { stream, at } of synced) expect(sumOf(samples, 'loyalty_sync_last_success_timestamp_seconds', { stream }), `${where}: ${stream}`).toBe(Date.parse(at) / 1000);
      // Had the runs kept failing: nothing pages while the last success is recent, LoyaltySyncStale once it is an hour old.
      expect(await alertsFiring(samples, ranAt, 30 * 60), where).toEqual([]);
      expect(await alertsFiring(samples, ranAt, 2 * HOUR), where).toEqual(STREAMS.map((stream) => `LoyaltySyncStale{stream="${stream}"}`));
    }
  });
});
