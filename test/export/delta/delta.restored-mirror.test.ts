import { copyFileSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/db/open.js';
import type { ApiRecord } from '../../../src/db/upsertRecords.js';
import { runExport } from '../../../src/export/index.js';
import { readDeltaTable } from '../../helpers/deltaTable.js';
import { exportConfig, fillMirror, silentLogger, tempDir, upsert } from '../helpers.js';
import { expectEngineReadsMirror } from './engineChecks.js';
import { deltaRows, liveMirrorRows } from './mirrorRows.js';

describe('a Delta table after the mirror was restored from a backup', () => {
  it('is written whole, so changes the restored mirror counts again are not taken for old news', async () => {
    const dir = tempDir('delta-restore-');
    const config = exportConfig(dir, { formats: ['delta'] });
    let db = await fillMirror(config.db.path, 6, 'tiny');
    await runExport({ db, config, logger: silentLogger, tables: ['customers'] });
    db.close();
    const backup = join(dir, 'backup.db');
    copyFileSync(config.db.path, backup);

    // After the backup: a change the table takes in, then the mirror is lost and the backup restored.
    db = openDatabase(config.db.path);
    const [first, second] = (db.prepare('SELECT raw FROM customers ORDER BY id LIMIT 2').pluck().all() as string[]).map((raw) => JSON.parse(raw) as ApiRecord);
    upsert(db, 'customers', [{ ...first, points_balance: 111 }]);
    expect((await runExport({ db, config, logger: silentLogger, tables: ['customers'] })).delta[0]).toMatchObject({ version: 1, committed: true });
    db.close();
    copyFileSync(backup, config.db.path);

    // The restored mirror syncs again, and counts anew from the backup's counter: the change to the second
    // customer takes the very number the table's version names, and orders' changes take the counter past it.
    db = openDatabase(config.db.path);
    upsert(db, 'customers', [{ ...second, points_balance: 200 }]);
    const order = JSON.parse(db.prepare('SELECT raw FROM orders ORDER BY id LIMIT 1').pluck().get() as string) as ApiRecord;
    for (let round = 0; round < 2; round += 1) upsert(db, 'orders', [{ ...order, total_refunded: `${round}.50` }]);
    const report = await runExport({ db, config, logger: silentLogger, tables: ['customers'] });
    expect(report.delta[0]).toMatchObject({ version: 2, committed: true });

    const contents = await readDeltaTable(join(config.export.dir, 'delta', 'customers'));
    const { rows } = contents;
    expect(deltaRows(contents)).toEqual(liveMirrorRows(db, 'customers'));
    expectEngineReadsMirror(db, 'customers', join(config.export.dir, 'delta', 'customers'));
    // The change the restore undid is gone from the table, and the one made since is in it.
    expect(rows.find((row) => Number(row.id) === Number(first.id))?.raw).not.toContain('"points_balance":111');
    expect(rows.find((row) => Number(row.id) === Number(second.id))?.raw).toContain('"points_balance":200');
    db.close();
  });

  it('stays incremental when the export folder was copied or moved: the mirror still knows the table', async () => {
    const dir = tempDir('delta-moved-');
    const config = exportConfig(dir, { formats: ['delta'] });
    const db = await fillMirror(config.db.path, 6, 'tiny');
    const first = await runExport({ db, config, logger: silentLogger, tables: ['transactions'] });
    const moved = { ...config, export: { ...config.export, dir: join(dir, 'moved') } };
    cpSync(config.export.dir, moved.export.dir, { recursive: true });

    const newest = JSON.parse(db.prepare('SELECT raw FROM transactions ORDER BY id DESC LIMIT 1').pluck().get() as string) as ApiRecord;
    upsert(db, 'transactions', [{ ...newest, id: Number(newest.id) + 1 }]);
    const report = await runExport({ db, config: moved, logger: silentLogger, tables: ['transactions'] });
    expect(report.delta[0]).toMatchObject({ version: 1, committed: true, rowsAdded: 1, rowsRemoved: 0, files: first.delta[0].files + 1 });
    db.close();
  });
});
