import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import type { Db } from '../../src/db/open.js';
import { runExport, type Manifest } from '../../src/export/index.js';
import { bigTransactionsMirror } from '../export/bigMirror.js';
import { exportConfig, silentLogger, tempDir } from '../export/helpers.js';
import { startFaultProxy, type FaultProxy, type WriteFault, type WriteSeen } from './faultProxy.js';
import { getJson, listKeys, newBucket, openUploads, storeClient, swift, testS3Settings, useAwsEnv } from './helpers.js';

const PREFIX = 'loyalty';

describe('a store that refuses or loses the answer to a write at the worst moments', () => {
  const client = storeClient();
  const dir = tempDir();
  let bucket: string;
  let proxy: FaultProxy;
  let fault: ((write: WriteSeen) => WriteFault) | null = null;
  let db: Db;
  let config: Config;
  let baseline: string;

  beforeAll(async () => {
    proxy = await startFaultProxy(swift().endpoint, { fault: (write) => fault?.(write) ?? 'pass' });
    useAwsEnv(proxy.endpoint);
    bucket = await newBucket(client);
    config = exportConfig(dir, { url: `s3://${bucket}/${PREFIX}`, s3: testS3Settings() }) as Config;
    // About 17 MB of CSV: four parts of 5 MiB.
    db = bigTransactionsMirror(config.db.path, 30_000);
    baseline = (await runExport({ db, config, logger: silentLogger, tables: ['transactions'] })).runId;
  });
  afterAll(async () => {
    db.close();
    await proxy.close();
  });

  // Every run here exports one table: its pointer is latest-partial.json.
  const latest = async (): Promise<string> => (await getJson<Manifest>(client, bucket, `${PREFIX}/manifests/latest-partial.json`)).runId;

  it('a completion applied but unanswered is recognised by the object itself', async () => {
    let dropped = 0;
    fault = (write) => (write.method === 'POST' && /\?uploadId=/.test(write.path) && dropped++ === 0 ? 'drop-after-apply' : 'pass');
    const report = await runExport({ db, config, logger: silentLogger, tables: ['transactions'] });
    expect(dropped).toBeGreaterThan(0);
    expect(await latest()).toBe(report.runId);
    expect(await openUploads(client, bucket)).toEqual([]);
  });

  it('an upload begun twice because its first answer was lost leaves no unfinished upload behind', async () => {
    let dropped = 0;
    fault = (write) => (write.method === 'POST' && /\?uploads/.test(write.path) && dropped++ === 0 ? 'drop-after-apply' : 'pass');
    const report = await runExport({ db, config, logger: silentLogger, tables: ['transactions'] });
    expect(dropped).toBeGreaterThan(1);
    expect(await latest()).toBe(report.runId);
    expect(await openUploads(client, bucket)).toEqual([]);
  });

  it('a part corrupted on the way is refused by the store: the export fails and publishes nothing', async () => {
    const before = await latest();
    let corrupted = 0;
    fault = (write) => (write.method === 'PUT' && /partNumber=2&/.test(write.path) && corrupted++ === 0 ? 'corrupt' : 'pass');
    await expect(runExport({ db, config, logger: silentLogger, tables: ['transactions'] })).rejects.toThrow(/UploadPart on bucket/);
    expect(proxy.corruptions).toBe(1);
    expect(await latest()).toBe(before);
    expect(await openUploads(client, bucket)).toEqual([]);
  });

  it('when the pointer cannot be written, the run manifest already out keeps every file it lists', async () => {
    fault = (write) => (/manifests\/latest-partial\.json/.test(write.path) ? 'slowdown' : 'pass');
    await expect(runExport({ db, config, logger: silentLogger, tables: ['transactions'] })).rejects.toThrow(/PutObject/);
    fault = null;
    const keys = await listKeys(client, bucket, `${PREFIX}/`);
    const runManifests = keys.filter((key) => /manifests\/\d{8}T/.test(key));
    for (const key of runManifests) {
      for (const file of (await getJson<Manifest>(client, bucket, key)).files) expect(keys, `${key} lists ${file.path}`).toContain(`${PREFIX}/${file.path}`);
    }
    expect(runManifests.length).toBeGreaterThanOrEqual(3);
    expect(await latest()).not.toBe(baseline);

    // The next export publishes normally, and removes nothing a manifest lists.
    const next = await runExport({ db, config, logger: silentLogger, tables: ['transactions'] });
    expect(await latest()).toBe(next.runId);
    const after = await listKeys(client, bucket, `${PREFIX}/`);
    for (const key of runManifests) {
      for (const file of (await getJson<Manifest>(client, bucket, key)).files) expect(after).toContain(`${PREFIX}/${file.path}`);
    }
  });
});
