import { describe, expect, it } from 'vitest';
import { LAST_CHECKPOINT, PROTOCOL, checkpointPath, type TableState } from '../../../src/export/delta/actions.js';
import { shouldCheckpoint, writeCheckpoint } from '../../../src/export/delta/checkpoint.js';
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

  it('leaves a checkpoint already written for that version alone, and describes the one that is there', async () => {
    const store = new MemoryStore();
    const earlier = Buffer.from('a checkpoint another run wrote');
    await store.putIfAbsent(checkpointPath(20), earlier);
    const written = await writeCheckpoint(store, stateAt(20, 2), NOW);
    expect(written.created).toBe(false);
    expect(await store.read(checkpointPath(20))).toEqual(earlier);
    expect(JSON.parse(String(await store.read(LAST_CHECKPOINT)))).toEqual({ version: 20, size: 5, sizeInBytes: earlier.byteLength });
  });
});
