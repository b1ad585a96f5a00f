import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/open.js';
import { DiskDeltaStore } from '../../../src/export/delta/diskStore.js';
import { ForeignTableError, writeDeltaTable, type TableWriteContext } from '../../../src/export/delta/writeTable.js';
import { tableSchema, type TableSchema } from '../../../src/export/schema.js';
import { Snapshot } from '../../../src/export/snapshot.js';
import { readDeltaTable } from '../../helpers/deltaTable.js';
import { fillMirror, silentLogger, tempDir } from '../helpers.js';
import { expectEngineReadsMirror } from './engineChecks.js';
import { deltaRows, liveMirrorRows } from './mirrorRows.js';

describe('a Delta table whose mirror gained a column (a migration)', () => {
  const dir = tempDir('delta-schema-');
  const table = join(dir, 'delta', 'customers');
  let db: Db;
  let snapshot: Snapshot;
  let schema: TableSchema;
  beforeAll(async () => {
    db = await fillMirror(join(dir, 'mirror.db'), 4, 'tiny');
    snapshot = Snapshot.open(join(dir, 'mirror.db'));
    schema = tableSchema(snapshot.db, 'customers');
  });
  afterAll(() => {
    snapshot.close();
    db.close();
  });

  const context = (tableSchemaOf: TableSchema): TableWriteContext => ({
    snapshot,
    schema: tableSchemaOf,
    stores: [new DiskDeltaStore(table)],
    mirrorId: 'test-mirror',
    recordedChangeSeq: () => null,
    notePending: () => undefined,
    isRunLive: () => false,
    changeSeq: snapshot.changeSeq,
    runId: '20261125T120000Z-abcd',
    tool: 'loyalty-sync 0.0.0-test',
    rowGroupSize: 65_536,
    retainDays: 7,
    logRetainDays: 30,
    logger: silentLogger,
  });

  it('commits the new schema with the added column nullable, and writes every row again with it', async () => {
    const older = { ...schema, columns: schema.columns.filter((column) => column.name !== '_removed_at') };
    expect((await writeDeltaTable(context(older))).version).toBe(0);
    const first = await readDeltaTable(table);
    expect(first.rows[0]).not.toHaveProperty('_removed_at');

    const result = await writeDeltaTable(context(schema));
    expect(result).toMatchObject({ version: 1, committed: true });
    const contents = await readDeltaTable(table);
    const { state, rows } = contents;
    const fields = (JSON.parse(state.metadata.schemaString) as { fields: Array<{ name: string; type: string; nullable: boolean }> }).fields;
    expect(fields.at(-1)).toEqual({ name: '_removed_at', type: 'timestamp', nullable: true, metadata: {} });
    expect(state.metadata.id).toBe(first.state.metadata.id);
    for (const path of first.state.files.keys()) expect(state.files.has(path)).toBe(false);
    expect(rows.length).toBe(first.rows.length);
    expect(rows.every((row) => '_removed_at' in row)).toBe(true);
    expect(deltaRows(contents)).toEqual(liveMirrorRows(db, 'customers'));
    // The engine reads the new column at version 1 and still opens version 0, which lacks it.
    expect(expectEngineReadsMirror(db, 'customers', table).map(({ version, rows }) => [version, rows])).toEqual([[0, first.rows.length], [1, rows.length]]);
  });

  it('refuses to go on when a column would change its type, and leaves the table at its version', async () => {
    const retyped = { ...schema, columns: schema.columns.map((column) => (column.name === 'email' ? { ...column, type: 'integer' as const } : column)) };
    await expect(writeDeltaTable(context(retyped))).rejects.toThrow(ForeignTableError);
    await expect(writeDeltaTable(context(retyped))).rejects.toThrow(/its column \d+ is email "string", where this version writes email "long"/);
    expect((await readDeltaTable(table)).state.version).toBe(1);
  });
});
