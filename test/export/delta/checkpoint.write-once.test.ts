import { describe, expect, it } from 'vitest';
import { LAST_CHECKPOINT, PROTOCOL, checkpointPath, type TableState } from '../../../src/export/delta/actions.js';
import { checkpointBytes, shouldCheckpoint, writeCheckpoint } from '../../../src/export/delta/checkpoint.js';
import { readCheckpoint } from '../../../src/export/delta/checkpointReader.js';
import { MemoryStore } from './memoryStore.js';

const NOW = Date.parse('2026-11-25T12:00:00Z');

function stateAt(version: number, files: number): TableState {
  const paths = Array.from({ length: files }, (_, index) => `part-run-${String(index).padStart(5, '0')}-abcdef01.parquet`);
  return {
    version,
    protocol: PROTOCOL,
    metadata: { id: 'table-id', format: { provider: 'parquet', options: {} }, schemaString: '{"type":"struct","fields":[]}', partitionColumns: [], configuration: {} },
    txns: new Map([['loyalty-sync:m', { appId: 'loyalty-sync:m', version: version * 3 }]]),
    files: new Map(paths.map((path) => [path, { path, partitionValues: {}, size: 10, modificationTime: NOW, dataChange: true }])),
    tombstones: new Map(),
    lastCommitTimestamp: NOW,
    unknownActions: new Set(),
  };
}

describe('writing a checkpoint', () => {
  it('is due every 10 versions, never at version 0', () => {
    expect([0, 1, 9, 10, 11, 20, 25, 30].filter(shouldCheckpoint)).toEqual([10, 20, 30]);
  });

  it('puts the checkpoint and points _last_checkpoint at it with its action count and size', async () => {
    const store = new MemoryStore();
    const written = await writeCheckpoint(store, stateAt(10, 3), NOW);
    const body = await store.read(checkpointPath(10));
    expect(written).toEqual({ path: checkpointPath(10), created: true, actions: 6, bytes: body?.byteLength });
    // protocol, metaData, one txn and three adds.
    expect(JSON.parse(String(await store.read(LAST_CHECKPOINT)))).toEqual({ version: 10, size: 6, sizeInBytes: body?.byteLength });
  });

  it('leaves a checkpoint another writer put for that version alone, and points _last_checkpoint at it with that file\'s own action count', async () => {
    const store = new MemoryStore();
    const theirs = Buffer.from(await checkpointBytes(stateAt(20, 4), NOW));
    await store.putIfAbsent(checkpointPath(20), theirs);
    const written = await writeCheckpoint(store, stateAt(20, 2), NOW);
    expect(written).toEqual({ path: checkpointPath(20), created: false, actions: 7, bytes: theirs.byteLength });
    expect(await store.read(checkpointPath(20))).toEqual(theirs);
    // protocol, metaData, one txn and four adds: the file's rows, not the two adds of the state this writer had.
    expect(JSON.parse(String(await store.read(LAST_CHECKPOINT)))).toEqual({ version: 20, size: 7, sizeInBytes: theirs.byteLength });
    expect(await readCheckpoint(theirs, 'theirs')).toHaveLength(7);
  });

  it('leaves _last_checkpoint alone when the checkpoint already there cannot be read', async () => {
    const store = new MemoryStore();
    await store.put(LAST_CHECKPOINT, Buffer.from('{"version":10,"size":6,"sizeInBytes":100}'));
    await store.putIfAbsent(checkpointPath(20), Buffer.from('not parquet'));
    const written = await writeCheckpoint(store, stateAt(20, 2), NOW);
    expect(written).toMatchObject({ created: false, actions: null });
    expect(String(await store.read(LAST_CHECKPOINT))).toBe('{"version":10,"size":6,"sizeInBytes":100}');
  });
});
