import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import type { ApiRecord } from '../../src/db/upsertRecords.js';
import { STREAM_NAMES } from '../../src/config.js';
import { runExport, type ExportReport } from '../../src/export/index.js';
import { duckdb, exportConfig, fillMirror, query, silentLogger, tempDir, upsert } from './helpers.js';
import { TRICKY_TEXTS, trickyCustomers } from './fixtures.js';

type Mirror = Record<string, string | number | null>;

describe('Parquet export read back with DuckDB', () => {
  const dir = tempDir();
  const config = exportConfig(dir, { parquetRowGroupSize: 1000 });
  let db: Db;
  let report: ExportReport;
  let duck: Awaited<ReturnType<typeof duckdb>>;

  beforeAll(async () => {
    db = await fillMirror(config.db.path);
    const template = db.prepare('SELECT raw FROM customers LIMIT 1').pluck().get() as string;
    upsert(db, 'customers', trickyCustomers(JSON.parse(template) as ApiRecord));
    // The streams only: a mirror filled without a sync has empty model tables (test/export/models reads those).
    report = await runExport({ db, config, logger: silentLogger, formats: ['parquet'], tables: [...STREAM_NAMES] });
    duck = await duckdb();
  });
  afterAll(() => {
    duck.close();
    db.close();
  });

  const fileOf = (table: string): string => join(config.export.dir, report.files.find((file) => file.table === table)!.path);

  it('writes one file per stream, each with the mirror row count', async () => {
    expect(report.files.map((file) => file.table).sort()).toEqual(['activities', 'customers', 'orders', 'transactions', 'unsubscribes']);
    for (const file of report.files) {
      const mirror = db.prepare(`SELECT count(*) FROM ${file.table}`).pluck().get() as number;
      expect(mirror).toBeGreaterThan(0);
      const [row] = await query(duck.connection, `SELECT count(*)::VARCHAR AS n FROM '${fileOf(file.table)}'`);
      expect(Number(row.n)).toBe(mirror);
      expect(file.rows).toBe(mirror);
    }
  });

  it('streams each table into row groups of parquetRowGroupSize rows, zstd-compressed', async () => {
    const groups = await query(
      duck.connection,
      `SELECT row_group_id::VARCHAR AS id, any_value(row_group_num_rows)::VARCHAR AS n, string_agg(DISTINCT compression) AS codec FROM parquet_metadata('${fileOf('transactions')}') GROUP BY row_group_id ORDER BY row_group_id`,
    );
    const rows = report.files.find((file) => file.table === 'transactions')!.rows;
    expect(groups.length).toBe(Math.ceil(rows / 1000));
    expect(groups.slice(0, -1).every((group) => group.n === '1000')).toBe(true);
    expect(new Set(groups.map((group) => group.codec))).toEqual(new Set(['ZSTD']));
  });

  it('gives each row group min/max statistics for pruning, except on JSON text', async () => {
    const stats = await query(
      duck.connection,
      `SELECT path_in_schema AS name, stats_min_value AS low, stats_max_value AS high FROM parquet_metadata('${fileOf('transactions')}') WHERE row_group_id = 0`,
    );
    const of = (name: string): Record<string, unknown> | undefined => stats.find((row) => row.name === name);
    const firstIds = db.prepare('SELECT id FROM transactions ORDER BY rowid LIMIT 1000').pluck().all() as number[];
    expect(of('id')).toEqual({ name: 'id', low: String(Math.min(...firstIds)), high: String(Math.max(...firstIds)) });
    expect(of('created_at')!.low).not.toBeNull();
    expect(of('raw')).toEqual({ name: 'raw', low: null, high: null });
  });

  it('types columns from the column map: INT64, BOOLEAN, TIMESTAMPTZ, DECIMAL(18,2), VARCHAR', async () => {
    const types = Object.fromEntries(
      (await query(duck.connection, `DESCRIBE SELECT * FROM '${fileOf('orders')}'`)).map((row) => [row.column_name, row.column_type]),
    );
    expect(types).toMatchObject({ id: 'BIGINT', total: 'DECIMAL(18,2)', created_at: 'TIMESTAMP WITH TIME ZONE', _synced_at: 'TIMESTAMP WITH TIME ZONE', raw: 'VARCHAR', customer_id: 'BIGINT' });
    const customers = Object.fromEntries(
      (await query(duck.connection, `DESCRIBE SELECT * FROM '${fileOf('customers')}'`)).map((row) => [row.column_name, row.column_type]),
    );
    expect(customers).toMatchObject({ blocked: 'BOOLEAN', points_approved: 'BIGINT', properties: 'VARCHAR' });
  });

  it('keeps sums of points and counts of NULLs in every column', async () => {
    for (const file of report.files) {
      for (const column of file.columns) {
        const name = `"${column.name}"`;
        const mirror = db.prepare(`SELECT count(*) - count(${name}) AS nulls, sum(${name}) AS total FROM ${file.table}`).get() as { nulls: number; total: number | null };
        const [parquet] = await query(
          duck.connection,
          `SELECT count(*) - count(${name}) AS nulls, ${column.type === 'integer' ? `CAST(sum(${name}) AS VARCHAR)` : 'NULL'} AS total FROM '${fileOf(file.table)}'`,
        );
        expect(Number(parquet.nulls), `${file.table}.${column.name} nulls`).toBe(mirror.nulls);
        if (column.type === 'integer') expect(parquet.total === null ? null : Number(parquet.total), `${file.table}.${column.name} sum`).toBe(mirror.total);
      }
    }
  });

  it('matches the mirror row by row: timestamps as UTC instants, money as its decimal strings, text byte for byte', async () => {
    for (const file of report.files) {
      const select = file.columns
        .map(({ name, type }) => {
          if (type === 'timestamp') return `CAST(epoch_us("${name}") AS VARCHAR) AS "${name}"`;
          return type === 'text' || type === 'json' ? `"${name}"` : `CAST("${name}" AS VARCHAR) AS "${name}"`;
        })
        .join(', ');
      const parquet = await query(duck.connection, `SELECT ${select} FROM '${fileOf(file.table)}'`);
      const mirror = db.prepare(`SELECT ${file.columns.map((column) => `"${column.name}"`).join(', ')} FROM ${file.table} ORDER BY rowid`).all() as Mirror[];
      expect(parquet.length).toBe(mirror.length);
      mirror.forEach((row, index) => {
        const expected = Object.fromEntries(
          file.columns.map(({ name, type }) => {
            const value = row[name];
            if (value === null) return [name, null];
            if (type === 'timestamp') return [name, String(Date.parse(String(value)) * 1000)];
            if (type === 'boolean') return [name, value === 1 ? 'true' : 'false'];
            return [name, String(value)];
          }),
        );
        expect(parquet[index], `${file.table} row ${index}`).toEqual(expected);
      });
    }
  });

  it('carries commas, quotes, newlines and non-ASCII through', async () => {
    const emails = (await query(duck.connection, `SELECT email FROM '${fileOf('customers')}' WHERE merchant_id LIKE 'tricky-%' ORDER BY id`)).map((row) => row.email);
    expect(emails).toEqual(TRICKY_TEXTS);
  });
});
