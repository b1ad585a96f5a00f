import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import type { ApiRecord } from '../../src/db/upsertRecords.js';
import { STREAM_NAMES } from '../../src/config.js';
import { runExport, type ExportReport } from '../../src/export/index.js';
import { exportConfig, fillMirror, readCsv, silentLogger, tempDir, upsert } from './helpers.js';
import { TRICKY_TEXTS, trickyCustomers } from './fixtures.js';

type Mirror = Record<string, string | number | null>;

/** What a CSV cell must read back as, written independently of the writer. */
function expectedCell(value: string | number | null, type: string, guard: boolean): string | null {
  if (value === null) return null;
  if (type === 'boolean') return value === 1 ? 'true' : 'false';
  const text = String(value);
  return guard && type === 'text' && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

describe.each([true, false])('CSV export read back with csv-parse (formula guard %s)', (guard) => {
  const dir = tempDir();
  const config = exportConfig(dir, { csvFormulaGuard: guard });
  let db: Db;
  let report: ExportReport;

  beforeAll(async () => {
    db = await fillMirror(config.db.path, 11);
    const template = db.prepare('SELECT raw FROM customers LIMIT 1').pluck().get() as string;
    upsert(db, 'customers', trickyCustomers(JSON.parse(template) as ApiRecord));
    // The streams only: a mirror filled without a sync has empty model tables (test/export/models reads those).
    report = await runExport({ db, config, logger: silentLogger, formats: ['csv'], tables: [...STREAM_NAMES] });
  });
  afterAll(() => db.close());

  it('equals the mirror row by row, with NULL empty and "" an empty string', async () => {
    expect(report.files).toHaveLength(5);
    for (const file of report.files) {
      const { header, rows } = await readCsv(join(config.export.dir, file.path));
      expect(header).toEqual(file.columns.map((column) => column.name));
      const mirror = db.prepare(`SELECT ${header.map((name) => `"${name}"`).join(', ')} FROM ${file.table} ORDER BY rowid`).all() as Mirror[];
      expect(rows.length).toBe(mirror.length);
      expect(file.rows).toBe(mirror.length);
      mirror.forEach((row, index) => {
        expect(rows[index], `${file.table} row ${index}`).toEqual(file.columns.map(({ name, type }) => expectedCell(row[name], type, guard)));
      });
    }
  });

  it('guards formula-like text only when asked, never numbers', async () => {
    const customers = report.files.find((file) => file.table === 'customers')!;
    const { header, rows } = await readCsv(join(config.export.dir, customers.path));
    const email = header.indexOf('email');
    const tricky = rows.filter((row) => String(row[header.indexOf('merchant_id')]).startsWith('tricky-')).map((row) => row[email]);
    expect(tricky).toEqual(TRICKY_TEXTS.map((text) => (guard && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text)));

    const transactions = report.files.find((file) => file.table === 'transactions')!;
    const parsed = await readCsv(join(config.export.dir, transactions.path));
    const points = parsed.rows.map((row) => row[parsed.header.indexOf('points_approved')]);
    expect(points.some((value) => value !== null && value.startsWith('-'))).toBe(true);
    expect(points.every((value) => value === null || /^-?\d+$/.test(value))).toBe(true);
  });

  it('writes \\n line ends, a header row and quotes only where needed', async () => {
    const unsubscribes = report.files.find((file) => file.table === 'unsubscribes')!;
    const text = await readFile(join(config.export.dir, unsubscribes.path), 'utf8');
    expect(text.startsWith('id,email,first_seen_at,last_seen_at,removed_at,raw,_synced_at,_change_seq,_removed_at\n')).toBe(true);
    expect(text.endsWith('\n')).toBe(true);
    expect(text.split('\n').filter((line) => line.endsWith('\r'))).toEqual([]);
  });
});
