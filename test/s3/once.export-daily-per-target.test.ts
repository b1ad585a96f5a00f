import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import type { Manifest } from '../../src/export/index.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { alertsFiring } from '../helpers/alerts.js';
import { runCli } from '../helpers/cli.js';
import { parseSamples, sumOf } from '../helpers/exposition.js';
import { tempDir } from '../helpers/tempDir.js';
import { awsEnv, getJson, listKeys, newBucket, storeClient } from './helpers.js';

const HOUR_MS = 3_600_000;

describe('once --export-daily is due per target and per format set', () => {
  const client = storeClient();
  const dir = tempDir('ls-daily-target-');
  let sim: SimulatorHandle;
  let bucket: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 26, size: 'tiny' });
    bucket = await newBucket(client);
    env = { ...awsEnv(), LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports') };
  });
  afterAll(async () => {
    await sim.close();
    client.destroy();
  });

  const exportLine = (stdout: string): string => stdout.split('\n').find((line) => line.slice(5).startsWith('export:')) ?? stdout;

  it("publishes the day's export to export.url though a full export went to another prefix today, and status --check watches that target", async () => {
    const daily = { ...env, LOYALTY_EXPORT_URL: `s3://${bucket}/daily` };
    expect((await runCli(['sync'], { env })).code).toBe(0);
    const adhoc = await runCli(['export', '--to', `s3://${bucket}/adhoc`], { env });
    expect(adhoc.code, adhoc.stderr).toBe(0);

    const metricsFile = join(dir, 'loyalty_sync.prom');
    const first = await runCli(['once', '--export-daily', '--metrics-file', metricsFile], { env: daily });
    expect(first.code, first.stderr).toBe(0);
    // The publication is counted, and with the export it made current, nothing pages.
    const samples = parseSamples(readFileSync(metricsFile, 'utf8'));
    expect(sumOf(samples, 'loyalty_export_publications_total', { outcome: 'completed' })).toBe(1);
    expect(sumOf(samples, 'loyalty_export_publications_total', { outcome: 'failed' })).toBe(0);
    expect(await alertsFiring(samples, new Date(), 10 * 60)).toEqual([]);
    expect(exportLine(first.stdout)).toMatch(new RegExp(`^ok {3}export: \\d+ files, .*published to s3://${bucket}/daily/manifests/`));
    const published = await getJson<Manifest>(client, bucket, 'daily/manifests/latest.json');
    expect(published.complete).toBe(true);
    expect(await listKeys(client, bucket, `daily/manifests/${published.runId}.json`)).toEqual([`daily/manifests/${published.runId}.json`]);

    const second = await runCli(['once', '--export-daily'], { env: daily });
    expect(second.code, second.stderr).toBe(0);
    expect(exportLine(second.stdout)).toMatch(new RegExp(`^ok {3}export: not due \\(--export-daily\\): today's full export ${published.runId} to s3://${bucket}/daily finished at `));

    // The export folder is a place of its own, and so is a format set: adding delta makes today's export due again.
    const formats = join(dir, 'with-delta.json');
    writeFileSync(formats, JSON.stringify({ export: { formats: ['csv', 'parquet', 'delta'] } }));
    const withDelta = await runCli(['--config', formats, 'once', '--export-daily'], { env });
    expect(withDelta.code, withDelta.stderr).toBe(0);
    expect(exportLine(withDelta.stdout)).toMatch(/^ok {3}export: \d+ files, .*Delta: 8 new version\(s\)$/);
    const again = await runCli(['--config', formats, 'once', '--export-daily'], { env });
    expect(exportLine(again.stdout)).toMatch(/^ok {3}export: not due \(--export-daily\): today's full export \S+ to the export folder /);

    // The daily publication ages while the other exports stay fresh: status --check sees the daily target's staleness.
    expect((await runCli(['status', '--check'], { env: daily })).stdout).toBe('healthy: streams synced, no dead or long-unknown jobs, exports current, deep refreshes on time\n');
    const db = openDatabase(env.LOYALTY_DB);
    db.prepare('UPDATE export_runs SET finished_at = ? WHERE run_id = ?').run(new Date(Date.now() - 30 * HOUR_MS).toISOString(), published.runId);
    db.close();
    const stale = await runCli(['status', '--check'], { env: daily });
    expect(stale.code, stale.stderr).toBe(1);
    expect(stale.stdout).toBe(`stale export: the last export to s3://${bucket}/daily (${published.runId}) finished 30h 0m ago (limit 26h)\n`);
    expect((await runCli(['status', '--check'], { env })).code).toBe(0);
  });
});
