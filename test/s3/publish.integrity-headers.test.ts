import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { BucketObjects } from '../../src/export/bucket/objects.js';
import { uploadFile } from '../../src/export/bucket/uploadFile.js';
import { runExport, type ExportReport, type ManifestFile } from '../../src/export/index.js';
import { exportConfig, fillMirror, silentLogger, tempDir } from '../export/helpers.js';
import { startFaultProxy, type FaultProxy } from './faultProxy.js';
import { newBucket, storeClient, swift, testS3Settings, useAwsEnv } from './helpers.js';

const base64 = (algorithm: string, bytes: Buffer | string): string => createHash(algorithm).update(bytes).digest('base64');

describe('what each upload asks the store to check', () => {
  const client = storeClient();
  const dir = tempDir();
  let proxy: FaultProxy;
  let bucket: string;
  let report: ExportReport;

  beforeAll(async () => {
    proxy = await startFaultProxy(swift().endpoint);
    useAwsEnv(proxy.endpoint);
    bucket = await newBucket(client);
    const config = exportConfig(dir, { url: `s3://${bucket}/p`, retainRuns: 1, s3: testS3Settings() }) as Config;
    const db = await fillMirror(config.db.path, 2, 'tiny');
    await runExport({ db, config, logger: silentLogger, formats: ['csv'], tables: ['customers'] });
    // The second run expires the first: its deletion is a DeleteObjects.
    report = await runExport({ db, config, logger: silentLogger, formats: ['csv'], tables: ['customers'] });
    db.close();
  });
  afterAll(() => proxy.close());

  it('outside AWS, a single PUT carries the Content-MD5 of its bytes, and no SDK checksum framing', async () => {
    const [file] = report.files;
    const put = proxy.writes.find((write) => write.method === 'PUT' && write.path.startsWith(`p/${file.path}`))!;
    expect(put.headers['content-md5']).toBe(base64('md5', await readFile(join(dir, 'exports', file.path))));
    expect(put.headers['x-amz-meta-sha256']).toBe(file.sha256);
    expect(Object.keys(put.headers).filter((name) => name.startsWith('x-amz-checksum-') || name === 'x-amz-trailer')).toEqual([]);
  });

  it('outside AWS, DeleteObjects carries Content-MD5 instead of the SDK CRC32', () => {
    const deletion = proxy.writes.find((write) => write.method === 'POST' && write.path.includes('delete'))!;
    expect(deletion).toBeDefined();
    expect(deletion.headers['content-md5']).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(Object.keys(deletion.headers).filter((name) => name.startsWith('x-amz-checksum-'))).toEqual([]);
  });

  it('on AWS, a single PUT carries the file SHA-256 for the store to verify', async () => {
    // AWS verifies x-amz-checksum-sha256; Swift ignores it, so the request is what can be checked here.
    const { accessKeyId, secretAccessKey } = swift();
    const s3 = new S3Client({ endpoint: proxy.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
    const objects = new BucketObjects({ s3, endpointLabel: 'AWS S3 (us-east-1)', isAws: true }, { bucket, prefix: 'aws', url: `s3://${bucket}/aws` }, silentLogger);
    const [file] = report.files;
    const local = join(dir, 'exports', file.path);
    const entry: ManifestFile = { ...file };
    await uploadFile(objects, local, entry, 5 * 1024 * 1024);
    const put = proxy.writes.filter((write) => write.method === 'PUT' && write.path.startsWith(`aws/${file.path}`)).at(-1)!;
    expect(put.headers['x-amz-checksum-sha256']).toBe(Buffer.from(file.sha256, 'hex').toString('base64'));
    expect(put.headers['content-md5']).toBeUndefined();
    s3.destroy();
  });
});
