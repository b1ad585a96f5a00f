import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import type { ApiRecord } from '../../src/db/upsertRecords.js';
import { runExport } from '../../src/export/index.js';
import { duckdb, exportConfig, fillMirror, query, readCsv, silentLogger, tempDir, upsert } from './helpers.js';

describe('Parquet types for values that do not fit', () => {
  const dir = tempDir();
  const config = exportConfig(dir);
  let db: Db;
  let duck: Awaited<ReturnType<typeof duckdb>>;

  beforeAll(async () => {
    db = await fillMirror(config.db.path, 4, 'tiny');
    duck = await duckdb();
  });
  afterAll(() => {
    duck.close();
    db.close();
  });

  it('writes a money column as exact strings when one value does not fit DECIMAL(18,2), and says so', async () => {
    const template = JSON.parse(db.prepare('SELECT raw FROM orders LIMIT 1').pluck().get() as string) as ApiRecord;
    upsert(db, 'orders', [{ ...template, id: 600_000_001, total: '1234.567' }, { ...template, id: 600_000_002, total: '-0.5' }]);
    const report = await runExport({ db, config, logger: silentLogger, formats: ['parquet'], tables: ['orders'] });
    const [file] = report.files;
    expect(file.columns.find((column) => column.name === 'total')).toEqual({ name: 'total', type: 'decimal', parquet: { physical: 'BYTE_ARRAY', logical: 'STRING' } });
    expect(file.columns.find((column) => column.name === 'total_tax')!.parquet).toEqual({ physical: 'INT64', logical: 'DECIMAL(18,2)' });
    const rows = await query(duck.connection, `SELECT id::VARCHAR AS id, total, total_tax::VARCHAR AS tax FROM '${join(config.export.dir, file.path)}' WHERE id >= 600000001 ORDER BY id`);
    const mirror = db.prepare('SELECT total_tax FROM orders WHERE id >= 600000001 ORDER BY id').pluck().all();
    expect(rows).toEqual([
      { id: '600000001', total: '1234.567', tax: mirror[0] },
      { id: '600000002', total: '-0.5', tax: mirror[1] },
    ]);
  });

  it('writes an unparseable timestamp as null in Parquet, counts it, and keeps the text in CSV', async () => {
    const template = JSON.parse(db.prepare('SELECT raw FROM customers LIMIT 1').pluck().get() as string) as ApiRecord;
    // The sync stores such a value as NULL now; a mirror written before it may still hold the text.
    upsert(db, 'customers', [{ ...template, id: 600_000_003 }]);
    db.prepare(`UPDATE customers SET created_at = 'yesterday-ish' WHERE id = 600000003`).run();
    const report = await runExport({ db, config, logger: silentLogger, tables: ['customers'] });
    const parquet = report.files.find((file) => file.format === 'parquet')!;
    expect(parquet.invalidValues).toEqual({ created_at: 1 });
    const [row] = await query(duck.connection, `SELECT created_at FROM '${join(config.export.dir, parquet.path)}' WHERE id = 600000003`);
    expect(row.created_at).toBeNull();
    const csv = await readCsv(join(config.export.dir, report.files.find((file) => file.format === 'csv')!.path));
    expect(csv.rows.find((cells) => cells[0] === '600000003')![csv.header.indexOf('created_at')]).toBe('yesterday-ish');
  });

  it('exports text holding half a surrogate pair, as the CSV does, instead of failing the file', async () => {
    const template = JSON.parse(db.prepare('SELECT raw FROM customers LIMIT 1').pluck().get() as string) as ApiRecord;
    upsert(db, 'customers', [{ ...template, id: 600_000_004, email: JSON.parse('"zo\\ud83d@example.com"') as string }]);
    const report = await runExport({ db, config, logger: silentLogger, tables: ['customers'] });
    const parquet = report.files.find((file) => file.format === 'parquet')!;
    const [row] = await query(duck.connection, `SELECT email FROM '${join(config.export.dir, parquet.path)}' WHERE id = 600000004`);
    const csv = await readCsv(join(config.export.dir, report.files.find((file) => file.format === 'csv')!.path));
    const csvEmail = csv.rows.find((cells) => cells[0] === '600000004')![csv.header.indexOf('email')];
    expect(row.email).toMatch(/^zo\uFFFD+@example\.com$/);
    expect(row.email).toBe(csvEmail);
  });

  it('exports write_jobs only when named, typed from its declared columns, and an empty table as a valid empty file', async () => {
    const empty = await runExport({ db, config, logger: silentLogger, tables: ['write_jobs'] });
    const parquet = empty.files.find((file) => file.format === 'parquet')!;
    expect(parquet.rows).toBe(0);
    const [count] = await query(duck.connection, `SELECT count(*)::VARCHAR AS n FROM '${join(config.export.dir, parquet.path)}'`);
    expect(count.n).toBe('0');
    expect(parquet.columns.find((column) => column.name === 'attempts')!.type).toBe('integer');
    expect(parquet.columns.find((column) => column.name === 'created_at')!.type).toBe('timestamp');

    const all = await runExport({ db, config, logger: silentLogger });
    expect(all.files.some((file) => file.table === 'write_jobs')).toBe(false);
  });

  it('says clearly when write_jobs does not exist', async () => {
    db.exec('DROP TABLE write_jobs');
    await expect(runExport({ db, config, logger: silentLogger, tables: ['write_jobs'] })).rejects.toThrow(/Table write_jobs does not exist in the mirror/);
  });
});
