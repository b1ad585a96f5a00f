import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_NAMES } from '../../src/config.js';
import type { Manifest } from '../../src/export/index.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tempDir.js';
import { awsEnv, getJson, newBucket, storeClient } from './helpers.js';

describe('once with export.url set (LOYALTY_EXPORT_URL)', () => {
  const client = storeClient();
  const dir = tempDir();
  let sim: SimulatorHandle;
  let bucket: string;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 21, size: 'tiny' });
    bucket = await newBucket(client);
  });
  afterAll(async () => {
    await sim.close();
    client.destroy();
  });

  it('syncs, pushes, and publishes the export to the bucket with the mirror row counts', async () => {
    const env = {
      ...awsEnv(),
      LOYALTY_API_KEY: sim.keys.full,
      LOYALTY_BASE_URL: sim.url,
      LOYALTY_DB: join(dir, 'mirror.db'),
      LOYALTY_EXPORT_DIR: join(dir, 'exports'),
      LOYALTY_EXPORT_URL: `s3://${bucket}/nightly`,
    };
    const customer = (sim.truth('customers') as Array<{ merchant_id: string; blocked: boolean }>).find((c) => !c.blocked)!;
    const queued = await runCli(['queue', 'add-points', '--customer', customer.merchant_id, '--points', '25', '--reason', 'published run'], { env });
    expect(queued.code, queued.stderr).toBe(0);

    // `once` syncs before it pushes: the export holds the program as it was before the credit.
    const synced = Object.fromEntries(STREAM_NAMES.map((stream) => [stream, sim.truth(stream).length]));

    const result = await runCli(['once'], { env });
    expect(result.code, result.stderr).toBe(0);
    // The queued credit reached the API, once.
    expect(sim.ledger().map(({ kind, target, body }) => ({ kind, target, body }))).toEqual([
      { kind: 'add_points', target: customer.merchant_id, body: expect.objectContaining({ points: 25 }) },
    ]);
    const manifest = await getJson<Manifest>(client, bucket, 'nightly/manifests/latest.json');
    expect(result.stdout).toContain(`published to s3://${bucket}/nightly/manifests/${manifest.runId}.json`);
    // The stream tables' rows (the ledger's models go out too, counted by their own tests).
    const rows = Object.fromEntries(manifest.files.filter((file) => file.format === 'csv' && file.table in synced).map((file) => [file.table, file.rows]));
    expect(rows).toEqual(synced);
  });
});
