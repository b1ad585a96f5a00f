import { MODEL_NAMES } from '../../src/ledger/models/index.js';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import type { Config } from '../../src/config.js';
import type { Db } from '../../src/db/open.js';
import { runExport, type Manifest, type ManifestFile } from '../../src/export/index.js';
import { startSimulator, type ProfileName, type SimulatorHandle, type SimulatorOptions } from '../../src/simulator/index.js';
import { runSync, type SyncReport } from '../../src/sync/index.js';
import { runVerify } from '../../src/verify/index.js';
import { loadDeepRefresh } from '../../src/sync/deepRefreshState.js';
import { duckdb, query, readCsv, silentLogger } from '../export/helpers.js';
import { getBytes, getJson, newBucket, sha256, storeClient, testS3Settings, useAwsEnv } from '../s3/helpers.js';
import { MIRRORED_STREAMS, mirrorDiff, mirrorDiffAll, recordingLogger, testClient, testConfig } from '../helpers/sync.js';
import { freshMirror, tempDir } from '../helpers/tempDir.js';

/**
 * The default jobs (sync, export in every format, publication, verify) on every shape of program the
 * simulator offers: a shape of data no test has seen must not break a scheduled job. Small programs:
 * the shapes matter here, not the volume.
 */
const PROGRAMS: ReadonlyArray<{ profile: ProfileName; options: SimulatorOptions }> = [
  { profile: 'full', options: { size: 'tiny' } },
  { profile: 'bare', options: { size: 'tiny' } },
  { profile: 'empty', options: {} },
  { profile: 'single', options: {} },
];

/** How DuckDB reads a column the manifest declares: the Parquet types the README promises. */
function duckType(column: Manifest['files'][number]['columns'][number]): string {
  switch (column.type) {
    case 'integer':
      return 'BIGINT';
    case 'boolean':
      return 'BOOLEAN';
    case 'timestamp':
      return 'TIMESTAMP WITH TIME ZONE';
    case 'decimal':
      // Money is DECIMAL(18,2) where every value fits, else exact text, as the manifest records.
      return column.parquet?.logical?.startsWith('DECIMAL') ? 'DECIMAL(18,2)' : 'VARCHAR';
    case 'text':
    case 'json':
      return 'VARCHAR';
    case 'date':
      return 'DATE';
    case 'real':
      return 'DOUBLE';
  }
}

const DAY = 24 * 3600 * 1000;

const succeeded = (report: SyncReport) => report.streams.map((s) => [s.stream, s.status, s.error]);

/** Records created less than the default 30-day lookback before the newest one: the ones a refresh re-reads. */
function insideLookback(sim: SimulatorHandle, table: 'orders' | 'activities'): (record: Record<string, unknown>) => boolean {
  const newest = Math.max(...(sim.truth(table) as Array<{ created_at: string }>).map((record) => Date.parse(record.created_at)));
  return (record) => Date.parse(String(record.created_at)) >= newest - 29 * DAY;
}

useAwsEnv();

for (const { profile, options } of PROGRAMS) {
  describe(`the default jobs on a ${profile} program`, () => {
    const store = storeClient();
    let sim: SimulatorHandle;
    let db: Db;
    let config: Config;
    let client: ApiClient;
    let firstSync: SyncReport;

    const mirrorRows = (table: string): number => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;

    beforeAll(async () => {
      sim = await startSimulator({ seed: 3, profile, ...options });
      const mirror = freshMirror();
      db = mirror.db;
      config = testConfig(sim, mirror.path, { export: { dir: join(tempDir('profile-exports-'), 'exports') } }) as Config;
      client = testClient(config, recordingLogger().logger);
      firstSync = await runSync({ db, client, config, logger: silentLogger });
    });
    afterAll(async () => {
      await client.close();
      db.close();
      await sim.close();
      store.destroy();
    });

    it('syncs every stream, and the mirror equals the program', () => {
      expect(succeeded(firstSync)).toEqual(MIRRORED_STREAMS.map((stream) => [stream, 'succeeded', undefined]));
      expect(mirrorDiffAll(db, sim)).toEqual([]);
    });

    it('verify --full finds nothing wrong', async () => {
      const report = await runVerify({ db, client, config, logger: silentLogger, mode: 'full', requests: 0, repair: false });
      expect(report.streams.map((s) => ({ stream: s.stream, error: s.error, missing: s.missing_count, extra: s.extra_count, stale: s.stale_count }))).toEqual(
        MIRRORED_STREAMS.map((stream) => ({ stream, error: undefined, missing: 0, extra: 0, stale: 0 })),
      );
      expect(report.ok).toBe(true);
    });

    it('exports CSV with a header of the declared columns and every mirror row', async () => {
      const report = await runExport({ db, config, logger: silentLogger, formats: ['csv'] });
      expect(report.files.map((file) => file.table).sort()).toEqual([...MIRRORED_STREAMS, ...MODEL_NAMES].sort());
      for (const file of report.files) {
        const { header, rows } = await readCsv(join(config.export.dir, file.path));
        expect(header, file.table).toEqual(file.columns.map((column) => column.name));
        expect(rows.length, file.table).toBe(mirrorRows(file.table));
        expect(file.rows, file.table).toBe(rows.length);
      }
    });

    it('exports Parquet that DuckDB reads with the declared types and every mirror row', async () => {
      const report = await runExport({ db, config, logger: silentLogger, formats: ['parquet'] });
      expect(report.files.map((file) => file.table).sort()).toEqual([...MIRRORED_STREAMS, ...MODEL_NAMES].sort());
      const duck = await duckdb();
      try {
        for (const file of report.files) {
          const path = join(config.export.dir, file.path);
          // Without hive partitioning DuckDB would add the folder's dt=… as a column of its own.
          const source = `read_parquet('${path}', hive_partitioning = false)`;
          const [count] = await query(duck.connection, `SELECT count(*)::VARCHAR AS n FROM ${source}`);
          expect(Number(count.n), file.table).toBe(mirrorRows(file.table));
          const types = (await query(duck.connection, `DESCRIBE SELECT * FROM ${source}`)).map((row) => [row.column_name, row.column_type]);
          expect(types, file.table).toEqual(file.columns.map((column) => [column.name, duckType(column)]));
        }
      } finally {
        duck.close();
      }
    });

    it('publishes the default formats to a bucket: every file whole, then latest.json', async () => {
      const bucket = await newBucket(store);
      const prefix = `loyalty/${profile}`;
      const published = { ...config, export: { ...config.export, url: `s3://${bucket}/${prefix}`, s3: testS3Settings() } };
      const report = await runExport({ db, config: published, logger: silentLogger });
      const latest = await getJson<Manifest>(store, bucket, `${prefix}/manifests/latest.json`);
      expect(latest.runId).toBe(report.runId);
      const formats = (files: ManifestFile[]) => [...new Set(files.map((file) => file.format))].sort();
      expect(formats(latest.files)).toEqual([...config.export.formats].sort());
      expect(latest.files).toHaveLength((MIRRORED_STREAMS.length + MODEL_NAMES.length) * config.export.formats.length);
      for (const file of latest.files) {
        expect(file.rows, file.path).toBe(mirrorRows(file.table));
        const bytes = await getBytes(store, bucket, `${prefix}/${file.path}`);
        expect(bytes.byteLength, file.path).toBe(file.bytes);
        expect(sha256(bytes), file.path).toBe(file.sha256);
      }
      // The bucket's Parquet files are the ones a warehouse loads: DuckDB reads them as the local ones.
      const duck = await duckdb();
      try {
        for (const file of latest.files.filter((entry) => entry.format === 'parquet')) {
          const local = join(tempDir('profile-bucket-'), `${file.table}.parquet`);
          await writeFile(local, await getBytes(store, bucket, `${prefix}/${file.path}`));
          const [count] = await query(duck.connection, `SELECT count(*)::VARCHAR AS n FROM '${local}'`);
          expect(Number(count.n), file.table).toBe(file.rows);
        }
      } finally {
        duck.close();
      }
    });

    // Last, as it changes the program: an empty program gets its first records, a bare one stays bare.
    it('after the program lived two hours, an incremental sync with refresh brings the mirror level again, and a deep refresh brings every change of any age', async () => {
      sim.tick(2);
      const report = await runSync({ db, client, config, logger: silentLogger, refresh: true });
      expect(succeeded(report)).toEqual(MIRRORED_STREAMS.map((stream) => [stream, 'succeeded', undefined]));
      expect(mirrorDiffAll(db, sim, ['customers', 'transactions', 'unsubscribes'])).toEqual([]);
      // Orders and activities change after creation; the sync re-reads the lookback window only, by design.
      expect(mirrorDiff(db, sim, 'orders', insideLookback(sim, 'orders'))).toEqual([]);
      expect(mirrorDiff(db, sim, 'activities', insideLookback(sim, 'activities'))).toEqual([]);
      // The deep refresh reads them whole (an empty list marks nothing): every change of any age is in.
      const deep = await runSync({ db, client, config, logger: silentLogger, deep: true });
      expect(succeeded(deep)).toEqual(MIRRORED_STREAMS.map((stream) => [stream, 'succeeded', undefined]));
      // An empty stream's plain read is already a whole one, which counts as its deep refresh.
      for (const stream of ['orders', 'activities'] as const) expect(loadDeepRefresh(db, stream)).toMatchObject({ plan: null, requestedAt: null, lastError: null });
      expect(mirrorDiffAll(db, sim)).toEqual([]);
    });
  });
}
