import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_NAMES, type Config } from '../../src/config.js';
import type { Db } from '../../src/db/open.js';
import type { ApiRecord } from '../../src/db/upsertRecords.js';
import { createBucketClient } from '../../src/bucket/client.js';
import { BucketDeltaStore } from '../../src/export/delta/bucketStore.js';
import { runExport } from '../../src/export/index.js';
import { parseBucketPlace } from '../../src/bucket/place.js';
import { exportConfig, fillMirror, silentLogger, tempDir, upsert } from '../export/helpers.js';
import { expectEngineReadsMirror } from '../export/delta/engineChecks.js';
import { deltaRows, liveMirrorRows } from '../export/delta/mirrorRows.js';
import { localCopy } from '../helpers/deltaEngine.js';
import { readDeltaTable } from '../helpers/deltaTable.js';
import { startFaultProxy, type FaultProxy } from './faultProxy.js';
import { listKeys, newBucket, storeClient, swift, testS3Settings, useAwsEnv } from './helpers.js';

const PREFIX = 'lake/loyalty';

describe('Delta tables in a bucket behind a faulty network path', () => {
  let db: Db;
  let config: Config;
  let proxy: FaultProxy;
  let bucket: string;
  let writes = 0;
  beforeAll(async () => {
    bucket = await newBucket(storeClient());
    // Every fifth write is answered 503 SlowDown, and every commit's first answer is lost after the store applied it.
    const committed = new Set<string>();
    proxy = await startFaultProxy(swift().endpoint, {
      fault: (write) => {
        writes += 1;
        if (write.method === 'PUT' && /_delta_log\/\d{20}\.json/.test(write.path) && !committed.has(write.path)) {
          committed.add(write.path);
          return 'drop-after-apply';
        }
        return writes % 5 === 0 ? 'slowdown' : 'pass';
      },
    });
    useAwsEnv(proxy.endpoint);
    const dir = tempDir('delta-bucket-');
    config = exportConfig(dir, { formats: ['delta'], url: `s3://${bucket}/${PREFIX}`, s3: testS3Settings() }) as Config;
    db = await fillMirror(config.db.path, 21, 'small');
  });
  afterAll(async () => {
    db.close();
    await proxy.close();
  });

  async function expectEqual(): Promise<void> {
    const client = createBucketClient(config.export.s3);
    const target = parseBucketPlace(config.export.url, 'export.url');
    for (const stream of STREAM_NAMES) {
      const expected = liveMirrorRows(db, stream);
      const bucketStore = BucketDeltaStore.create(client, target, stream, silentLogger, { partSizeBytes: 5 * 1024 * 1024 });
      const inBucket = await readDeltaTable(bucketStore);
      const onDisk = await readDeltaTable(join(config.export.dir, 'delta', stream));
      // Written together, the two places share every data file: each was read and encoded once.
      expect([...inBucket.state.files.keys()].sort(), stream).toEqual([...onDisk.state.files.keys()].sort());
      for (const [where, table] of [['bucket', inBucket], ['disk', onDisk]] as const) {
        expect(deltaRows(table), `${stream} in the ${where}`).toEqual(expected);
      }
      // The engine reads everything the bucket holds under the table, as a warehouse syncing the prefix would.
      expectEngineReadsMirror(db, stream, await localCopy(bucketStore));
      expectEngineReadsMirror(db, stream, join(config.export.dir, 'delta', stream));
    }
    client.s3.destroy();
  }

  /** What each table's log holds, as listed in the bucket itself (past the faulty path). */
  async function logListing(): Promise<Record<string, string[]>> {
    const client = storeClient();
    const logs: Record<string, string[]> = {};
    for (const stream of STREAM_NAMES) {
      const log = `${PREFIX}/delta/${stream}/_delta_log/`;
      logs[stream] = (await listKeys(client, bucket, log)).map((key) => key.slice(log.length));
    }
    client.destroy();
    return logs;
  }

  const commitFile = (version: number): string => `${String(version).padStart(20, '0')}.json`;

  it('writes every table to the bucket and the export folder, each equal to the mirror, each commit once', async () => {
    // The streams: the network faults are the point here (test/export/models writes the models).
    const report = await runExport({ db, config, logger: silentLogger, tables: [...STREAM_NAMES] });
    expect(report.delta.filter((table) => table.where === 'bucket').map((table) => [table.table, table.version])).toEqual(STREAM_NAMES.map((stream) => [stream, 0]));
    expect(proxy.drops).toBeGreaterThanOrEqual(STREAM_NAMES.length);
    expect(proxy.slowdowns).toBeGreaterThan(0);
    // Each lost answer was taken for the commit it answered: one commit per table in its log, none repeated.
    expect(await logListing()).toEqual(Object.fromEntries(STREAM_NAMES.map((stream) => [stream, [commitFile(0)]])));
    await expectEqual();
  });

  it('after changes, the next version in the bucket equals the mirror again', async () => {
    const customers = db.prepare('SELECT raw FROM customers ORDER BY id DESC LIMIT 7').pluck().all() as string[];
    upsert(db, 'customers', customers.map((raw) => ({ ...(JSON.parse(raw) as ApiRecord), points_balance: 4242 })));
    // The streams: the network faults are the point here (test/export/models writes the models).
    const report = await runExport({ db, config, logger: silentLogger, tables: [...STREAM_NAMES] });
    const bucketCustomers = report.delta.find((table) => table.table === 'customers' && table.where === 'bucket');
    expect(bucketCustomers).toMatchObject({ version: 1, committed: true });
    expect(report.delta.find((table) => table.table === 'transactions' && table.where === 'bucket')).toMatchObject({ version: 0, committed: false });
    expect(await logListing()).toEqual(Object.fromEntries(STREAM_NAMES.map((stream) => [stream, stream === 'customers' ? [commitFile(0), commitFile(1)] : [commitFile(0)]])));
    await expectEqual();
  });
});
