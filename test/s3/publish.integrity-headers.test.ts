import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { createBucketClient } from '../../src/bucket/client.js';
import { BucketObjects } from '../../src/bucket/objects.js';
import { StreamingUpload } from '../../src/bucket/streamingUpload.js';
import { runExport, type ExportReport } from '../../src/export/index.js';
import { exportConfig, fillMirror, silentLogger, tempDir } from '../export/helpers.js';
import { startFaultProxy, type FaultProxy } from './faultProxy.js';
import { listKeys, newBucket, storeClient, swift, testS3Settings, useAwsEnv } from './helpers.js';

const PART = 5 * 1024 * 1024;
const base64 = (algorithm: string, bytes: Buffer | string): string => createHash(algorithm).update(bytes).digest('base64');
const crc32Base64 = (bytes: Buffer): string => {
  const digest = Buffer.alloc(4);
  digest.writeUInt32BE(crc32(bytes));
  return digest.toString('base64');
};
const hex = (algorithm: string, bytes: Buffer | string): string => createHash(algorithm).update(bytes).digest('hex');

describe('what each upload asks the store to check', () => {
  const client = storeClient();
  const dir = tempDir();
  let proxy: FaultProxy;
  let bucket: string;
  let first: ExportReport;
  let report: ExportReport;

  beforeAll(async () => {
    proxy = await startFaultProxy(swift().endpoint);
    useAwsEnv(proxy.endpoint);
    bucket = await newBucket(client);
    const config = exportConfig(dir, { url: `s3://${bucket}/p`, retainRuns: 1, s3: testS3Settings() }) as Config;
    const db = await fillMirror(config.db.path, 2, 'tiny');
    first = await runExport({ db, config, logger: silentLogger, formats: ['csv'], tables: ['customers'] });
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

  it('outside AWS, DeleteObjects carries Content-MD5 instead of the SDK CRC32, which Swift requires', async () => {
    const deletion = proxy.writes.find((write) => write.method === 'POST' && write.path.includes('delete'))!;
    expect(deletion).toBeDefined();
    expect(deletion.headers['content-md5']).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(Object.keys(deletion.headers).filter((name) => name.startsWith('x-amz-checksum-'))).toEqual([]);
    // The store took it: the expired run is gone.
    const keys = await listKeys(client, bucket, 'p/');
    expect(keys).not.toContain(`p/manifests/${first.runId}.json`);
    expect(keys).not.toContain(`p/${first.files[0].path}`);
    expect(keys).toContain(`p/${report.files[0].path}`);
  });

  it('on AWS, a single PUT carries the file SHA-256, and each part of a multipart upload is signed with its own SHA-256 and carries the CRC32 its upload names', async () => {
    // AWS verifies x-amz-checksum-sha256; Swift ignores it, so the requests are what can be checked here.
    const { accessKeyId, secretAccessKey } = swift();
    const s3 = new S3Client({ endpoint: proxy.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
    const objects = new BucketObjects({ s3, endpointLabel: 'AWS S3 (us-east-1)', isAws: true }, { bucket, prefix: 'aws', url: `s3://${bucket}/aws` }, silentLogger);
    const send = async (path: string, bytes: Buffer): Promise<void> => {
      const upload = new StreamingUpload(objects, path, 'csv', PART);
      for (let offset = 0; offset < bytes.byteLength; offset += 1024 * 1024) await upload.write(bytes.subarray(offset, offset + 1024 * 1024));
      await upload.finish({ bytes: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex') });
    };
    const small = randomBytes(1000);
    await send('customers/dt=2026-01-01/customers-20260101T000000Z-aaaa.csv', small);
    const put = proxy.writes.find((write) => write.method === 'PUT' && write.path.startsWith('aws/customers/'))!;
    expect(put.headers['x-amz-checksum-sha256']).toBe(base64('sha256', small));
    expect(put.headers['x-amz-meta-sha256']).toBe(createHash('sha256').update(small).digest('hex'));
    expect(put.headers['content-md5']).toBeUndefined();

    const big = randomBytes(2 * PART + 12345);
    // Swift's S3 API predates part checksums in CompleteMultipartUpload and refuses them as MalformedXML;
    // AWS needs them once the upload names an algorithm. So here the requests are what is checked.
    await expect(send('transactions/dt=2026-01-01/transactions-20260101T000000Z-aaaa.csv', big)).rejects.toThrow(/CompleteMultipartUpload .*MalformedXML/);
    const parts = proxy.writes.filter((write) => write.method === 'PUT' && write.path.startsWith('aws/transactions/') && write.path.includes('partNumber='));
    expect(parts.map((part) => Number(/partNumber=(\d+)/.exec(part.path)![1])).sort()).toEqual([1, 2, 3]);
    for (const part of parts) {
      const number = Number(/partNumber=(\d+)/.exec(part.path)![1]);
      const bytes = big.subarray((number - 1) * PART, number * PART);
      expect(part.headers['x-amz-content-sha256']).toBe(hex('sha256', bytes));
      expect(part.headers['x-amz-checksum-crc32']).toBe(crc32Base64(bytes));
    }
    const created = proxy.writes.find((write) => write.method === 'POST' && write.path.startsWith('aws/transactions/') && /[?&]uploads(&|=|$)/.test(write.path))!;
    expect(created.headers['x-amz-checksum-algorithm']).toBe('CRC32');
    const completion = proxy.writes.findLast((write) => write.method === 'POST' && write.path.startsWith('aws/transactions/') && write.path.includes('uploadId='))!;
    for (const number of [1, 2, 3]) {
      const part = new RegExp(`<Part>(?=(?:(?!</Part>).)*<PartNumber>${number}</PartNumber>)(?:(?!</Part>).)*</Part>`).exec(completion.body)?.[0];
      expect(part, completion.body).toContain(`<ChecksumCRC32>${crc32Base64(big.subarray((number - 1) * PART, number * PART))}</ChecksumCRC32>`);
    }
    s3.destroy();
  });

  it('outside AWS, each part of a multipart upload is signed with the SHA-256 of its bytes, which the store checks', async () => {
    const bucketClient = createBucketClient(testS3Settings());
    expect(bucketClient.isAws).toBe(false);
    const objects = new BucketObjects(bucketClient, { bucket, prefix: 'other', url: `s3://${bucket}/other` }, silentLogger);
    const big = randomBytes(PART + 777);
    const upload = new StreamingUpload(objects, 'orders/dt=2026-01-01/orders-20260101T000000Z-aaaa.csv', 'csv', PART);
    await upload.write(big);
    await upload.finish({ bytes: big.byteLength, sha256: createHash('sha256').update(big).digest('hex') });
    const parts = proxy.writes.filter((write) => write.method === 'PUT' && write.path.startsWith('other/orders/') && write.path.includes('partNumber='));
    expect(parts).toHaveLength(2);
    for (const part of parts) {
      const number = Number(/partNumber=(\d+)/.exec(part.path)![1]);
      expect(part.headers['x-amz-content-sha256']).toBe(hex('sha256', big.subarray((number - 1) * PART, number * PART)));
      expect(Object.keys(part.headers).filter((name) => name.startsWith('x-amz-checksum-') || name === 'expect')).toEqual([]);
    }
    bucketClient.s3.destroy();
  });
});
