import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import type { Db } from '../../src/db/open.js';
import type { ApiRecord } from '../../src/db/upsertRecords.js';
import { lastPublication, runExport, type ExportReport, type Manifest } from '../../src/export/index.js';
import { duckdb, exportConfig, fillMirror, query, silentLogger, tempDir, upsert } from '../export/helpers.js';
import { startFaultProxy, type FaultProxy } from './faultProxy.js';
import { getBytes, getJson, listKeys, newBucket, openUploads, sha256, storeClient, swift, testS3Settings, useAwsEnv } from './helpers.js';

const PREFIX = 'warehouse/loyalty';

describe('export --to s3:// through a store that throttles and drops connections', () => {
  const client = storeClient();
  const dir = tempDir();
  let proxy: FaultProxy;
  let bucket: string;
  let db: Db;
  let config: Config;
  let report: ExportReport;

  beforeAll(async () => {
    // Every 4th write is answered 503 SlowDown; every 5th is applied but its answer never arrives.
    proxy = await startFaultProxy(swift().endpoint, { fault: ({ number }) => (number % 4 === 1 ? 'slowdown' : number % 5 === 3 ? 'drop-after-apply' : 'pass') });
    useAwsEnv(proxy.endpoint);
    bucket = await newBucket(client);
    config = exportConfig(dir, { url: `s3://${bucket}/${PREFIX}`, s3: testS3Settings() }) as Config;
    db = await fillMirror(config.db.path);
    report = await runExport({ db, config, logger: silentLogger });
  });
  afterAll(async () => {
    db.close();
    await proxy.close();
  });

  it('met faults of both kinds on the way', () => {
    expect(proxy.slowdowns).toBeGreaterThan(0);
    expect(proxy.drops).toBeGreaterThan(0);
  });

  it('publishes every file of the manifest with its bytes and sha256, then the manifest, then latest.json', async () => {
    expect(report.publication).toMatchObject({ url: `s3://${bucket}/${PREFIX}`, manifestUrl: `s3://${bucket}/${PREFIX}/manifests/${report.runId}.json` });
    const manifest = await getJson<Manifest>(client, bucket, `${PREFIX}/manifests/${report.runId}.json`);
    expect(await getJson<Manifest>(client, bucket, `${PREFIX}/manifests/latest.json`)).toEqual(manifest);
    expect(manifest.files).toEqual(report.files);
    // Five streams and three model tables, in CSV and Parquet.
    expect(manifest.files).toHaveLength(16);
    for (const file of manifest.files) {
      const bytes = await getBytes(client, bucket, `${PREFIX}/${file.path}`);
      expect(bytes.byteLength, file.path).toBe(file.bytes);
      expect(sha256(bytes), file.path).toBe(file.sha256);
    }
    // Nothing else: retried PUTs replaced the same keys, and no multipart upload was left open.
    const expected = [...manifest.files.map((file) => `${PREFIX}/${file.path}`), `${PREFIX}/manifests/${report.runId}.json`, `${PREFIX}/manifests/latest.json`].sort();
    expect(await listKeys(client, bucket)).toEqual(expected);
    expect(await openUploads(client, bucket)).toEqual([]);
  });

  it('keeps the local copy too by default', () => {
    expect(existsSync(report.manifestPath)).toBe(true);
    for (const file of report.files) expect(existsSync(join(config.export.dir, file.path))).toBe(true);
  });

  it('gives DuckDB Parquet files from the bucket with the mirror row counts and types', async () => {
    const duck = await duckdb();
    try {
      for (const file of report.files.filter((entry) => entry.format === 'parquet')) {
        const local = join(tempDir(), `${file.table}.parquet`);
        await writeFile(local, await getBytes(client, bucket, `${PREFIX}/${file.path}`));
        const [row] = await query(duck.connection, `SELECT count(*)::VARCHAR AS n FROM '${local}'`);
        expect(Number(row.n), file.table).toBe(db.prepare(`SELECT count(*) FROM ${file.table}`).pluck().get());
        if (file.table === 'orders') {
          const types = Object.fromEntries((await query(duck.connection, `DESCRIBE SELECT * FROM '${local}'`)).map((column) => [column.column_name, column.column_type]));
          expect(types).toMatchObject({ id: 'BIGINT', total: 'DECIMAL(18,2)', created_at: 'TIMESTAMP WITH TIME ZONE', raw: 'VARCHAR' });
        }
      }
    } finally {
      duck.close();
    }
  });

  it('records the publication for status', () => {
    const bytes = report.files.reduce((sum, file) => sum + file.bytes, 0);
    expect(lastPublication(db)).toMatchObject({ runId: report.runId, target: `s3://${bucket}/${PREFIX}`, status: 'completed', files: 16 });
    expect(lastPublication(db)!.bytes).toBeGreaterThan(bytes);
  });
});

describe('export.keepLocal false, and --since-last against a bucket', () => {
  const client = storeClient();
  const dir = tempDir();
  let bucket: string;
  let db: Db;
  let config: Config;

  beforeAll(async () => {
    useAwsEnv();
    bucket = await newBucket(client);
    config = exportConfig(dir, { url: `s3://${bucket}/${PREFIX}`, keepLocal: false, s3: testS3Settings() }) as Config;
    db = await fillMirror(config.db.path, 3, 'tiny');
  });
  afterAll(() => db.close());

  it('leaves no local copy of a published run', async () => {
    const report = await runExport({ db, config, logger: silentLogger, formats: ['csv'] });
    expect(report.manifestPath).toBe(`s3://${bucket}/${PREFIX}/manifests/${report.runId}.json`);
    expect(report.publication?.keptLocal).toBe(false);
    for (const file of report.files) expect(existsSync(join(config.export.dir, file.path)), file.path).toBe(false);
    expect(existsSync(join(config.export.dir, 'manifests'))).toBe(false);
  });

  it('ships only the rows changed since the previous published run', async () => {
    const template = JSON.parse(db.prepare('SELECT raw FROM transactions LIMIT 1').pluck().get() as string) as ApiRecord;
    upsert(db, 'transactions', [{ ...template, id: 900_000_001 }]);
    const report = await runExport({ db, config, logger: silentLogger, formats: ['csv'], sinceLast: true });
    expect(report.kind).toBe('since_last');
    const latest = await getJson<Manifest>(client, bucket, `${PREFIX}/manifests/latest-changes.json`);
    expect(latest.runId).toBe(report.runId);
    // The models (empty in this mirror, which no sync built) are taken whole by every run.
    expect(Object.fromEntries(latest.files.map((file) => [file.table, file.rows]))).toEqual({ customers: 0, orders: 0, activities: 0, transactions: 1, unsubscribes: 0, customer_points_daily: 0, points_ledger_daily: 0, program_metrics_daily: 0 });
    const csv = (await getBytes(client, bucket, `${PREFIX}/${latest.files.find((file) => file.table === 'transactions')!.path}`)).toString('utf8');
    expect(csv.split('\n')[1]).toMatch(/^900000001,/);
  });

  it('sends a full snapshot to a prefix that holds none of the earlier runs, then deltas on top of it', async () => {
    const elsewhere = { ...config, export: { ...config.export, url: `s3://${bucket}/${PREFIX}-new` } } as Config;
    const first = await runExport({ db, config: elsewhere, logger: silentLogger, formats: ['csv'], sinceLast: true });
    expect(first.kind).toBe('full');
    expect(first.files.find((file) => file.table === 'transactions')!.rows).toBe(db.prepare('SELECT count(*) FROM transactions').pluck().get());
    const second = await runExport({ db, config: elsewhere, logger: silentLogger, formats: ['csv'], sinceLast: true });
    expect(second.kind).toBe('since_last');
    expect(second.files.every((file) => file.rows === 0)).toBe(true);
  });
});
