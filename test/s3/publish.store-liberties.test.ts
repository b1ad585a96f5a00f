import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import type { Db } from '../../src/db/open.js';
import { runExport, type Manifest } from '../../src/export/index.js';
import { exportConfig, fillMirror, tempDir } from '../export/helpers.js';
import { recordingLogger } from '../helpers/sync.js';
import { startFaultProxy, type FaultProxy, type WriteFault, type WriteSeen } from './faultProxy.js';
import { getJson, listKeys, newBucket, putText, storeClient, swift, testS3Settings, useAwsEnv } from './helpers.js';

const PREFIX = 'loyalty';
/** A data file of a run from 2020: long dead, listed by no manifest. */
const ORPHAN = `${PREFIX}/customers/dt=2020-01-01/customers-20200101T000000Z-0bad.csv`;
const isDeleteObjects = (write: WriteSeen): boolean => write.method === 'POST' && /[?&]delete(&|=|$)/.test(write.path);

describe('a store that takes the liberties S3 allows', () => {
  const client = storeClient();
  const dir = tempDir();
  let bucket: string;
  let proxy: FaultProxy;
  let fault: ((write: WriteSeen) => WriteFault) | null = null;
  let headWithoutLength = false;
  let cutRead: ((key: string) => boolean) | null = null;
  let notImplemented: ((method: string, path: string) => boolean) | null = null;
  let db: Db;
  let config: Config;

  beforeAll(async () => {
    proxy = await startFaultProxy(swift().endpoint, {
      fault: (write) => fault?.(write) ?? 'pass',
      headWithoutLength: () => headWithoutLength,
      cutRead: (key) => cutRead?.(key) ?? false,
      notImplemented: (method, path) => notImplemented?.(method, path) ?? false,
    });
    useAwsEnv(proxy.endpoint);
    bucket = await newBucket(client);
    config = exportConfig(dir, { url: `s3://${bucket}/${PREFIX}`, s3: testS3Settings() }) as Config;
    db = await fillMirror(config.db.path, 3, 'tiny');
    await runExport({ db, config, logger: recordingLogger().logger, tables: ['customers'] });
  });
  afterAll(async () => {
    db.close();
    await proxy.close();
  });

  // Every run here exports some tables only: its pointer is latest-partial.json.
  const latest = async (): Promise<string> => (await getJson<Manifest>(client, bucket, `${PREFIX}/manifests/latest-partial.json`)).runId;

  it('a cleanup the store refuses costs a warning, not the export; the next export removes the leftover', async () => {
    await putText(client, bucket, ORPHAN, 'id\n1\n');
    fault = (write) => (isDeleteObjects(write) ? 'deny' : 'pass');
    const { logger, records } = recordingLogger('warn');
    const report = await runExport({ db, config, logger, tables: ['customers'] });
    fault = null;
    expect(await latest()).toBe(report.runId);
    expect(records.map((record) => record.msg)).toContain('could not remove the leftovers of failed exports; the next export tries again');
    expect(await listKeys(client, bucket, `${PREFIX}/`)).toContain(ORPHAN);

    const next = await runExport({ db, config, logger: recordingLogger().logger, tables: ['customers'] });
    expect(await latest()).toBe(next.runId);
    expect(await listKeys(client, bucket, `${PREFIX}/`)).not.toContain(ORPHAN);
  });

  it('keys a DeleteObjects answer lists as InternalError are sent again until they go', async () => {
    await putText(client, bucket, ORPHAN, 'id\n1\n');
    let answered = 0;
    fault = (write) => (isDeleteObjects(write) && answered++ === 0 ? 'delete-errors' : 'pass');
    const report = await runExport({ db, config, logger: recordingLogger().logger, tables: ['customers'] });
    fault = null;
    expect(answered).toBeGreaterThanOrEqual(2);
    expect(await latest()).toBe(report.runId);
    expect(await listKeys(client, bucket, `${PREFIX}/`)).not.toContain(ORPHAN);
  });

  it('a HEAD answer without Content-Length is confirmed by the listing', async () => {
    headWithoutLength = true;
    const report = await runExport({ db, config, logger: recordingLogger().logger, tables: ['customers', 'orders'] });
    headWithoutLength = false;
    expect(await latest()).toBe(report.runId);
    const keys = await listKeys(client, bucket, `${PREFIX}/`);
    for (const file of report.files) expect(keys).toContain(`${PREFIX}/${file.path}`);
  });

  it('a manifest whose body is cut off mid-read is read again, so the leftover cleanup still runs', async () => {
    await putText(client, bucket, ORPHAN, 'id\n1\n');
    const cut = new Set<string>();
    cutRead = (key) => {
      if (!/\/manifests\/\d{8}T/.test(key) || cut.has(key)) return false;
      cut.add(key);
      return true;
    };
    const { logger, records } = recordingLogger('warn');
    const report = await runExport({ db, config, logger, tables: ['customers'] });
    cutRead = null;
    expect(cut.size).toBeGreaterThan(0);
    expect(await latest()).toBe(report.runId);
    expect(records.map((record) => record.msg)).not.toContain('could not remove the leftovers of failed exports; the next export tries again');
    expect(await listKeys(client, bucket, `${PREFIX}/`)).not.toContain(ORPHAN);
  });

  it('optional operations a store does not implement cost a warning: no upload listing, no batch delete', async () => {
    await putText(client, bucket, ORPHAN, 'id\n1\n');
    const refused: string[] = [];
    notImplemented = (method, path) => {
      const optional = (method === 'GET' && /[?&]uploads(&|=|$)/.test(path)) || (method === 'POST' && /[?&]delete(&|=|$)/.test(path));
      if (optional) refused.push(`${method} ${path}`);
      return optional;
    };
    const { logger, records } = recordingLogger('warn');
    const report = await runExport({ db, config, logger, tables: ['customers'] });
    notImplemented = null;
    expect(refused.some((request) => request.startsWith('GET'))).toBe(true);
    expect(refused.some((request) => request.startsWith('POST'))).toBe(true);
    expect(await latest()).toBe(report.runId);
    expect(records.map((record) => record.msg)).toContain('the object store does not list multipart uploads; set a lifecycle rule (AbortIncompleteMultipartUpload) to clear unfinished ones');
    // DeleteObjects refused: the leftover went by one DeleteObject.
    expect(await listKeys(client, bucket, `${PREFIX}/`)).not.toContain(ORPHAN);
  });
});
