import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import type { Config } from '../../src/config.js';
import type { Db } from '../../src/db/open.js';
import { runExport, type ExportReport } from '../../src/export/index.js';
import { bigTransactionsMirror } from '../export/bigMirror.js';
import { exportConfig, silentLogger, tempDir } from '../export/helpers.js';
import { getBytes, newBucket, openUploads, sha256, storeClient, testS3Settings, useAwsEnv } from './helpers.js';

const MIB = 1024 * 1024;

describe('a file larger than one part', () => {
  const client = storeClient();
  const dir = tempDir();
  let bucket: string;
  let db: Db;
  let report: ExportReport;
  let peakGrowth = 0;

  beforeAll(async () => {
    useAwsEnv();
    bucket = await newBucket(client);
    const config = exportConfig(dir, { url: `s3://${bucket}/loyalty`, s3: testS3Settings() }) as Config;
    db = bigTransactionsMirror(join(dir, 'mirror.db'), 120_000);
    // Live buffer memory, sampled after a collection while the export runs: a file read whole would show as its size.
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    collect();
    const base = process.memoryUsage().arrayBuffers;
    const sampler = setInterval(() => {
      collect();
      peakGrowth = Math.max(peakGrowth, process.memoryUsage().arrayBuffers - base);
    }, 20);
    try {
      report = await runExport({ db, config, logger: silentLogger, formats: ['csv'], tables: ['transactions'] });
    } finally {
      clearInterval(sampler);
    }
  });
  afterAll(() => db.close());

  it('goes up as a multipart upload and arrives whole', async () => {
    const [file] = report.files;
    const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: `loyalty/${file.path}` }));
    // A multipart object's ETag is the digest of its parts' digests, suffixed with the part count.
    expect(head.ETag).toMatch(new RegExp(`-${Math.ceil(file.bytes / (5 * MIB))}"$`));
    expect(sha256(await getBytes(client, bucket, `loyalty/${file.path}`))).toBe(file.sha256);
    expect(await openUploads(client, bucket)).toEqual([]);
  });

  it('goes up part by part as it is written: buffers never hold more than a few parts, not the file', () => {
    const [file] = report.files;
    expect(file.bytes).toBeGreaterThan(12 * 5 * MIB);
    expect(peakGrowth).toBeLessThan(8 * 5 * MIB);
  });
});
