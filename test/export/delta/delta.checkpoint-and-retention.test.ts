import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../src/config.js';
import type { Db } from '../../../src/db/open.js';
import { type ApiRecord } from '../../../src/db/upsertRecords.js';
import { commitPath, parseCommit, type Commit } from '../../../src/export/delta/actions.js';
import { DiskDeltaStore } from '../../../src/export/delta/diskStore.js';
import { readTableState } from '../../../src/export/delta/logReader.js';
import { replay } from '../../../src/export/delta/replay.js';
import { runExport } from '../../../src/export/index.js';
import { readWithEngine } from '../../helpers/deltaEngine.js';
import { readDeltaTable } from '../../helpers/deltaTable.js';
import { exportConfig, fillMirror, silentLogger, tempDir, upsert } from '../helpers.js';
import { expectEngineReadsMirror } from './engineChecks.js';

/** Changes a few customers, as a sync would: each export then commits one version of the customers table. */
function changeSomeCustomers(db: Db, round: number): void {
  const rows = db.prepare('SELECT raw FROM customers ORDER BY id LIMIT 3').pluck().all() as string[];
  upsert(db, 'customers', rows.map((raw) => ({ ...(JSON.parse(raw) as ApiRecord), points_balance: 1000 + round })));
}

function liveCustomers(db: Db): Array<{ id: string; seq: string }> {
  return (db.prepare('SELECT id, _change_seq AS seq FROM customers WHERE _removed_at IS NULL ORDER BY id').all() as Array<{ id: number; seq: number }>).map((row) => ({ id: String(row.id), seq: String(row.seq) }));
}

describe('Delta checkpoints and retention', () => {
  let db: Db;
  let config: Readonly<Config>;
  let table: string;
  const statesByVersion: Array<Array<{ id: string; seq: string }>> = [];
  beforeAll(async () => {
    const dir = tempDir('delta-checkpoint-');
    config = exportConfig(dir, { formats: ['delta'] });
    db = await fillMirror(config.db.path, 5, 'tiny');
    table = join(config.export.dir, 'delta', 'customers');
    for (let round = 0; round < 13; round += 1) {
      if (round > 0) changeSomeCustomers(db, round);
      const report = await runExport({ db, config, logger: silentLogger, tables: ['customers'] });
      expect(report.delta[0]).toMatchObject({ version: round, committed: true });
      statesByVersion.push(liveCustomers(db));
    }
  });
  afterAll(() => db.close());

  it('writes a Parquet checkpoint at version 10 and points _last_checkpoint at it', () => {
    const log = readdirSync(join(table, '_delta_log'));
    expect(log).toContain('00000000000000000010.checkpoint.parquet');
    expect(log).toContain('_last_checkpoint');
  });

  it('the engine (Delta\'s own kernel) opens the table through the checkpoint and every version 0 to 12, each as the mirror was then', () => {
    const versions = expectEngineReadsMirror(db, 'customers', table);
    expect(versions.map(({ version, rows }) => [version, rows])).toEqual(statesByVersion.map((rows, version) => [version, rows.length]));
    // With every commit before it gone, only the checkpoint can give the engine versions 0 to 10.
    const onlyCheckpoint = tempDir('delta-checkpoint-only-');
    cpSync(table, onlyCheckpoint, { recursive: true });
    for (let version = 0; version < 10; version += 1) rmSync(join(onlyCheckpoint, commitPath(version)));
    for (const version of [10, 12]) {
      const { rows } = readWithEngine(onlyCheckpoint, { version });
      expect(rows.map((row) => ({ id: String(row.id), seq: String(row._change_seq) })), `version ${version}`).toEqual(statesByVersion[version]);
    }
  });

  it('a reader that starts from the checkpoint sees the same table as one that replays every JSON commit', async () => {
    const store = new DiskDeltaStore(table);
    const fromCheckpoint = await readTableState(store);
    const commits: Commit[] = [];
    for (let version = 0; version <= 12; version += 1) {
      const bytes = await store.read(commitPath(version));
      expect(bytes, `version ${version}`).not.toBeNull();
      commits.push(parseCommit(version, bytes!.toString('utf8'), commitPath(version)));
    }
    const replayed = replay(null, commits);
    expect(fromCheckpoint?.version).toBe(12);
    expect(fromCheckpoint?.metadata).toEqual(replayed.metadata);
    expect(fromCheckpoint?.protocol).toEqual(replayed.protocol);
    expect([...(fromCheckpoint?.txns.entries() ?? [])]).toEqual([...replayed.txns.entries()]);
    expect([...(fromCheckpoint?.files.keys() ?? [])].sort()).toEqual([...replayed.files.keys()].sort());
    for (const [path, add] of replayed.files) expect(fromCheckpoint?.files.get(path), path).toMatchObject({ size: add.size, stats: add.stats, tags: add.tags });
  });

  it('time travel inside the retention window: every version reads back as the mirror was then', async () => {
    for (const version of [0, 5, 9, 10, 12]) {
      const { rows } = await readDeltaTable(table, { version });
      expect(rows.map((row) => ({ id: String(row.id), seq: String(row._change_seq) })), `version ${version}`).toEqual(statesByVersion[version]);
      const engine = readWithEngine(table, { version });
      expect(engine.rows.map((row) => ({ id: String(row.id), seq: String(row._change_seq) })), `version ${version} in the engine`).toEqual(statesByVersion[version]);
    }
  });

  it('vacuum keeps every file a version inside the retention window needs, and removes them once it is 0 days', async () => {
    const dataFiles = (): string[] => readdirSync(table).filter((name) => name.endsWith('.parquet'));
    // Within the 7 days, the files of every earlier version are still there for time travel.
    expect(dataFiles().length).toBeGreaterThan((await readTableState(new DiskDeltaStore(table)))!.files.size);

    changeSomeCustomers(db, 13);
    await runExport({ db, config: { ...config, export: { ...config.export, delta: { ...config.export.delta, retainDays: 0 } } }, logger: silentLogger, tables: ['customers'] });
    const state = (await readTableState(new DiskDeltaStore(table)))!;
    expect(dataFiles().sort()).toEqual([...state.files.keys()].sort());
    const { rows } = await readDeltaTable(table);
    expect(rows.map((row) => ({ id: String(row.id), seq: String(row._change_seq) }))).toEqual(liveCustomers(db));
    // The older versions' files are gone, as a vacuum of 0 days allows: their logs still open.
    expectEngineReadsMirror(db, 'customers', table, { dataFrom: state.version });
  });

  it('writes a checkpoint missed at version 10 (a run killed just after its commit) at the next export', async () => {
    rmSync(join(table, '_delta_log', '00000000000000000010.checkpoint.parquet'));
    rmSync(join(table, '_delta_log', '_last_checkpoint'));
    changeSomeCustomers(db, 14);
    const report = await runExport({ db, config, logger: silentLogger, tables: ['customers'] });
    expect(report.delta[0]).toMatchObject({ version: 14, committed: true });
    expect(readdirSync(join(table, '_delta_log'))).toContain('00000000000000000014.checkpoint.parquet');
    expect(JSON.parse(readFileSync(join(table, '_delta_log', '_last_checkpoint'), 'utf8'))).toMatchObject({ version: 14 });
    expectEngineReadsMirror(db, 'customers', table, { dataFrom: 14 });
  });

  it('cleans the log by the window another engine set in the table (delta.logRetentionDuration), not export.delta.logRetainDays', async () => {
    const store = new DiskDeltaStore(table);
    const before = (await readTableState(store))!;
    const configuration = { ...before.metadata.configuration, 'delta.logRetentionDuration': 'interval 0 days' };
    writeFileSync(join(table, commitPath(15)), `${JSON.stringify({ commitInfo: { timestamp: Date.now(), operation: 'SET TBLPROPERTIES' } })}\n${JSON.stringify({ metaData: { ...before.metadata, configuration } })}\n`);
    changeSomeCustomers(db, 16);
    expect((await runExport({ db, config, logger: silentLogger, tables: ['customers'] })).delta[0]).toMatchObject({ version: 16, committed: true });
    // Cut at checkpoint 14, the newest at or before the newest commit past a window of 0 days.
    const commits = readdirSync(join(table, '_delta_log')).filter((name) => name.endsWith('.json')).sort();
    expect(commits).toEqual([commitPath(14), commitPath(15), commitPath(16)].map((path) => path.slice('_delta_log/'.length)));
    expect((await readTableState(store))?.metadata.configuration['delta.logRetentionDuration']).toBe('interval 0 days');
    // The engine starts from checkpoint 14, the oldest version the cleaned log keeps.
    expect(expectEngineReadsMirror(db, 'customers', table, { dataFrom: 16 }).map(({ version }) => version)).toEqual([14, 15, 16]);
  });
});
