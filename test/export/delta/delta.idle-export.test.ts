import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/open.js';
import { checkpointPath, LAST_CHECKPOINT } from '../../../src/export/delta/actions.js';
import { readCheckpoint } from '../../../src/export/delta/checkpointReader.js';
import { DiskDeltaStore } from '../../../src/export/delta/diskStore.js';
import { inspectTarget } from '../../../src/export/delta/logReader.js';
import type { DataFileSink, DeltaStore, StoredEntry } from '../../../src/export/delta/store.js';
import { writeDeltaTable, type TableWriteContext } from '../../../src/export/delta/writeTable.js';
import { tableSchema } from '../../../src/export/schema.js';
import { Snapshot } from '../../../src/export/snapshot.js';
import { fillMirror, silentLogger, tempDir } from '../helpers.js';

const NOW = Date.parse('2026-11-25T12:00:00Z');
const DAY_MS = 24 * 60 * 60 * 1000;

/** A table folder on disk that notes every read and write the writer makes of it. */
class NotingStore implements DeltaStore {
  readonly calls: string[] = [];
  readonly location: string;
  constructor(private readonly inner: DiskDeltaStore) {
    this.location = inner.location;
  }
  list(): Promise<StoredEntry[]> {
    return this.inner.list();
  }
  listLog(): Promise<StoredEntry[]> {
    return this.inner.listLog();
  }
  read(path: string): Promise<Buffer | null> {
    this.calls.push(`read ${path}`);
    return this.inner.read(path);
  }
  putIfAbsent(path: string, body: Buffer): Promise<boolean> {
    this.calls.push(`putIfAbsent ${path}`);
    return this.inner.putIfAbsent(path, body);
  }
  put(path: string, body: Buffer): Promise<void> {
    this.calls.push(`put ${path}`);
    return this.inner.put(path, body);
  }
  createDataFile(path: string, signal?: AbortSignal): Promise<DataFileSink> {
    this.calls.push(`createDataFile ${path}`);
    return this.inner.createDataFile(path, signal);
  }
  delete(paths: readonly string[]): Promise<void> {
    this.calls.push(...paths.map((path) => `delete ${path}`));
    return this.inner.delete(paths);
  }
}

describe('a Delta export that commits nothing', () => {
  const dir = tempDir('delta-idle-');
  const table = join(dir, 'delta', 'unsubscribes');
  const store = new NotingStore(new DiskDeltaStore(table));
  let db: Db;
  let snapshot: Snapshot;
  beforeAll(async () => {
    db = await fillMirror(join(dir, 'mirror.db'), 4, 'tiny');
    snapshot = Snapshot.open(join(dir, 'mirror.db'));
  });
  afterAll(() => {
    snapshot.close();
    db.close();
  });

  const context = (nowMs: number, recorded: number | null): TableWriteContext => ({
    snapshot,
    schema: tableSchema(snapshot.db, 'unsubscribes'),
    stores: [store],
    mirrorId: 'test-mirror',
    recordedChangeSeq: () => recorded,
    notePending: () => undefined,
    isRunLive: () => false,
    changeSeq: snapshot.changeSeq,
    runId: '20261125T120000Z-abcd',
    tool: 'loyalty-sync 0.0.0-test',
    rowGroupSize: 65_536,
    retainDays: 7,
    logRetainDays: 30,
    logger: silentLogger,
    now: () => nowMs,
  });

  it('neither encodes nor reads the checkpoint again, nor rewrites _last_checkpoint, whose size stays the checkpoint\'s action count', async () => {
    // A mirror this table does not follow is written whole each time: versions 0 to 10, each removing
    // the files of the one before, so the checkpoint at 10 holds the tombstones of the last week.
    for (let version = 0; version <= 10; version += 1) {
      expect(await writeDeltaTable(context(NOW + version * 60_000, null))).toMatchObject({ version, committed: true });
    }
    const log = join(table, '_delta_log');
    const checkpoint = readFileSync(join(log, '00000000000000000010.checkpoint.parquet'));
    const pointer = readFileSync(join(log, '_last_checkpoint'), 'utf8');
    const pointerChanged = statSync(join(log, '_last_checkpoint')).mtimeMs;
    expect(JSON.parse(pointer)).toEqual({ version: 10, size: (await readCheckpoint(checkpoint, 'checkpoint')).length, sizeInBytes: checkpoint.byteLength });

    // Eight days on the tombstones have expired: a checkpoint encoded now would hold fewer actions.
    // The state is read first, as exportDelta does for every place: what follows is the export's own doing.
    const found = await inspectTarget(store);
    store.calls.length = 0;
    expect(await writeDeltaTable({ ...context(NOW + 8 * DAY_MS, snapshot.changeSeq), found })).toMatchObject({ version: 10, committed: false });
    expect(store.calls.filter((call) => !call.startsWith('delete '))).toEqual([]);
    expect(readFileSync(join(log, '00000000000000000010.checkpoint.parquet'))).toEqual(checkpoint);
    expect(readFileSync(join(log, '_last_checkpoint'), 'utf8')).toBe(pointer);
    expect(statSync(join(log, '_last_checkpoint')).mtimeMs).toBe(pointerChanged);
    expect(store.calls).not.toContain(`read ${checkpointPath(10)}`);
    expect(store.calls).not.toContain(`put ${LAST_CHECKPOINT}`);
  });
});
