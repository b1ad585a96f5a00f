import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import type { Db } from '../../src/db/open.js';
import { runExport } from '../../src/export/index.js';
import { exportConfig, fillMirror, silentLogger, tempDir } from '../export/helpers.js';
import { startFaultProxy, type FaultProxy } from './faultProxy.js';
import { newBucket, storeClient, swift, testS3Settings, useAwsEnv } from './helpers.js';

/** Every file below `dir`, at any depth. */
function filesBelow(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
  } catch {
    return [];
  }
}

/**
 * With export.keepLocal false, a stateless job's export folder lies on the container's /tmp, which Cloud Run
 * counts as memory: the export must not hold the whole run there until the end. Each time a write reaches
 * the store, the proxy looks at how many files the export folder holds.
 */
describe('export.keepLocal false: the export folder holds one file at a time, not the whole run', () => {
  const client = storeClient();
  const dir = tempDir();
  let proxy: FaultProxy;
  let db: Db;
  let config: Config;
  let most = 0;

  beforeAll(async () => {
    proxy = await startFaultProxy(swift().endpoint, { onWrite: () => (most = Math.max(most, filesBelow(join(dir, 'exports')).length)) });
    useAwsEnv(proxy.endpoint);
    const bucket = await newBucket(client);
    config = exportConfig(dir, { url: `s3://${bucket}/one-at-a-time`, keepLocal: false, s3: testS3Settings() }) as Config;
    db = await fillMirror(config.db.path, 3, 'tiny');
  });
  afterAll(async () => {
    db.close();
    await proxy.close();
    client.destroy();
  });

  it('publishes every file while at most the file being written and the one uploading lie on disk', async () => {
    const report = await runExport({ db, config, logger: silentLogger, formats: ['csv', 'parquet'] });
    expect(report.files.length).toBeGreaterThanOrEqual(10);
    expect(proxy.writes.length).toBeGreaterThan(report.files.length);
    expect(most, `the export folder held up to ${most} files at once`).toBeLessThanOrEqual(2);
    expect(filesBelow(join(dir, 'exports'))).toEqual([]);
  });
});
