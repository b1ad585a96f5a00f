import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_NAMES } from '../../src/config.js';
import { openDatabase, type Db } from '../../src/db/open.js';
import type { ApiRecord } from '../../src/db/upsertRecords.js';
import { EXPORT_TABLES, runExport, type ExportReport } from '../../src/export/index.js';
import type { ManifestFile } from '../../src/export/manifest.js';
import { enqueueJob } from '../../src/queue/enqueueJob.js';
import type { ExportColumnType } from '../../src/export/schema.js';
import { duckdb, exportConfig, fillMirror, query, readCsv, silentLogger, tempDir, upsert } from './helpers.js';

/** How DuckDB must read each logical type back from our Parquet files. */
const DUCKDB_TYPES: Record<ExportColumnType, string> = {
  integer: 'BIGINT',
  date: 'DATE',
  real: 'DOUBLE',
  boolean: 'BOOLEAN',
  timestamp: 'TIMESTAMP WITH TIME ZONE',
  decimal: 'DECIMAL(18,2)',
  text: 'VARCHAR',
  json: 'VARCHAR',
};

/** More customers than one read batch (4,096 rows), so a file of several all-NULL batches is covered too. */
const BARE_CUSTOMERS = 5000;

/** Records that carry their key and nothing else: a program where no record has any optional field. */
function bareRecords(stream: (typeof STREAM_NAMES)[number], count: number): ApiRecord[] {
  return Array.from({ length: count }, (_, i) => ({ id: stream === 'unsubscribes' ? `nobody-${i}@example.com` : i + 1 }));
}

type Duck = Awaited<ReturnType<typeof duckdb>>;

/** The file's columns as DuckDB types them, without the `dt` column DuckDB derives from the folder name. */
async function parquetTypes(duck: Duck, path: string): Promise<Record<string, unknown>> {
  const rows = await query(duck.connection, `DESCRIBE SELECT * FROM read_parquet('${path}', hive_partitioning = false)`);
  return Object.fromEntries(rows.map((row) => [row.column_name, row.column_type]));
}

/** Columns of a file whose every row is NULL in the mirror, for the rows the file holds. */
function allNullColumns(db: Db, file: ManifestFile, where = 'TRUE'): ManifestFile['columns'] {
  return file.columns.filter((column) => db.prepare(`SELECT count("${column.name}") FROM ${file.table} WHERE ${where}`).pluck().get() === 0);
}

async function expectNullsTyped(duck: Duck, path: string, file: ManifestFile, columns: ManifestFile['columns']): Promise<void> {
  const types = await parquetTypes(duck, path);
  expect(types, file.path).toEqual(Object.fromEntries(file.columns.map((column) => [column.name, DUCKDB_TYPES[column.type]])));
  for (const column of columns) {
    const [counts] = await query(duck.connection, `SELECT count(*)::INTEGER AS n, count("${column.name}")::INTEGER AS present FROM read_parquet('${path}', hive_partitioning = false)`);
    expect(counts, `${file.table}.${column.name}`).toEqual({ n: file.rows, present: 0 });
  }
}

describe('export of a program whose records carry no optional field', () => {
  const dir = tempDir();
  const config = exportConfig(dir, { parquetRowGroupSize: 1000 });
  let db: Db;
  let report: ExportReport;
  let duck: Duck;

  beforeAll(async () => {
    db = openDatabase(config.db.path);
    for (const stream of STREAM_NAMES) upsert(db, stream, bareRecords(stream, stream === 'customers' ? BARE_CUSTOMERS : 3));
    // Jobs never sent: their status, error, lock and check columns are all NULL.
    for (const points of [10, 20]) {
      enqueueJob(db, { kind: 'add_points', payload: { customer_merchant_id: '1', points, reason: 'welcome' }, idempotencyKey: `welcome-${points}`, source: 'test' }, new Date());
    }
    report = await runExport({ db, config, logger: silentLogger, formats: ['csv', 'parquet'], tables: [...EXPORT_TABLES] });
    duck = await duckdb();
  });
  afterAll(() => {
    duck.close();
    db.close();
  });

  const filesOf = (format: string): ManifestFile[] => report.files.filter((file) => file.format === format);

  it('covers every table, and all-NULL columns of every type', () => {
    expect(filesOf('parquet').map((file) => file.table).sort()).toEqual([...EXPORT_TABLES].sort());
    const types = new Set(filesOf('parquet').flatMap((file) => allNullColumns(db, file).map((column) => column.type)));
    expect([...types].sort()).toEqual(Object.keys(DUCKDB_TYPES).sort());
    expect(allNullColumns(db, filesOf('parquet').find((file) => file.table === 'customers')!).map((column) => column.name)).toContain('loyalty_pass_installed');
  });

  it('writes Parquet that DuckDB reads as NULLs of the declared types', async () => {
    for (const file of filesOf('parquet')) {
      expect(file.rows).toBe(db.prepare(`SELECT count(*) FROM ${file.table}`).pluck().get());
      await expectNullsTyped(duck, join(config.export.dir, file.path), file, allNullColumns(db, file));
    }
  });

  it('writes CSV with an empty unquoted cell for every NULL', async () => {
    for (const file of filesOf('csv')) {
      const { header, rows } = await readCsv(join(config.export.dir, file.path));
      expect(header).toEqual(file.columns.map((column) => column.name));
      expect(rows.length).toBe(file.rows);
      for (const column of allNullColumns(db, file)) {
        const index = header.indexOf(column.name);
        expect(rows.every((row) => row[index] === null), `${file.table}.${column.name}`).toBe(true);
      }
    }
  });
});

describe('--since-last export whose changed rows all lack an optional field', () => {
  const dir = tempDir();
  const config = exportConfig(dir);
  let db: Db;
  let duck: Duck;

  beforeAll(async () => {
    db = await fillMirror(config.db.path, 11, 'tiny');
    duck = await duckdb();
  });
  afterAll(() => {
    duck.close();
    db.close();
  });

  it('exports the changes to Parquet with the missing fields as typed NULLs', async () => {
    expect(db.prepare('SELECT count(loyalty_pass_installed) FROM customers').pluck().get()).toBeGreaterThan(0);
    await runExport({ db, config, logger: silentLogger, formats: ['csv', 'parquet'] });

    // Customers who leave the loyalty-pass programme and their tier: the API stops sending those fields.
    const changed = (db.prepare('SELECT raw FROM customers ORDER BY rowid LIMIT 4').pluck().all() as string[]).map((raw) => {
      const record: ApiRecord = { ...(JSON.parse(raw) as ApiRecord), updated_at: '2030-01-01T00:00:00Z' };
      for (const field of ['loyalty_pass_installed', 'loyalty_pass_url', 'loyalty_tier_membership', 'insights_segment']) delete record[field];
      return record;
    });
    upsert(db, 'customers', changed);

    const delta = await runExport({ db, config, logger: silentLogger, formats: ['csv', 'parquet'], tables: ['customers'], sinceLast: true });
    expect(delta.kind).toBe('since_last');
    const file = delta.files.find((entry) => entry.format === 'parquet')!;
    expect(file.rows).toBe(changed.length);
    const ids = changed.map((record) => record.id).join(', ');
    const missing = allNullColumns(db, file, `id IN (${ids})`);
    expect(missing.map((column) => column.name)).toEqual(expect.arrayContaining(['loyalty_pass_installed', 'loyalty_pass_url', 'tier_id', 'tier_started_at', 'tier_manual', 'insights_segment']));
    await expectNullsTyped(duck, join(config.export.dir, file.path), file, missing);
  });
});
