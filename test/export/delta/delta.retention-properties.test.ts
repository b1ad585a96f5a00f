import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../src/config.js';
import type { Db } from '../../../src/db/open.js';
import type { ApiRecord } from '../../../src/db/upsertRecords.js';
import { commitPath } from '../../../src/export/delta/actions.js';
import { runExport } from '../../../src/export/index.js';
import { readDeltaTable } from '../../helpers/deltaTable.js';
import { exportConfig, fillMirror, silentLogger, tempDir, upsert } from '../helpers.js';
import { expectEngineReadsMirror } from './engineChecks.js';

function changeSomeCustomers(db: Db, round: number): void {
  const rows = db.prepare('SELECT raw FROM customers ORDER BY id LIMIT 3').pluck().all() as string[];
  upsert(db, 'customers', rows.map((raw) => ({ ...(JSON.parse(raw) as ApiRecord), points_balance: 2000 + round })));
}

describe('Delta retention in the table\'s properties', () => {
  let db: Db;
  let config: Readonly<Config>;
  let table: string;
  const withDelta = (delta: Partial<Config['export']['delta']>): Readonly<Config> => ({ ...config, export: { ...config.export, delta: { ...config.export.delta, ...delta } } });
  const exportCustomers = (settings: Readonly<Config>) => runExport({ db, config: settings, logger: silentLogger, tables: ['customers'] });
  beforeAll(async () => {
    const dir = tempDir('delta-retention-');
    config = exportConfig(dir, { formats: ['delta'] });
    db = await fillMirror(config.db.path, 5, 'tiny');
    table = join(config.export.dir, 'delta', 'customers');
  });
  afterAll(() => db.close());

  it('writes export.delta\'s windows into the table, and follows the config when it changes', async () => {
    await exportCustomers(config);
    expect((await readDeltaTable(table)).state.metadata.configuration).toMatchObject({
      'delta.deletedFileRetentionDuration': 'interval 7 days',
      'delta.logRetentionDuration': 'interval 30 days',
    });
    changeSomeCustomers(db, 1);
    expect((await exportCustomers(withDelta({ retainDays: 14 }))).delta[0]).toMatchObject({ version: 1, committed: true });
    expect((await readDeltaTable(table)).state.metadata.configuration).toMatchObject({ 'delta.deletedFileRetentionDuration': 'interval 14 days' });
  });

  it('keeps a window another engine set, and vacuum honours it over export.delta.retainDays', async () => {
    const before = await readDeltaTable(table);
    // What Spark's ALTER TABLE … SET TBLPROPERTIES commits: the metaData with the new property.
    const configuration = { ...before.state.metadata.configuration, 'delta.deletedFileRetentionDuration': 'interval 30 days' };
    writeFileSync(
      join(table, commitPath(2)),
      [{ commitInfo: { timestamp: Date.now(), operation: 'SET TBLPROPERTIES', engineInfo: 'Apache-Spark/3.5.1 Delta-Lake/3.2.0' } }, { metaData: { ...before.state.metadata, configuration } }].map((action) => JSON.stringify(action)).join('\n') + '\n',
    );
    changeSomeCustomers(db, 2);
    expect((await exportCustomers(withDelta({ retainDays: 0 }))).delta[0]).toMatchObject({ version: 3, committed: true });
    const after = await readDeltaTable(table);
    expect(after.state.metadata.configuration['delta.deletedFileRetentionDuration']).toBe('interval 30 days');
    // Versions 1 and 3 each replaced the file of the version before; under the table's 30 days both stay.
    expect(after.state.tombstones.size).toBeGreaterThanOrEqual(2);
    for (const path of after.state.tombstones.keys()) expect(existsSync(join(table, decodeURIComponent(path))), path).toBe(true);
    // The engine takes the property commit another engine wrote, and every version's files are still there.
    expectEngineReadsMirror(db, 'customers', table);
  });

  it('with the table\'s window removed again, export.delta.retainDays applies: 0 days deletes the replaced files', async () => {
    const before = await readDeltaTable(table);
    const { 'delta.deletedFileRetentionDuration': _set, ...rest } = before.state.metadata.configuration;
    appendFileSync(join(table, commitPath(4)), [{ commitInfo: { timestamp: Date.now(), operation: 'UNSET TBLPROPERTIES' } }, { metaData: { ...before.state.metadata, configuration: rest } }].map((action) => JSON.stringify(action)).join('\n') + '\n');
    changeSomeCustomers(db, 3);
    await exportCustomers(withDelta({ retainDays: 0 }));
    const after = await readDeltaTable(table);
    expect(after.state.metadata.configuration['delta.deletedFileRetentionDuration']).toBe('interval 0 days');
    expect(after.state.tombstones.size).toBeGreaterThanOrEqual(3);
    for (const path of after.state.tombstones.keys()) expect(existsSync(join(table, decodeURIComponent(path))), path).toBe(false);
    expectEngineReadsMirror(db, 'customers', table, { dataFrom: after.state.version });
  });
});
