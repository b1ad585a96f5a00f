import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_ID_PATTERN } from '../../src/export/layout.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { parseSamples, sumOf } from '../helpers/exposition.js';
import { tempDir } from '../helpers/tempDir.js';

let sim: SimulatorHandle;
beforeAll(async () => {
  sim = await startSimulator({ seed: 31, size: 'tiny' });
});
afterAll(async () => sim.close());

const DAY_MS = 24 * 60 * 60 * 1000;

describe('once --export-daily', () => {
  it('syncs and pushes on every run, exports on the first run of a day only, and a one-table export does not count', async () => {
    const dir = tempDir('ls-once-daily-');
    const env = { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports') };
    const metricsFile = join(dir, 'loyalty_sync.prom');
    const once = () => runCli(['once', '--export-daily', '--metrics-file', metricsFile], { env });
    const runManifests = () => readdirSync(join(dir, 'exports', 'manifests')).filter((name) => RUN_ID_PATTERN.test(name.replace(/\.json$/, '')));
    const steps = (stdout: string) => stdout.split('\n').filter((line) => /^(ok|FAIL|SKIP) /.test(line));

    const first = await once();
    expect(first.code, first.stderr).toBe(0);
    expect(steps(first.stdout).map((line) => line.slice(5).split(':')[0])).toEqual(['sync', 'push', 'export']);
    expect(runManifests()).toHaveLength(1);

    const second = await once();
    expect(second.code, second.stderr).toBe(0);
    const [sync, push, exported] = steps(second.stdout);
    expect(sync).toMatch(/^ok {3}sync: /);
    expect(push).toMatch(/^ok {3}push: /);
    expect(exported).toMatch(/^ok {3}export: not due \(--export-daily\)/);
    expect(runManifests()).toHaveLength(1);
    // The skipped run still tells Prometheus how old the newest export is, so LoyaltyExportStale stays quiet.
    const mirror = new Database(join(dir, 'mirror.db'));
    const finishedAt = mirror.prepare(`SELECT finished_at FROM export_runs WHERE status = 'succeeded'`).pluck().get() as string;
    expect(sumOf(parseSamples(readFileSync(metricsFile, 'utf8')), 'loyalty_export_last_success_timestamp_seconds')).toBe(Date.parse(finishedAt) / 1000);

    // That export was yesterday's; today only a one-table export ran so far.
    const dayEarlier = (iso: string) => new Date(Date.parse(iso) - DAY_MS).toISOString();
    mirror.function('day_earlier', dayEarlier);
    mirror.prepare('UPDATE export_runs SET started_at = day_earlier(started_at), finished_at = day_earlier(finished_at)').run();
    mirror.close();
    const partial = await runCli(['export', '--table', 'unsubscribes'], { env });
    expect(partial.code, partial.stderr).toBe(0);
    expect(runManifests()).toHaveLength(2);

    const nextDay = await once();
    expect(nextDay.code, nextDay.stderr).toBe(0);
    expect(steps(nextDay.stdout)[2]).toMatch(/^ok {3}export: \d+ files/);
    expect(runManifests()).toHaveLength(3);
  });
});
