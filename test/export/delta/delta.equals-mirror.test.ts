import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_NAMES, type Config, type StreamName } from '../../../src/config.js';
import type { Db } from '../../../src/db/open.js';
import { nextChangeSeq, type ApiRecord } from '../../../src/db/upsertRecords.js';
import { runExport } from '../../../src/export/index.js';
import { readDeltaTable } from '../../helpers/deltaTable.js';
import { duckdb, exportConfig, fillMirror, query, silentLogger, tempDir, upsert } from '../helpers.js';
import { expectEngineReadsMirror } from './engineChecks.js';
import { deltaRows, liveMirrorRows, type ComparableRow } from './mirrorRows.js';

async function tableRows(config: Readonly<Config>, stream: StreamName): Promise<ComparableRow[]> {
  return deltaRows(await readDeltaTable(join(config.export.dir, 'delta', stream)));
}

async function expectTablesEqualMirror(db: Db, config: Readonly<Config>): Promise<void> {
  for (const stream of STREAM_NAMES) {
    const [table, mirror] = [await tableRows(config, stream), liveMirrorRows(db, stream)];
    expect(table.length, stream).toBe(mirror.length);
    expect(table, stream).toEqual(mirror);
    expectEngineReadsMirror(db, stream, join(config.export.dir, 'delta', stream));
  }
}

describe('Delta tables equal the mirror', () => {
  let db: Db;
  let config: Readonly<Config>;
  beforeAll(async () => {
    const dir = tempDir('delta-equal-');
    config = exportConfig(dir, { formats: ['delta'] });
    db = await fillMirror(config.db.path, 11, 'small');
  });
  afterAll(() => db.close());

  it('after the first export: version 0 of every table holds each live row once, with stats and provenance', async () => {
    const report = await runExport({ db, config, logger: silentLogger, tables: [...STREAM_NAMES] });
    expect(report.delta.map((table) => [table.table, table.where, table.version, table.committed])).toEqual(STREAM_NAMES.map((stream) => [stream, 'local', 0, true]));
    await expectTablesEqualMirror(db, config);

    const { state } = await readDeltaTable(join(config.export.dir, 'delta', 'transactions'));
    expect(state.protocol).toEqual({ minReaderVersion: 1, minWriterVersion: 2 });
    for (const add of state.files.values()) {
      const stats = JSON.parse(add.stats ?? '{}') as { numRecords: number; minValues: Record<string, unknown>; maxValues: Record<string, unknown>; nullCount: Record<string, number> };
      expect(stats.numRecords).toBeGreaterThan(0);
      expect(typeof stats.minValues.id).toBe('number');
      expect(stats.maxValues.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(stats.nullCount).toHaveProperty('raw');
    }
    const [manifestTables] = [report.delta.filter((table) => table.table === 'transactions')];
    expect(manifestTables[0].rowsAdded).toBe(liveMirrorRows(db, 'transactions').length);
  });

  it('reads in DuckDB with the types the table promises: longs, UTC timestamps, money as exact text', async () => {
    const { state } = await readDeltaTable(join(config.export.dir, 'delta', 'orders'));
    const file = join(config.export.dir, 'delta', 'orders', [...state.files.keys()][0]);
    const duck = await duckdb();
    try {
      const columns = await query(duck.connection, `SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('${file}'))`);
      const type = (name: string): unknown => columns.find((column) => column.column_name === name)?.column_type;
      expect(type('id')).toBe('BIGINT');
      expect(type('created_at')).toBe('TIMESTAMP WITH TIME ZONE');
      expect(type('total')).toBe('VARCHAR');
      const schema = JSON.parse(state.metadata.schemaString) as { fields: Array<{ name: string; type: string }> };
      expect(schema.fields.find((field) => field.name === 'created_at')?.type).toBe('timestamp');
      expect(schema.fields.find((field) => field.name === 'total')?.type).toBe('string');
    } finally {
      duck.close();
    }
  });

  it('after a day of changes: only what changed is written, the transactions’ earlier files stay, removed rows leave', async () => {
    const before = await readDeltaTable(join(config.export.dir, 'delta', 'transactions'));
    const customers = db.prepare('SELECT raw FROM customers ORDER BY id LIMIT 20').pluck().all() as string[];
    upsert(db, 'customers', customers.map((raw) => ({ ...(JSON.parse(raw) as ApiRecord), points_balance: 123_456 })));
    const activities = db.prepare("SELECT raw FROM activities ORDER BY id DESC LIMIT 10").pluck().all() as string[];
    upsert(db, 'activities', activities.map((raw) => ({ ...(JSON.parse(raw) as ApiRecord), state: 'approved' })));
    const orders = db.prepare('SELECT raw FROM orders ORDER BY id DESC LIMIT 5').pluck().all() as string[];
    upsert(db, 'orders', orders.map((raw) => ({ ...(JSON.parse(raw) as ApiRecord), total_refunded: '1.00' })));
    const newest = db.prepare('SELECT raw FROM transactions ORDER BY id DESC LIMIT 1').pluck().get() as string;
    const top = (JSON.parse(newest) as { id: number }).id;
    upsert(db, 'transactions', Array.from({ length: 30 }, (_, i) => ({ ...(JSON.parse(newest) as ApiRecord), id: top + 1 + i })));
    const gone = db.prepare('SELECT id FROM unsubscribes ORDER BY id LIMIT 3').pluck().all() as string[];
    const seq = nextChangeSeq(db);
    const at = new Date().toISOString();
    for (const id of gone) db.prepare('UPDATE unsubscribes SET removed_at = ?, _removed_at = ?, _change_seq = ? WHERE id = ?').run(at, at, seq, id);

    const report = await runExport({ db, config, logger: silentLogger, tables: [...STREAM_NAMES] });
    expect(report.delta.map((table) => [table.table, table.version, table.committed])).toEqual(STREAM_NAMES.map((stream) => [stream, 1, true]));
    await expectTablesEqualMirror(db, config);

    const after = await readDeltaTable(join(config.export.dir, 'delta', 'transactions'));
    for (const path of before.state.files.keys()) expect(after.state.files.has(path), path).toBe(true);
    expect(report.delta.find((table) => table.table === 'transactions')).toMatchObject({ rowsAdded: 30, rowsRemoved: 0 });
    expect((await readDeltaTable(join(config.export.dir, 'delta', 'unsubscribes'))).rows.map((row) => row.id)).not.toContain(gone[0]);
  });

  it('commits nothing for a table that did not change', async () => {
    const report = await runExport({ db, config, logger: silentLogger, tables: [...STREAM_NAMES] });
    expect(report.delta.map((table) => [table.table, table.version, table.committed])).toEqual(STREAM_NAMES.map((stream) => [stream, 1, false]));
    await expectTablesEqualMirror(db, config);
  });
});
