import { MODEL_NAMES } from '../../src/ledger/models/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_NAMES, type Config } from '../../src/config.js';
import type { Db } from '../../src/db/open.js';
import type { ApiRecord } from '../../src/db/upsertRecords.js';
import { runExport, type ExportReport, type Manifest } from '../../src/export/index.js';
import { exportConfig, fillMirror, silentLogger, tempDir, upsert } from '../export/helpers.js';
import { getJson, listKeys, newBucket, storeClient, testS3Settings, useAwsEnv } from './helpers.js';

const PREFIX = 'loyalty';

describe('the bucket\'s manifests/latest.json after partial runs and runs of changes', () => {
  const client = storeClient();
  const dir = tempDir();
  let bucket: string;
  let db: Db;
  let full: ExportReport;
  let oneTable: ExportReport;
  let changes: ExportReport;
  let secondTable: ExportReport;
  let latestAfterOneTable: string;

  const pointer = (name: string): Promise<Manifest> => getJson<Manifest>(client, bucket, `${PREFIX}/manifests/${name}`);

  beforeAll(async () => {
    useAwsEnv();
    bucket = await newBucket(client);
    // Fewer runs kept than come after the complete one: retention must still keep what latest.json names.
    const config = exportConfig(dir, { url: `s3://${bucket}/${PREFIX}`, retainRuns: 2, s3: testS3Settings() }) as Config;
    db = await fillMirror(config.db.path, 13, 'tiny');
    full = await runExport({ db, config, logger: silentLogger, formats: ['csv'] });
    oneTable = await runExport({ db, config, logger: silentLogger, formats: ['csv'], tables: ['unsubscribes'] });
    latestAfterOneTable = (await pointer('latest.json')).runId;
    const template = JSON.parse(db.prepare('SELECT raw FROM transactions LIMIT 1').pluck().get() as string) as ApiRecord;
    upsert(db, 'transactions', [{ ...template, id: 700_000_002 }]);
    changes = await runExport({ db, config, logger: silentLogger, formats: ['csv'], sinceLast: true });
    secondTable = await runExport({ db, config, logger: silentLogger, formats: ['csv'], tables: ['customers'] });
  });
  afterAll(() => {
    db.close();
    client.destroy();
  });

  it('names the full run of every table, still', async () => {
    expect(latestAfterOneTable).toBe(full.runId);
    expect(changes.kind).toBe('since_last');
    const latest = await pointer('latest.json');
    expect(latest).toMatchObject({ runId: full.runId, kind: 'full', complete: true });
    expect([...new Set(latest.files.map((file) => file.table))].sort()).toEqual([...STREAM_NAMES, ...MODEL_NAMES].sort());
  });

  it('gives partial runs and runs of changes pointers of their own', async () => {
    expect(await pointer('latest-partial.json')).toMatchObject({ runId: secondTable.runId, complete: false });
    expect(await pointer('latest-changes.json')).toMatchObject({ runId: changes.runId, kind: 'since_last', complete: false });
  });

  it('keeps every object latest.json lists, though newer runs pushed its run out of the retained ones', async () => {
    const keys = await listKeys(client, bucket, `${PREFIX}/`);
    for (const file of (await pointer('latest.json')).files) expect(keys).toContain(`${PREFIX}/${file.path}`);
    expect(keys).toContain(`${PREFIX}/manifests/${full.runId}.json`);
    expect(keys).not.toContain(`${PREFIX}/manifests/${oneTable.runId}.json`);
    for (const file of oneTable.files) expect(keys).not.toContain(`${PREFIX}/${file.path}`);
  });
});

describe("a run that began before the run the bucket's latest.json names, and finishes after it (paused past its lease, or slower)", () => {
  const client = storeClient();
  const dir = tempDir();

  it('leaves latest.json naming the newer run; its own manifest is still published', async () => {
    useAwsEnv();
    const bucket = await newBucket(client);
    const config = exportConfig(dir, { url: `s3://${bucket}/${PREFIX}`, s3: testS3Settings() }) as Config;
    const db = await fillMirror(config.db.path, 15, 'tiny');
    const latest = async (): Promise<string> => (await getJson<Manifest>(client, bucket, `${PREFIX}/manifests/latest.json`)).runId;
    const now = Date.now();
    const newer = await runExport({ db, config, logger: silentLogger, formats: ['csv'], now: new Date(now) });
    const older = await runExport({ db, config, logger: silentLogger, formats: ['csv'], now: new Date(now - 3_600_000) });
    expect(await latest()).toBe(newer.runId);
    expect(await getJson<Manifest>(client, bucket, `${PREFIX}/manifests/${older.runId}.json`)).toMatchObject({ runId: older.runId, complete: true });

    // A run stamped by a clock days ahead does not hold latest.json until that day: the next run takes it.
    const ahead = await runExport({ db, config, logger: silentLogger, formats: ['csv'], now: new Date(now + 2 * 86_400_000) });
    expect(await latest()).toBe(ahead.runId);
    const next = await runExport({ db, config, logger: silentLogger, formats: ['csv'], now: new Date(now + 60_000) });
    expect(await latest()).toBe(next.runId);
    db.close();
    client.destroy();
  });
});
