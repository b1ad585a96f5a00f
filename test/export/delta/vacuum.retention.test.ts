import { describe, expect, it } from 'vitest';
import { PROTOCOL, checkpointPath, commitPath, LAST_CHECKPOINT, type AddFile, type RemoveFile, type TableState } from '../../../src/export/delta/actions.js';
import type { StoredEntry } from '../../../src/export/delta/store.js';
import { planVacuum, vacuum } from '../../../src/export/delta/vacuum.js';
import { MemoryStore } from './memoryStore.js';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const NOW = Date.parse('2026-11-25T12:00:00Z');
const RETAIN_MS = 7 * DAY_MS;
const LOG_RETAIN_MS = 30 * DAY_MS;

const daysAgo = (days: number): number => NOW - days * DAY_MS;

function add(path: string): AddFile {
  return { path, partitionValues: {}, size: 100, modificationTime: daysAgo(100), dataChange: true, stats: '{"numRecords":1}', tags: { 'loyalty_sync.rowids': '1-1' } };
}

function remove(path: string, removedDaysAgo: number): RemoveFile {
  return { path, deletionTimestamp: daysAgo(removedDaysAgo), dataChange: true };
}

function state(version: number, active: string[], removed: RemoveFile[] = []): TableState {
  return {
    version,
    protocol: PROTOCOL,
    metadata: { id: 'table-id', format: { provider: 'parquet', options: {} }, schemaString: '{"type":"struct","fields":[]}', partitionColumns: [], configuration: {} },
    txns: new Map(),
    files: new Map(active.map((path) => [path, add(path)])),
    tombstones: new Map(removed.map((tombstone) => [tombstone.path, tombstone])),
    lastCommitTimestamp: null,
    unknownActions: new Set(),
  };
}

const entry = (path: string, ageDays: number): StoredEntry => ({ path, size: 100, modifiedMs: daysAgo(ageDays) });

function plan(table: TableState, entries: StoredEntry[], checkpointVersions: number[] = []): { dataFiles: string[]; logFiles: string[] } {
  return planVacuum({ state: table, entries, nowMs: NOW, retainMs: RETAIN_MS, logRetainMs: LOG_RETAIN_MS, checkpointVersions });
}

describe('vacuum of data files', () => {
  it('keeps every file the current version reads, however old', () => {
    const table = state(3, ['part-old.parquet', 'part-new.parquet', 'part-with%20space.parquet']);
    const result = plan(table, [entry('part-old.parquet', 400), entry('part-new.parquet', 0), entry('part-with space.parquet', 400), entry(commitPath(3), 400)]);
    expect(result.dataFiles).toEqual([]);
  });

  it('deletes a file removed 8 days ago and keeps one removed 6 days ago, which versions inside the window read', () => {
    const table = state(5, ['part-live.parquet'], [remove('part-removed-8d.parquet', 8), remove('part-removed-6d.parquet', 6)]);
    const result = plan(table, [entry('part-live.parquet', 20), entry('part-removed-8d.parquet', 20), entry('part-removed-6d.parquet', 20)]);
    expect(result.dataFiles).toEqual(['part-removed-8d.parquet']);
  });

  it('deletes a file no version ever named once older than the retention, and keeps a younger one a run may still commit', () => {
    const table = state(2, ['part-live.parquet']);
    const result = plan(table, [
      entry('part-live.parquet', 30),
      entry('part-failed-run-00000-aaaaaaaa.parquet', 8),
      entry('part-running-00000-bbbbbbbb.parquet', 6),
      entry('.tmp-part-killed-00001-cccccccc.parquet', 9),
      entry('.tmp-part-uploading-00002-dddddddd.parquet', 0),
    ]);
    expect(result.dataFiles).toEqual(['.tmp-part-killed-00001-cccccccc.parquet', 'part-failed-run-00000-aaaaaaaa.parquet']);
  });

  it('spares the files of an export run that still runs, however old, and deletes a dead run\'s', () => {
    const table = state(2, ['part-live.parquet']);
    const live = 'part-20261117T080000Z-aaaa-00000-0a1b2c3d.parquet';
    const dead = 'part-20261117T080000Z-bbbb-00000-4e5f6a7b.parquet';
    const entries = [entry('part-live.parquet', 9), entry(live, 9), entry(dead, 9)];
    const result = planVacuum({ state: table, entries, nowMs: NOW, retainMs: 0, logRetainMs: LOG_RETAIN_MS, checkpointVersions: [], isRunLive: (runId) => runId === '20261117T080000Z-aaaa' });
    expect(result.dataFiles).toEqual([dead]);
  });

  it('never counts the log, or files other tools keep beside the data, as data files', () => {
    const table = state(40, []);
    const result = plan(table, [entry('_delta_log/00000000000000000001.json', 2), entry('_change_data/cdc-1.parquet', 90), entry('.part-x.parquet.crc', 90), entry(LAST_CHECKPOINT, 90)]);
    expect(result.dataFiles).toEqual([]);
  });

  it('spares names beginning with _ or . at every level of the path, as Spark\'s VACUUM does, and still deletes an old orphan in a subfolder', () => {
    const table = state(4, []);
    const result = plan(table, [
      entry('.hidden_dir/keep.parquet', 90),
      entry('sub/_hidden/x.parquet', 90),
      entry('sub/.x.parquet.crc', 90),
      entry('sub/.tmp-not-ours.parquet', 90),
      entry('sub/orphan.parquet', 90),
    ]);
    expect(result.dataFiles).toEqual(['sub/orphan.parquet']);
  });
});

describe('vacuum of the log', () => {
  /** Commits 0..count-1 written one a day, the newest today; a checkpoint beside every tenth. */
  function log(count: number, ageOf: (version: number) => number = (version) => count - 1 - version): { entries: StoredEntry[]; checkpoints: number[] } {
    const entries: StoredEntry[] = [];
    const checkpoints: number[] = [];
    for (let version = 0; version < count; version += 1) {
      entries.push(entry(commitPath(version), ageOf(version)));
      if (version > 0 && version % 10 === 0) {
        entries.push(entry(checkpointPath(version), ageOf(version)));
        checkpoints.push(version);
      }
    }
    entries.push(entry(LAST_CHECKPOINT, 0));
    return { entries, checkpoints };
  }

  it('deletes commits and older checkpoints before a checkpoint only once they are past 30 days', () => {
    // 45 commits, one a day: version v is 44 - v days old. Checkpoint 10 is 34 days old, 20 is 24, 30 is 14, 40 is 4.
    const { entries, checkpoints } = log(45);
    const result = plan(state(44, []), entries, checkpoints);
    // The log is cut at checkpoint 10, the newest checkpoint already past 30 days: versions 0..9 go
    // (34 to 44 days old). Commits 11..14 are past 30 days too but stay: versions inside the window
    // are read from checkpoint 10 and the commits after it.
    expect(result.logFiles).toEqual(Array.from({ length: 10 }, (_, version) => commitPath(version)));
  });

  it('cuts the log only at a checkpoint past 30 days, however old the commits before a younger one', () => {
    const { entries, checkpoints } = log(25, (version) => (version < 20 ? 60 : 1));
    // Checkpoints 10 and 20: 10 is 60 days old, so commits before it go; 20 is a day old.
    expect(plan(state(24, []), entries, checkpoints).logFiles).toEqual(Array.from({ length: 10 }, (_, version) => commitPath(version)));
    const young = log(25, (version) => (version < 10 ? 60 : 1));
    // Checkpoint 10 is a day old (written late): nothing before it is covered by an expired checkpoint.
    expect(plan(state(24, []), young.entries, young.checkpoints).logFiles).toEqual([]);
  });

  it('cuts by version at the checkpoint: a commit before it whose file was touched recently goes too', () => {
    // Versions 0..19 are 60 days old, except commit 3, touched an hour ago; 20..24 a day old.
    const { entries, checkpoints } = log(25, (version) => (version === 3 ? 1 / 24 : version < 20 ? 60 : 1));
    expect(plan(state(24, []), entries, checkpoints).logFiles).toEqual(Array.from({ length: 10 }, (_, version) => commitPath(version)));
  });

  it('takes the cut-off from the commits\' times, not the checkpoint file\'s (a checkpoint written again later)', () => {
    const { entries, checkpoints } = log(25, (version) => (version < 20 ? 60 : 1));
    const touched = entries.map((item) => (item.path === checkpointPath(10) ? { ...item, modifiedMs: NOW } : item));
    expect(plan(state(24, []), touched, checkpoints).logFiles).toEqual(Array.from({ length: 10 }, (_, version) => commitPath(version)));
  });

  it('never deletes the newest checkpoint, the commits after it, or _last_checkpoint, however old', () => {
    const { entries, checkpoints } = log(35, () => 400);
    const result = plan(state(34, []), entries, checkpoints);
    expect(result.logFiles).toContain(checkpointPath(10));
    expect(result.logFiles).toContain(checkpointPath(20));
    expect(result.logFiles).toContain(commitPath(29));
    expect(result.logFiles).not.toContain(checkpointPath(30));
    for (let version = 30; version < 35; version += 1) expect(result.logFiles).not.toContain(commitPath(version));
    expect(result.logFiles).not.toContain(LAST_CHECKPOINT);
  });

  it('deletes temporary log files of killed commits after an hour', () => {
    const entries = [
      { path: '_delta_log/.tmp-00000000000000000003.json-1a2b', size: 10, modifiedMs: NOW - 2 * HOUR_MS },
      { path: '_delta_log/.tmp-00000000000000000004.json-3c4d', size: 10, modifiedMs: NOW - 10 * 60 * 1000 },
      entry(commitPath(0), 0),
    ];
    expect(plan(state(0, []), entries).logFiles).toEqual(['_delta_log/.tmp-00000000000000000003.json-1a2b']);
  });
});

describe('vacuum through a store', () => {
  it('deletes what the plan names and nothing else', async () => {
    const store = new MemoryStore();
    const put = async (path: string, ageDays: number): Promise<void> => {
      store.nowMs = daysAgo(ageDays);
      await store.put(path, Buffer.from(path));
    };
    await put('part-live.parquet', 50);
    await put('part-removed.parquet', 50);
    await put('part-orphan.parquet', 10);
    for (let version = 0; version <= 12; version += 1) await put(commitPath(version), 60 - version);
    await put(checkpointPath(10), 50);
    await put(LAST_CHECKPOINT, 50);

    const result = await vacuum(store, state(12, ['part-live.parquet'], [remove('part-removed.parquet', 9)]), NOW, { retainMs: RETAIN_MS });

    const removed = [...result.dataFiles, ...result.logFiles];
    expect(removed).toEqual(['part-orphan.parquet', 'part-removed.parquet', ...Array.from({ length: 10 }, (_, version) => commitPath(version))]);
    expect([...store.objects.keys()].sort()).toEqual(['_delta_log/00000000000000000010.checkpoint.parquet', commitPath(10), commitPath(11), commitPath(12), LAST_CHECKPOINT, 'part-live.parquet'].sort());
  });
});
