import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import type { Db } from '../../src/db/open.js';
import { runExport, type ExportReport, type Manifest } from '../../src/export/index.js';
import { exportConfig, fillMirror, silentLogger, tempDir } from '../export/helpers.js';
import { startFaultProxy, type FaultProxy } from './faultProxy.js';
import { getJson, listKeys, newBucket, putText, storeClient, swift, testS3Settings, useAwsEnv } from './helpers.js';

const PREFIX = 'team/loyalty';

/** Keys that share the bucket, the prefix's parent and even the prefix, and are none of the export's. */
const FOREIGN = [
  'team/other-tool/transactions/dt=2026-01-01/transactions-20200101T000000Z-aaaa.csv',
  'team/loyalty-archive/manifests/20200101T000000Z-aaaa.json',
  'team/loyalty-archive/transactions/dt=2020-01-01/transactions-20200101T000000Z-aaaa.csv',
  'team/notes.txt',
  'team/loyalty/README.txt',
  'team/loyalty/transactions/dt=2020-01-01/hand-made.csv',
  'team/loyalty/manifests/not-a-run.json',
  'team/loyalty/scratch/transactions-20200101T000000Z-aaaa.csv',
  'top-level.csv',
];

describe.each([
  ['a store that lists by continuation token', null],
  ['a store that lists two keys a page and gives no continuation token', 2],
] as const)('retention in the bucket (export.retainRuns), on %s', (_store, listPageKeys) => {
  const client = storeClient();
  const dir = tempDir();
  let bucket: string;
  let db: Db;
  let config: Config;
  const reports: ExportReport[] = [];

  let proxy: FaultProxy;

  beforeAll(async () => {
    proxy = await startFaultProxy(swift().endpoint, listPageKeys === null ? {} : { listPageKeys });
    useAwsEnv(proxy.endpoint);
    bucket = await newBucket(client);
    for (const key of FOREIGN) await putText(client, bucket, key, 'not the export\'s');
    config = exportConfig(dir, { url: `s3://${bucket}/${PREFIX}`, retainRuns: 2, s3: testS3Settings() }) as Config;
    db = await fillMirror(config.db.path, 4, 'tiny');
    for (let run = 0; run < 3; run += 1) reports.push(await runExport({ db, config, logger: silentLogger, formats: ['csv'], tables: ['transactions', 'customers'] }));
  });
  afterAll(async () => {
    db.close();
    await proxy.close();
  });

  const exportKeys = (report: ExportReport): string[] => [...report.files.map((file) => `${PREFIX}/${file.path}`), `${PREFIX}/manifests/${report.runId}.json`];

  it('keeps the newest runs and deletes the older ones, files and manifest', async () => {
    const keys = await listKeys(client, bucket);
    const expected = [...FOREIGN, ...exportKeys(reports[1]), ...exportKeys(reports[2]), `${PREFIX}/manifests/latest-partial.json`].sort();
    expect(keys).toEqual(expected);
    expect((await getJson<Manifest>(client, bucket, `${PREFIX}/manifests/latest-partial.json`)).runId).toBe(reports[2].runId);
  });

  it('never deletes a file that a kept manifest still lists', async () => {
    // A kept run's manifest that also lists a file of the run about to expire (as a hand-edited or
    // composed manifest could): that file must survive the expiry of its own run.
    const kept = await getJson<Manifest>(client, bucket, `${PREFIX}/manifests/${reports[2].runId}.json`);
    const shared = reports[1].files[0];
    await putText(client, bucket, `${PREFIX}/manifests/${reports[2].runId}.json`, JSON.stringify({ ...kept, files: [...kept.files, shared] }));
    const fourth = await runExport({ db, config, logger: silentLogger, formats: ['csv'], tables: ['transactions', 'customers'] });
    const keys = await listKeys(client, bucket);
    expect(keys).toContain(`${PREFIX}/${shared.path}`);
    expect(keys).not.toContain(`${PREFIX}/manifests/${reports[1].runId}.json`);
    for (const file of reports[1].files.slice(1)) expect(keys).not.toContain(`${PREFIX}/${file.path}`);
    for (const key of [...exportKeys(reports[2]), ...exportKeys(fourth), ...FOREIGN]) expect(keys).toContain(key);
  });
});
