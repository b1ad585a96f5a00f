import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { freePort } from '../../scripts/swift-server.mjs';
import { alertsFiring } from '../helpers/alerts.js';
import { runCli } from '../helpers/cli.js';
import { parseSamples, promtool, sumOf, type Sample } from '../helpers/exposition.js';
import { startCli } from '../helpers/process.js';
import { tempDir } from '../helpers/tempDir.js';

const TEN_MINUTES = 600;
const NEVER = '0 0 1 1 *';
const TARGET = 's3://analytics-exports/daily';

let sim: SimulatorHandle;
const dir = tempDir('loyalty-publication-');
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startSimulator({ seed: 26, size: 'tiny' });
  env = {
    LOYALTY_API_KEY: sim.keys.full,
    LOYALTY_BASE_URL: sim.url,
    LOYALTY_DB: join(dir, 'mirror.db'),
    LOYALTY_EXPORT_DIR: join(dir, 'exports'),
    LOYALTY_EXPORT_URL: TARGET,
    // An object store nobody listens on: every publication fails, before any file goes up.
    AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${await freePort()}`,
    AWS_ACCESS_KEY_ID: 'test-key-id',
    AWS_SECRET_ACCESS_KEY: 'test-secret',
    AWS_REGION: 'us-east-1',
    AWS_EC2_METADATA_DISABLED: 'true',
  };
});
afterAll(async () => sim.close());

/** Per stream and kind, the findings the mirror's schema_drift holds. */
function driftInMirror(): Map<string, number> {
  const db = openDatabase(env.LOYALTY_DB, { readonly: true });
  try {
    const rows = db.prepare('SELECT stream, kind, count(*) AS n FROM schema_drift GROUP BY stream, kind').all() as Array<{ stream: string; kind: string; n: number }>;
    return new Map(rows.map((row) => [`${row.stream}/${row.kind}`, row.n]));
  } finally {
    db.close();
  }
}

describe('metrics of publications and schema drift', () => {
  it('once counts a failed publication to export.url and stamps its time, so LoyaltyExportPublicationFailed fires; the drift gauges equal schema_drift', async () => {
    const file = join(dir, 'loyalty_sync.prom');
    const startedAt = Date.now() / 1000;
    const result = await runCli(['once', '--metrics-file', file], { env });
    const ranAt = new Date();
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^FAIL export failed: .*Cannot reach the object store/m);
    const text = readFileSync(file, 'utf8');
    expect((await promtool(['check', 'metrics'], text)).output).toBe('');
    const samples = parseSamples(text);

    expect(sumOf(samples, 'loyalty_export_publications_total', { outcome: 'failed' })).toBe(1);
    expect(sumOf(samples, 'loyalty_export_publications_total', { outcome: 'completed' })).toBe(0);
    const failedAt = sumOf(samples, 'loyalty_export_publication_last_failure_timestamp_seconds');
    expect(failedAt).toBeGreaterThanOrEqual(startedAt);
    expect(failedAt).toBeLessThanOrEqual(ranAt.getTime() / 1000);
    expect(await alertsFiring(samples, ranAt, TEN_MINUTES)).toEqual(['LoyaltyExportPublicationFailed']);

    // One series per configured stream and kind, each what the mirror recorded; the simulator serves some drift.
    const drift = samples.filter((sample) => sample.name === 'loyalty_schema_drift_findings');
    expect(drift.map((sample) => `${sample.labels.stream}/${sample.labels.kind}`).sort()).toEqual(
      ['activities', 'customers', 'orders', 'transactions', 'unsubscribes'].flatMap((stream) => ['enum_value', 'field', 'type'].map((kind) => `${stream}/${kind}`)),
    );
    const recorded = driftInMirror();
    expect([...recorded.values()].some((count) => count > 0)).toBe(true);
    for (const sample of drift) expect(sample.value, `${sample.labels.stream}/${sample.labels.kind}`).toBe(recorded.get(`${sample.labels.stream}/${sample.labels.kind}`) ?? 0);
  });

  it('run, restarted after a publication failed mid-way, reads the failure from the mirror, so the alert stays up', async () => {
    // What a run whose upload failed leaves in the mirror (the test cannot make the store fail half-way here).
    const failedAt = new Date(Date.now() - 60_000).toISOString();
    const db = openDatabase(env.LOYALTY_DB);
    db.prepare(`INSERT INTO export_runs (run_id, kind, status, pid, started_at, finished_at, formats, error) VALUES ('20261101T020000Z-dead', 'full', 'failed', 1, ?, ?, 'csv,parquet', 'upload refused')`).run(failedAt, failedAt);
    db.prepare(`INSERT INTO export_publications (run_id, target, status, started_at, finished_at, error) VALUES ('20261101T020000Z-dead', ?, 'failed', ?, ?, 'upload refused')`).run(TARGET, failedAt, failedAt);
    db.close();

    const configFile = join(dir, 'config.json');
    writeFileSync(configFile, JSON.stringify({ schedule: { sync: NEVER, refresh: NEVER, push: NEVER, export: NEVER, verify: NEVER } }));
    const proc = startCli(['--config', configFile, 'run', '--metrics-listen', '127.0.0.1:0'], env);
    onTestFinished(() => {
      if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
    });
    const serving = await proc.waitForLine((line) => typeof line.msg === 'string' && line.msg.startsWith('serving /metrics'));
    const base = `http://127.0.0.1:${String(serving.port)}`;
    while ((await fetch(`${base}/readyz`)).status !== 200) await sleep(50);
    const scrapedAt = new Date();
    const samples: Sample[] = parseSamples(await (await fetch(`${base}/metrics`)).text());
    proc.child.kill('SIGTERM');
    expect((await proc.exited).code, proc.stderr()).toBe(0);

    expect(sumOf(samples, 'loyalty_export_publication_last_failure_timestamp_seconds')).toBe(Date.parse(failedAt) / 1000);
    // The counter counts this process's publications only; it starts at 0 when a target is configured.
    expect(samples.filter((sample) => sample.name === 'loyalty_export_publications_total').map((sample) => `${sample.labels.outcome}=${sample.value}`).sort()).toEqual(['completed=0', 'failed=0']);
    expect(await alertsFiring(samples, scrapedAt, TEN_MINUTES)).toEqual(['LoyaltyExportPublicationFailed']);
  });
});
