import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { logPath, type LogEntry, type StateManifest } from '../../src/state/leaseLog.js';
import { runCli } from '../helpers/cli.js';
import { parseSamples, promtool, sumOf, type Sample } from '../helpers/exposition.js';
import { startCli } from '../helpers/process.js';
import { pushedGroup, startPushgateway, type PrometheusTool } from '../helpers/prometheus.js';
import { tempDir } from '../helpers/tempDir.js';
import { startConditionalPutProxy, type ConditionalPutProxy } from '../s3/conditionalPutProxy.js';
import { awsEnv, getJson, listKeys, newBucket, putText, storeClient, swift } from '../s3/helpers.js';

const PREFIX = 'ops';
/** Never within a test: `run` only starts, restores and serves. */
const NEVER = '0 0 1 1 *';

describe('operating the state in the bucket (state.url): status, metrics and skips', () => {
  const client = storeClient();
  let sim: SimulatorHandle;
  let proxy: ConditionalPutProxy;
  let gateway: PrometheusTool;
  let bucket: string;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 27, size: 'tiny' });
    proxy = await startConditionalPutProxy(swift().endpoint, client);
    gateway = await startPushgateway();
    bucket = await newBucket(client);
  });
  afterAll(async () => {
    await sim.close();
    await proxy.close();
    await gateway.stop();
    client.destroy();
  });

  /** A folder of its own for each run, as a job on a fresh container gets. */
  const freshEnv = () => {
    const dir = tempDir('loyalty-state-ops-');
    const configFile = join(dir, 'config.json');
    writeFileSync(configFile, JSON.stringify({ schedule: { sync: NEVER, refresh: NEVER, deepRefresh: NEVER, push: NEVER, export: NEVER, verify: NEVER } }));
    const env = {
      LOYALTY_CONFIG: configFile,
      ...awsEnv(proxy.endpoint),
      LOYALTY_API_KEY: sim.keys.full,
      LOYALTY_BASE_URL: sim.url,
      LOYALTY_DB: join(dir, 'mirror.db'),
      LOYALTY_EXPORT_DIR: join(dir, 'exports'),
      LOYALTY_STATE_URL: `s3://${bucket}/${PREFIX}`,
    };
    return { dir, env };
  };

  /** The state's log entry with the highest number, read straight from the store. */
  const newestEntry = async (): Promise<LogEntry & { manifest: StateManifest }> => {
    const keys = await listKeys(client, bucket, `${PREFIX}/state/log/`);
    return getJson(client, bucket, keys[keys.length - 1]);
  };

  /** The dump objects in the store, path (relative to the prefix) to size. */
  const dumpSizes = async (): Promise<Map<string, number>> => {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${PREFIX}/state/dumps/` }));
    return new Map((page.Contents ?? []).map((object) => [object.Key!.slice(PREFIX.length + 1), object.Size!]));
  };

  it('status shows where the state is, its last save, what a restore fetches, and the lease its last run released', async () => {
    const first = await runCli(['sync'], { env: freshEnv().env });
    expect(first.code, first.stderr).toBe(0);
    const entry = await newestEntry();
    const sizes = await dumpSizes();

    const json = await runCli(['status', '--json'], { env: freshEnv().env });
    expect(json.code, json.stderr).toBe(0);
    const state = (JSON.parse(json.stdout) as { state: unknown }).state;
    expect(state).toEqual({
      url: `s3://${bucket}/${PREFIX}`,
      lastSave: entry.manifest.savedAt,
      epoch: entry.manifest.epoch,
      bytes: [...sizes.values()].reduce((sum, size) => sum + size, 0),
      dumps: sizes.size,
      mirrorBytes: entry.manifest.mirrorBytes,
      lease: { holder: `sync on ${entry.holder.host} (pid ${entry.holder.pid})`, until: entry.leaseUntil, free: true, released: true },
    });
    expect(entry.kind).toBe('release');

    const text = await runCli(['status'], { env: freshEnv().env });
    expect(text.code, text.stderr).toBe(0);
    const { bytes, dumps } = state as { bytes: number; dumps: number };
    expect(text.stdout).toContain(
      `\n\nState\ns3://${bucket}/${PREFIX}\nlast save ${entry.manifest.savedAt} (epoch ${entry.manifest.epoch}): ${bytes} bytes in ${dumps} dumps, restoring a mirror of ${entry.manifest.mirrorBytes} bytes\nlease: free (released by sync on ${entry.holder.host} (pid ${entry.holder.pid}) at ${entry.leaseUntil})\n`,
    );
  });

  it('once --metrics-file reports its restore (bytes fetched, seconds) and every save (bytes written, seconds, kind) and the last save', async () => {
    const before = await newestEntry();
    const fetched = [before.manifest.base, ...before.manifest.segments].reduce((sum, dump) => sum + dump.bytes, 0);
    const { dir, env } = freshEnv();
    const metricsFile = join(dir, 'loyalty_sync.prom');
    const startedAt = Date.now() / 1000;
    const once = await runCli(['once', '--metrics-file', metricsFile], { env });
    const endedAt = Date.now() / 1000;
    expect(once.code, once.stderr).toBe(0);
    const text = readFileSync(metricsFile, 'utf8');
    expect((await promtool(['check', 'metrics'], text)).output).toBe('');
    const samples = parseSamples(text);

    expect(sumOf(samples, 'loyalty_state_restore_bytes')).toBe(fetched);
    expect(sumOf(samples, 'loyalty_state_restore_duration_seconds')).toBeGreaterThan(0);
    // The dumps this run's saves wrote: those the new state names and the old one did not.
    const after = await newestEntry();
    const named = (manifest: StateManifest) => [manifest.base, ...manifest.segments];
    const written = named(after.manifest).filter((dump) => !named(before.manifest).some((old) => old.path === dump.path));
    expect(written.length).toBeGreaterThan(0);
    expect(sumOf(samples, 'loyalty_state_save_bytes_count')).toBe(written.length);
    expect(sumOf(samples, 'loyalty_state_save_bytes_sum')).toBe(written.reduce((sum, dump) => sum + dump.bytes, 0));
    expect(sumOf(samples, 'loyalty_state_save_duration_seconds_count', { kind: 'segment' })).toBe(written.length);
    expect(sumOf(samples, 'loyalty_state_save_duration_seconds_sum')).toBeGreaterThan(0);
    const lastSave = sumOf(samples, 'loyalty_state_last_save_timestamp_seconds');
    expect(lastSave).toBeGreaterThanOrEqual(startedAt);
    expect(lastSave).toBeLessThanOrEqual(endedAt);
    expect(sumOf(samples, 'loyalty_state_lease_skips_total')).toBe(0);
  });

  it('run --metrics-listen serves the restore it made before it started serving, and the state\'s last save from its log', async () => {
    const entry = await newestEntry();
    const sizes = await dumpSizes();
    const { dir, env } = freshEnv();
    const proc = startCli(['run', '--metrics-listen', '127.0.0.1:0'], env);
    onTestFinished(() => {
      if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
    });
    const serving = await proc.waitForLine((line) => typeof line.msg === 'string' && line.msg.startsWith('serving /metrics'));
    const base = `http://127.0.0.1:${String(serving.port)}`;
    while ((await fetch(`${base}/readyz`)).status !== 200) await sleep(50);
    const samples = parseSamples(await (await fetch(`${base}/metrics`)).text());
    proc.child.kill('SIGTERM');
    expect((await proc.exited).code, proc.stderr()).toBe(0);
    expect(existsSync(join(dir, 'mirror.db'))).toBe(true);

    expect(sumOf(samples, 'loyalty_state_restore_bytes')).toBe([...sizes.values()].reduce((sum, size) => sum + size, 0));
    expect(sumOf(samples, 'loyalty_state_last_save_timestamp_seconds')).toBe(Date.parse(entry.manifest.savedAt) / 1000);
    // state.url is set: both kinds of save are served from 0, before the first.
    expect(series(samples, 'loyalty_state_save_duration_seconds_count')).toEqual(['kind=base 0', 'kind=segment 0']);
    expect(series(samples, 'loyalty_state_lease_skips_total')).toEqual([' 0']);
  });

  it("once that finds another run's live lease says who holds it until when, exits 0 without a mirror, and hands over the state's metrics alone, the skip counted", async () => {
    const entry = await newestEntry();
    const until = new Date(Date.now() + 10 * 60_000).toISOString();
    const planted: LogEntry = {
      ...entry,
      seq: entry.seq + 1,
      kind: 'take',
      writeId: 'planted-by-the-test',
      holder: { id: 'elsewhere:4242:0000', host: 'elsewhere', pid: 4242, command: 'once' },
      leaseUntil: until,
      writtenAt: new Date().toISOString(),
    };
    await putText(client, bucket, `${PREFIX}/${logPath(planted.seq)}`, JSON.stringify(planted));

    // The state once saved: a base and its segments.
    const sizes = await dumpSizes();
    expect(sizes.size).toBeGreaterThan(1);
    const status = await runCli(['status', '--json'], { env: freshEnv().env });
    expect(status.code, status.stderr).toBe(0);
    expect((JSON.parse(status.stdout) as { state: unknown }).state).toEqual({
      url: `s3://${bucket}/${PREFIX}`,
      lastSave: entry.manifest.savedAt,
      epoch: entry.manifest.epoch,
      bytes: [...sizes.values()].reduce((sum, size) => sum + size, 0),
      dumps: sizes.size,
      mirrorBytes: entry.manifest.mirrorBytes,
      lease: { holder: 'once on elsewhere (pid 4242)', until, free: false, released: false },
    });

    // What the last run that did the work left in the program's group: the skip must replace only the state's families.
    const whoami = (await (await fetch(`${sim.url}/v2/identity/whoami`, { headers: { authorization: `Bearer ${sim.keys.full}` } })).json()) as { identity: { program_id: number } };
    const group = { job: 'loyalty_sync', program_id: String(whoami.identity.program_id) };
    const earlier = await fetch(`${gateway.url}/metrics/job/loyalty_sync/program_id/${group.program_id}`, {
      method: 'PUT',
      body: 'loyalty_sync_runs_total{stream="orders",outcome="succeeded"} 3\nloyalty_state_lease_skips_total 0\n',
    });
    expect(earlier.status).toBe(200);

    const { dir, env } = freshEnv();
    const metricsFile = join(dir, 'loyalty_sync.prom');
    const once = await runCli(['once', '--metrics-file', metricsFile, '--pushgateway', gateway.url], { env });
    expect(once.code, once.stderr).toBe(0);
    expect(once.stdout).toBe(`once: skipped: the state at s3://${bucket}/${PREFIX} is leased to once on elsewhere (pid 4242) until ${until}.\n`);
    expect(existsSync(join(dir, 'mirror.db'))).toBe(false);

    const text = readFileSync(metricsFile, 'utf8');
    expect((await promtool(['check', 'metrics'], text)).output).toBe('');
    const written = parseSamples(text);
    expect(new Set(written.map((sample) => sample.name.replace(/_(bucket|sum|count)$/, '')))).toEqual(
      new Set(['loyalty_state_save_duration_seconds', 'loyalty_state_save_bytes', 'loyalty_state_last_save_timestamp_seconds', 'loyalty_state_lease_skips_total']),
    );
    expect(sumOf(written, 'loyalty_state_lease_skips_total')).toBe(1);
    expect(sumOf(written, 'loyalty_state_last_save_timestamp_seconds')).toBe(Date.parse(entry.manifest.savedAt) / 1000);

    const pushed = await pushedGroup(gateway, group);
    expect(sumOf(pushed, 'loyalty_sync_runs_total', { stream: 'orders', outcome: 'succeeded' })).toBe(3);
    expect(sumOf(pushed, 'loyalty_state_lease_skips_total')).toBe(1);
    expect(sumOf(pushed, 'loyalty_state_last_save_timestamp_seconds')).toBe(Date.parse(entry.manifest.savedAt) / 1000);
  });
});

/** A family's samples as `labels value`, sorted. */
function series(samples: Sample[], name: string): string[] {
  return samples
    .filter((sample) => sample.name === name)
    .map((sample) => `${Object.entries(sample.labels).map(([key, value]) => `${key}=${value}`).join(',')} ${sample.value}`)
    .sort();
}
