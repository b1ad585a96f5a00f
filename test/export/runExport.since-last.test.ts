import { MODEL_NAMES } from '../../src/ledger/models/index.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import { nextChangeSeq, type ApiRecord } from '../../src/db/upsertRecords.js';
import { runExport, type ExportReport } from '../../src/export/index.js';
import { exportConfig, fillMirror, readCsv, silentLogger, tempDir, upsert } from './helpers.js';

async function idsIn(root: string, report: ExportReport, table: string): Promise<string[]> {
  const file = report.files.find((entry) => entry.table === table && entry.format === 'csv')!;
  const { header, rows } = await readCsv(join(root, file.path));
  return rows.map((row) => String(row[header.indexOf('id')]));
}

function records(db: Db, table: string, limit: number, offset = 0): ApiRecord[] {
  return (db.prepare(`SELECT raw FROM ${table} ORDER BY rowid LIMIT ? OFFSET ?`).pluck().all(limit, offset) as string[]).map((raw) => JSON.parse(raw) as ApiRecord);
}

describe('--since-last', () => {
  const dir = tempDir();
  const config = exportConfig(dir);
  let db: Db;
  let first: ExportReport;

  beforeAll(async () => {
    db = await fillMirror(config.db.path, 9, 'tiny');
    first = await runExport({ db, config, logger: silentLogger, formats: ['csv', 'parquet'], sinceLast: true });
  });
  afterAll(() => db.close());

  it('runs full when there is no previous export, and says so', async () => {
    const manifest = JSON.parse(await readFile(first.manifestPath, 'utf8')) as Record<string, unknown>;
    expect(first.kind).toBe('full');
    expect(manifest).toMatchObject({ kind: 'full', requestedKind: 'since_last', previousRunId: null });
    for (const file of first.files) expect(file.rows).toBe(db.prepare(`SELECT count(*) FROM ${file.table}`).pluck().get());
  });

  it('exports exactly the rows inserted or changed since the previous export', async () => {
    const changed = records(db, 'customers', 3, 5).map((record) => ({ ...record, points_approved: Number(record.points_approved) + 100 }));
    upsert(db, 'customers', changed);
    // Re-reading unchanged records (a sync's overlap window) must not mark them changed.
    upsert(db, 'customers', records(db, 'customers', 10));
    const template = records(db, 'transactions', 1)[0];
    upsert(db, 'transactions', [{ ...template, id: 800_000_001 }, { ...template, id: 800_000_002 }]);
    const gone = db.prepare('SELECT id FROM unsubscribes ORDER BY id LIMIT 1').pluck().get() as string;
    db.transaction(() => {
      const seq = nextChangeSeq(db);
      db.prepare('UPDATE unsubscribes SET removed_at = ?, _synced_at = ?, _change_seq = ? WHERE id = ?').run('2026-03-02T00:00:00Z', '2026-03-02T00:00:00Z', seq, gone);
    })();

    const second = await runExport({ db, config, logger: silentLogger, formats: ['csv', 'parquet'], sinceLast: true });
    expect(second.kind).toBe('since_last');
    expect(await idsIn(config.export.dir, second, 'customers')).toEqual(changed.map((record) => String(record.id)));
    expect(await idsIn(config.export.dir, second, 'transactions')).toEqual(['800000001', '800000002']);
    expect(await idsIn(config.export.dir, second, 'unsubscribes')).toEqual([gone]);
    expect(await idsIn(config.export.dir, second, 'orders')).toEqual([]);
    // A model is taken whole by every run (it is rebuilt from a day on, not tracked row by row).
    for (const file of second.files.filter((entry) => !MODEL_NAMES.includes(entry.table))) expect(file).toMatchObject({ kind: 'since_last', sinceRunId: first.runId });
    for (const file of second.files.filter((entry) => MODEL_NAMES.includes(entry.table))) expect(file).toMatchObject({ kind: 'full', sinceRunId: null });
    const parquet = second.files.find((file) => file.table === 'customers' && file.format === 'parquet')!;
    expect(parquet.rows).toBe(3);

    const third = await runExport({ db, config, logger: silentLogger, formats: ['csv'], sinceLast: true });
    expect(third.files.filter((file) => !MODEL_NAMES.includes(file.table)).map((file) => file.rows)).toEqual([0, 0, 0, 0, 0]);
  });

  it('takes each table from the last export that included it', async () => {
    const onlyCustomers = await runExport({ db, config, logger: silentLogger, formats: ['csv'], tables: ['customers'] });
    const template = records(db, 'orders', 1)[0];
    upsert(db, 'orders', [{ ...template, id: 700_000_001 }]);
    upsert(db, 'customers', records(db, 'customers', 1).map((record) => ({ ...record, email: 'changed@example.com' })));
    const next = await runExport({ db, config, logger: silentLogger, formats: ['csv'], tables: ['customers', 'orders'], sinceLast: true });
    expect(await idsIn(config.export.dir, next, 'orders')).toEqual(['700000001']);
    expect(await idsIn(config.export.dir, next, 'customers')).toHaveLength(1);
    expect(next.files.find((file) => file.table === 'customers')!.sinceRunId).toBe(onlyCustomers.runId);
    expect(next.files.find((file) => file.table === 'orders')!.sinceRunId).not.toBe(onlyCustomers.runId);
  });
});
