import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpointPath, commitPath, parseCommit, type Commit, type TableState } from '../../../src/export/delta/actions.js';
import { readCheckpoint } from '../../../src/export/delta/checkpointReader.js';
import { DiskDeltaStore } from '../../../src/export/delta/diskStore.js';
import { inspectTarget, readTableState } from '../../../src/export/delta/logReader.js';
import type { DeltaStore } from '../../../src/export/delta/store.js';
import { assertReadable, replay, stateFromCheckpointActions, unsupportedReason } from '../../../src/export/delta/replay.js';
import { readDeltaTable } from '../../helpers/deltaTable.js';
import { tempDir } from '../../helpers/tempDir.js';

/** Spark-written tables from delta-io/delta (see test/fixtures/delta-golden/README.md). */
const GOLDEN = join(import.meta.dirname, '../../fixtures/delta-golden');
const golden = (name: string): string => join(GOLDEN, name);

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, index) => from + index);
const ids = (rows: Array<Record<string, unknown>>): number[] => rows.map((row) => Number(row.id));

/** Every JSON commit from 0 to `to`, as written: the replay that ignores the checkpoint. */
function jsonCommits(table: string, to: number): Commit[] {
  return range(0, to + 1).map((version) => parseCommit(version, readFileSync(join(table, commitPath(version)), 'utf8'), commitPath(version)));
}

/** What two states must agree on to be the same table (a checkpoint rewrites dataChange to false, and keeps no commitInfo). */
function essence(state: TableState): unknown {
  return {
    version: state.version,
    protocol: state.protocol,
    metadata: { ...state.metadata, name: state.metadata.name ?? null, description: state.metadata.description ?? null },
    txns: [...state.txns.values()].map(({ appId, version }) => ({ appId, version })).sort((a, b) => a.appId.localeCompare(b.appId)),
    files: [...state.files.values()].map(({ path, size, modificationTime, stats, partitionValues }) => ({ path, size, modificationTime, stats, partitionValues })).sort((a, b) => a.path.localeCompare(b.path)),
  };
}

function copyTable(name: string): string {
  const dir = join(tempDir('delta-golden-'), name);
  cpSync(golden(name), dir, { recursive: true });
  return dir;
}

describe('log replay on Spark-written golden tables', () => {
  // LogReplaySuite "simple end to end with inserts and deletes and checkpoint": 41 rows at version 13.
  const deletesExpected = [...range(0, 5), ...range(10, 15), ...range(20, 25), ...range(30, 35), ...range(40, 45), ...range(50, 66)];

  it('reads basic-with-inserts-deletes-checkpoint at its newest version from the checkpoint', async () => {
    const { state, rows } = await readDeltaTable(golden('basic-with-inserts-deletes-checkpoint'));
    expect(state.version).toBe(13);
    expect(ids(rows)).toEqual(deletesExpected);
    expect(state.metadata.id).toBe('testId');
    expect(state.protocol).toEqual({ minReaderVersion: 1, minWriterVersion: 2 });
    expect(state.lastCommitTimestamp).toBeGreaterThan(1_600_000_000_000);
    expect(unsupportedReason(state)).toBeNull();
    expect(() => assertReadable(state, 'golden')).not.toThrow();
  });

  it('a reader starting from the checkpoint sees the same table as one replaying every JSON commit', async () => {
    const table = golden('basic-with-inserts-deletes-checkpoint');
    const fromLog = await readTableState(new DiskDeltaStore(table));
    const fromJson = replay(null, jsonCommits(table, 13));
    expect(essence(fromLog as TableState)).toEqual(essence(fromJson));
    expect([...(fromLog as TableState).tombstones.keys()].sort()).toEqual([...fromJson.tombstones.keys()].sort());

    // The checkpoint alone holds what versions 0 to 10 add up to.
    const checkpoint = stateFromCheckpointActions(10, await readCheckpoint(readFileSync(join(table, checkpointPath(10))), 'checkpoint 10'));
    expect(essence(checkpoint)).toEqual(essence(replay(null, jsonCommits(table, 10))));
    expect(checkpoint.files.size).toBe(6);
  });

  it('travels to older versions, before and after the checkpoint', async () => {
    const table = golden('basic-with-inserts-deletes-checkpoint');
    // Versions 0-4 append 10 rows each, 5-9 delete five of each ten, 10-12 append 50-79, 13 deletes id >= 66.
    expect(ids((await readDeltaTable(table, { version: 4 })).rows)).toEqual(range(0, 50));
    expect(ids((await readDeltaTable(table, { version: 9 })).rows)).toEqual(deletesExpected.filter((id) => id < 50));
    expect(ids((await readDeltaTable(table, { version: 11 })).rows)).toEqual([...deletesExpected.filter((id) => id < 50), ...range(50, 70)]);
    expect(ids((await readDeltaTable(table, { version: 0 })).rows)).toEqual(range(0, 10));
    await expect(readTableState(new DiskDeltaStore(table), { version: 14 })).rejects.toThrow(/Version 14 .* does not exist; expected a version from 0 to 13/);
  });

  it('after the commits before the checkpoint are deleted, reads the newest version and names the oldest readable one', async () => {
    const table = copyTable('basic-with-inserts-deletes-checkpoint');
    for (const version of range(0, 10)) rmSync(join(table, commitPath(version)));
    // _last_checkpoint is only a hint: a wrong one changes nothing.
    writeFileSync(join(table, '_delta_log/_last_checkpoint'), '{"version":3,"size":1}\n');
    const { state, rows } = await readDeltaTable(table);
    expect(state.version).toBe(13);
    expect(ids(rows)).toEqual(deletesExpected);
    await expect(readTableState(new DiskDeltaStore(table), { version: 5 })).rejects.toThrow(/Version 5 of the Delta table at .* can no longer be read: commit 0 was deleted \(vacuumed\); the oldest version that can be read is 10\./);
  });

  it('passes over a checkpoint it cannot read and replays the JSON commits instead', async () => {
    const table = copyTable('basic-with-inserts-deletes-checkpoint');
    truncateSync(join(table, checkpointPath(10)), 100);
    const { state, rows } = await readDeltaTable(table);
    expect(ids(rows)).toEqual(deletesExpected);
    expect(essence(state)).toEqual(essence(replay(null, jsonCommits(table, 13))));
  });

  it('reads the same rows through any store, as from a bucket (the files are fetched, not listed)', async () => {
    const disk = new DiskDeltaStore(golden('basic-with-inserts-overwrite-restore'));
    const remote: DeltaStore = {
      location: 's3://bucket/delta/golden',
      list: () => disk.list(),
      listLog: () => disk.listLog(),
      read: (path) => disk.read(path),
      putIfAbsent: () => Promise.reject(new Error('read only')),
      put: () => Promise.reject(new Error('read only')),
      createDataFile: () => Promise.reject(new Error('read only')),
      delete: () => Promise.reject(new Error('read only')),
    };
    expect(ids((await readDeltaTable(remote)).rows)).toEqual(range(0, 200));
  });

  it('refuses commits with a gap, naming the missing version', () => {
    const commits = jsonCommits(golden('basic-with-inserts-deletes-checkpoint'), 13).filter((commit) => commit.version !== 7);
    expect(() => replay(null, commits)).toThrow('The Delta log has no version 7 before version 8; expected contiguous commits after version 6.');
    const atSix = replay(null, commits.slice(0, 7));
    expect(() => replay(atSix, commits.slice(8))).toThrow(/no version 7 before version 9/);
  });

  it('revives files that a RESTORE adds back after an overwrite removed them (basic-with-inserts-overwrite-restore)', async () => {
    const table = golden('basic-with-inserts-overwrite-restore');
    // LogReplaySuite "simple end to end with restore": 0-199 at version 3.
    const { state, rows } = await readDeltaTable(table);
    expect(state.version).toBe(3);
    expect(ids(rows)).toEqual(range(0, 200));
    expect(state.files.size).toBe(4);
    expect(state.tombstones.size).toBe(2);
    expect(essence(state)).toEqual(essence(replay(null, jsonCommits(table, 3))));
    expect(ids((await readDeltaTable(table, { version: 2 })).rows)).toEqual(range(500, 1000));
    expect(ids((await readDeltaTable(table, { version: 1 })).rows)).toEqual(range(0, 200));
    expect(ids((await readDeltaTable(table, { version: 0 })).rows)).toEqual(range(0, 100));
  });

  it('reads a partitioned table whose overwrite changed the schema and the partition column (time-travel-partition-changes-b)', async () => {
    const table = golden('time-travel-partition-changes-b');
    const now = await readDeltaTable(table);
    expect(now.state.metadata.partitionColumns).toEqual(['part2']);
    expect(ids(now.rows)).toEqual(range(10, 20));
    expect(now.rows.map((row) => row.part2)).toEqual(range(10, 20).map((id) => String(id % 2)));
    const before = await readDeltaTable(table, { version: 0 });
    expect(before.state.metadata.partitionColumns).toEqual(['part5']);
    expect(ids(before.rows)).toEqual(range(0, 10));
    expect(before.rows.map((row) => row.part5)).toEqual(range(0, 10).map((id) => String(id % 5)));
  });

  it('keeps the newest txn per application (deltalog-getChanges)', async () => {
    const state = await readTableState(new DiskDeltaStore(golden('deltalog-getChanges')));
    expect(state?.txns.get('fakeAppId')?.version).toBe(3);
    expect(state?.txns.has('nonExistentAppId')).toBe(false);
  });

  it('takes the latest protocol and metaData, and judges a table needing reader 3 / writer 7 unsupported (log-replay-latest-metadata-protocol)', async () => {
    const table = golden('log-replay-latest-metadata-protocol');
    const state = (await readTableState(new DiskDeltaStore(table))) as TableState;
    expect(state.protocol.minReaderVersion).toBe(3);
    expect(state.protocol.minWriterVersion).toBe(7);
    expect(JSON.parse(state.metadata.schemaString).fields.map((field: { name: string }) => field.name)).toEqual(['col1', 'col2']);
    expect(() => assertReadable(state, table)).toThrow(`The Delta table at ${table} is left untouched: it needs Delta reader version 3, and this code implements reader version 1 only.`);
    const target = await inspectTarget(new DiskDeltaStore(table));
    expect(target.kind).toBe('delta');
  });
});

describe('what a target path holds', () => {
  it('tells nothing, leftovers of a killed first export, foreign files and a log without commits apart', async () => {
    const root = tempDir('delta-target-');
    expect(await inspectTarget(new DiskDeltaStore(join(root, 'absent')))).toEqual({ kind: 'empty', leftovers: [] });

    const leftovers = join(root, 'leftovers');
    mkdirSync(join(leftovers, '_delta_log'), { recursive: true });
    writeFileSync(join(leftovers, 'part-20261122T201500Z-ab12-00000-a1b2c3d4.parquet'), 'x');
    writeFileSync(join(leftovers, '.tmp-0a1b2c3d4e5f-part-20261122T201500Z-ab12-00001-a1b2c3d4.parquet'), 'x');
    writeFileSync(join(leftovers, '_delta_log/.tmp-0a1b2c3d4e5f-put'), 'x');
    expect(await inspectTarget(new DiskDeltaStore(leftovers))).toEqual({
      kind: 'empty',
      leftovers: ['.tmp-0a1b2c3d4e5f-part-20261122T201500Z-ab12-00001-a1b2c3d4.parquet', '_delta_log/.tmp-0a1b2c3d4e5f-put', 'part-20261122T201500Z-ab12-00000-a1b2c3d4.parquet'],
    });

    const sparkFiles = join(root, 'spark-files');
    mkdirSync(sparkFiles);
    for (const name of readdirSync(golden('basic-with-inserts-overwrite-restore')).filter((file) => file.endsWith('.parquet'))) {
      cpSync(join(golden('basic-with-inserts-overwrite-restore'), name), join(sparkFiles, name));
    }
    const foreign = await inspectTarget(new DiskDeltaStore(sparkFiles));
    expect(foreign).toEqual({ kind: 'not-delta', example: 'part-00000-5e752668-638c-4e95-9521-5e88926e3169-c000.snappy.parquet' });

    const logless = join(root, 'log-without-commits');
    mkdirSync(join(logless, '_delta_log'), { recursive: true });
    writeFileSync(join(logless, '_delta_log/_last_checkpoint'), '{"version":10,"size":3}\n');
    expect(await inspectTarget(new DiskDeltaStore(logless))).toEqual({ kind: 'not-delta', example: '_delta_log/_last_checkpoint' });
  });
});
