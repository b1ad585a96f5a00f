import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApiRecord } from '../../../src/db/upsertRecords.js';
import { runExport } from '../../../src/export/index.js';
import { exportConfig, fillMirror, readCsv, silentLogger, tempDir, upsert } from '../helpers.js';

describe('Delta runs beside snapshot runs', () => {
  it('a run of Delta tables alone is no base for --since-last, and never pushes snapshot runs out of retention', async () => {
    const dir = tempDir('delta-beside-');
    const config = exportConfig(dir, { formats: ['csv'], retainRuns: 2 });
    const db = await fillMirror(config.db.path, 9, 'tiny');
    const snapshot = await runExport({ db, config, logger: silentLogger, tables: ['customers'] });

    const customer = JSON.parse(db.prepare('SELECT raw FROM customers ORDER BY id LIMIT 1').pluck().get() as string) as ApiRecord;
    upsert(db, 'customers', [{ ...customer, points_balance: 9_999 }]);
    for (let run = 0; run < 3; run += 1) await runExport({ db, config, logger: silentLogger, tables: ['customers'], formats: ['delta'] });
    // Three Delta runs later, with two runs retained, the snapshot run's file is still there.
    expect(existsSync(join(config.export.dir, snapshot.files[0].path))).toBe(true);

    const changes = await runExport({ db, config, logger: silentLogger, tables: ['customers'], sinceLast: true });
    expect(changes.kind).toBe('since_last');
    const { header, rows } = await readCsv(join(config.export.dir, changes.files[0].path));
    expect(rows.map((row) => Number(row[header.indexOf('id')]))).toEqual([Number(customer.id)]);
    db.close();
  });
});
