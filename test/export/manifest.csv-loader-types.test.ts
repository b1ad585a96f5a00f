import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/open.js';
import { toUnscaled } from '../../src/export/decimal.js';
import { runExport, type Manifest, type ManifestFile } from '../../src/export/index.js';
import { apiTransaction } from '../helpers/sync.js';
import { duckdb, exportConfig, fillMirror, query, silentLogger, tempDir, upsert } from './helpers.js';

/** A money amount the API's decimal text allows and DECIMAL(18,2) does not hold (17 integer digits, 3 decimals). */
const HUGE_TOTAL = '12345678901234567.125';
/** A valid ISO 8601 time the mirror reads (lower-case t and z) that DuckDB's timestamp parser refuses. */
const ODD_TIME = '2026-03-01t10:00:00z';
/** Another form both loaders read: a space, a fraction and an offset. */
const OFFSET_TIME = '2026-03-01 12:00:00.5+02:00';

describe("a CSV file's loader types in the manifest", () => {
  const dir = tempDir();
  const config = exportConfig(dir);
  let db: Db;
  let manifest: Manifest;
  let duck: Awaited<ReturnType<typeof duckdb>>;

  beforeAll(async () => {
    db = await fillMirror(config.db.path, 12, 'tiny');
    // One order whose total fits no DECIMAL(18,2), one customer whose updated_at DuckDB cannot read as written.
    db.prepare(`UPDATE orders SET total = ? WHERE id = (SELECT min(id) FROM orders)`).run(HUGE_TOTAL);
    db.prepare(`UPDATE customers SET updated_at = ?, created_at = ? WHERE id = (SELECT min(id) FROM customers)`).run(ODD_TIME, OFFSET_TIME);
    const report = await runExport({ db, config, logger: silentLogger, formats: ['csv'] });
    manifest = JSON.parse(readFileSync(report.manifestPath, 'utf8')) as Manifest;
    duck = await duckdb();
  });
  afterAll(() => {
    duck.close();
    db.close();
  });

  const csvOf = (table: string): ManifestFile => manifest.files.find((file) => file.table === table && file.format === 'csv')!;
  /** The file read by DuckDB with the types its manifest entry gives, as the README's example does. */
  const load = async (table: string, select = '*'): Promise<{ types: Record<string, string>; rows: Array<Record<string, unknown>> }> => {
    const file = csvOf(table);
    const struct = `{${Object.entries(file.duckdbTypes ?? {}).map(([name, type]) => `'${name}': '${type}'`).join(', ')}}`;
    const from = `read_csv('${join(config.export.dir, file.path)}', types = ${struct}, allow_quoted_nulls = false)`;
    const described = await query(duck.connection, `DESCRIBE SELECT * FROM ${from}`);
    return {
      types: Object.fromEntries(described.map((row) => [String(row.column_name), String(row.column_type)])),
      rows: await query(duck.connection, `SELECT ${select} FROM ${from} ORDER BY id`),
    };
  };

  it('give every column of every CSV file, in file order, for DuckDB and BigQuery alike', () => {
    for (const file of manifest.files) {
      expect(Object.keys(file.duckdbTypes ?? {}), file.path).toEqual(file.columns.map((column) => column.name));
      expect(file.bigquerySchema?.map((field) => field.name), file.path).toEqual(file.columns.map((column) => column.name));
      for (const field of file.bigquerySchema ?? []) expect(['INT64', 'STRING', 'BOOL', 'NUMERIC', 'TIMESTAMP', 'DATE', 'FLOAT64'], `${file.path}: ${field.name}`).toContain(field.type);
    }
  });

  it('load merchant ids as text and money as exact DECIMAL(18,2), where DuckDB alone guesses BIGINT and DOUBLE', async () => {
    const customers = await load('customers', 'id, merchant_id');
    const guessed = await query(duck.connection, `DESCRIBE SELECT merchant_id FROM read_csv('${join(config.export.dir, csvOf('customers').path)}')`);
    expect(guessed[0].column_type).toBe('BIGINT');
    expect(customers.types.merchant_id).toBe('VARCHAR');
    expect(csvOf('customers').bigquerySchema?.find((field) => field.name === 'merchant_id')?.type).toBe('STRING');
    const merchantIds = db.prepare('SELECT id, merchant_id FROM customers ORDER BY id').all() as Array<{ id: number; merchant_id: string }>;
    expect(customers.rows).toEqual(merchantIds.map((row) => ({ id: String(row.id), merchant_id: row.merchant_id })));

    const payments = await load('orders', 'id, total_paid');
    expect(payments.types.total_paid).toBe('DECIMAL(18,2)');
    expect(csvOf('orders').bigquerySchema?.find((field) => field.name === 'total_paid')?.type).toBe('NUMERIC');
    const paid = db.prepare('SELECT id, total_paid FROM orders ORDER BY id').all() as Array<{ id: number; total_paid: string | null }>;
    expect(paid.some((row) => row.total_paid !== null && row.total_paid.includes('.'))).toBe(true);
    expect(payments.rows.map((row) => [row.id, row.total_paid === null ? null : toUnscaled(String(row.total_paid))])).toEqual(
      paid.map((row) => [String(row.id), row.total_paid === null ? null : toUnscaled(row.total_paid)]),
    );
  });

  it("keep as text what a type would lose: money beyond DECIMAL(18,2), a timestamp in a form DuckDB cannot read; other timestamps are TIMESTAMPTZ", async () => {
    const totals = await load('orders', 'id, total');
    expect(totals.types.total).toBe('VARCHAR');
    expect(csvOf('orders').bigquerySchema?.find((field) => field.name === 'total')?.type).toBe('STRING');
    const stored = db.prepare('SELECT id, total FROM orders ORDER BY id').all() as Array<{ id: number; total: string | null }>;
    expect(stored[0].total).toBe(HUGE_TOTAL);
    expect(totals.rows).toEqual(stored.map((row) => ({ id: String(row.id), total: row.total })));

    const times = await load('customers', 'id, updated_at, epoch_us(created_at)::VARCHAR AS created_us');
    expect(times.types.updated_at).toBe('VARCHAR');
    expect(times.types.created_at).toBe('TIMESTAMP WITH TIME ZONE');
    expect(csvOf('customers').bigquerySchema?.find((field) => field.name === 'created_at')?.type).toBe('TIMESTAMP');
    const rows = db.prepare('SELECT id, updated_at, iso_micros(created_at) AS created_us FROM customers ORDER BY id').all() as Array<{ id: number; updated_at: string; created_us: number }>;
    expect(rows[0].updated_at).toBe(ODD_TIME);
    expect(rows[0].created_us).toBe(Date.parse('2026-03-01T10:00:00.500Z') * 1000);
    expect(times.rows).toEqual(rows.map((row) => ({ id: String(row.id), updated_at: row.updated_at, created_us: String(row.created_us) })));
  });

  it("the README's DuckDB example reads a CSV file with exactly those types", async () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const example = /-- DuckDB: a CSV file that latest.json lists[^\n]*\n([\s\S]*?)(?:\n--|\n```)/.exec(readme)?.[1];
    expect(example).toBeDefined();
    const statements = example!.replaceAll(`'exports/`, `'${config.export.dir}/`).split(/;\s*\n/).map((text) => text.trim()).filter((text) => text !== '');
    expect(statements).toHaveLength(2);
    await duck.connection.run(statements[0]);
    const described = await query(duck.connection, `DESCRIBE ${statements[1].replace(/;$/, '')}`);
    const expected = Object.entries(csvOf('transactions').duckdbTypes ?? {}).map(([name, type]) => [name, type.replace('TIMESTAMPTZ', 'TIMESTAMP WITH TIME ZONE')]);
    expect(described.map((row) => [row.column_name, row.column_type])).toEqual(expected);
    expect(expected).toContainEqual(['customer_merchant_id', 'VARCHAR']);
  });
});

describe("the loader types of a CSV file read in several batches", () => {
  it('keep a timestamp column as text when any batch holds a value a loader cannot read: the first, or the last', async () => {
    const dir = tempDir();
    try {
      const config = exportConfig(dir);
      const db = openDatabase(config.db.path);
      // 5,000 rows are three of the writer's batches (2,048 rows each).
      const records = Array.from({ length: 5000 }, (_, i) => apiTransaction(i + 1, { created_at: new Date(Date.UTC(2026, 2, 1) + i * 1000).toISOString() }));
      upsert(db, 'transactions', records, '2026-03-02T00:00:00.000Z');
      db.prepare('UPDATE transactions SET created_at = ? WHERE id = 1').run(ODD_TIME);
      db.prepare('UPDATE transactions SET _synced_at = ? WHERE id = 5000').run(ODD_TIME);
      const report = await runExport({ db, config, logger: silentLogger, formats: ['csv'], tables: ['transactions'] });
      db.close();
      const file = (JSON.parse(readFileSync(report.manifestPath, 'utf8')) as Manifest).files.find((entry) => entry.table === 'transactions')!;
      expect(file.rows).toBe(5000);
      expect([file.duckdbTypes?.created_at, file.duckdbTypes?._synced_at]).toEqual(['VARCHAR', 'VARCHAR']);
      expect(file.bigquerySchema?.filter((field) => field.name === 'created_at' || field.name === '_synced_at').map((field) => field.type)).toEqual(['STRING', 'STRING']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
