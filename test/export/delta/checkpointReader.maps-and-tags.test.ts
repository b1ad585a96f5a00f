import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { expect, it } from 'vitest';
import { readCheckpoint } from '../../../src/export/delta/checkpointReader.js';
import { stateFromCheckpointActions } from '../../../src/export/delta/replay.js';
import { tempDir } from '../../helpers/tempDir.js';

/**
 * A classic checkpoint whose maps are not empty, as this project's checkpoints are (every add carries
 * `tags` with its rowid range): Spark's golden checkpoints only hold empty maps and null tags.
 * DuckDB writes it, with Parquet MAP and LIST columns as any engine would.
 */
it('reads a checkpoint\'s maps as records: tags, partitionValues, configuration and format options survive', async () => {
  const path = join(tempDir('delta-checkpoint-'), '00000000000000000010.checkpoint.parquet');
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const add = (file: string, tags: string) =>
    `{'path': '${file}', 'partitionValues': MAP {}::MAP(VARCHAR, VARCHAR), 'size': 1234::BIGINT, 'modificationTime': 1764000000000::BIGINT, 'dataChange': false, 'stats': '{"numRecords":2}', 'tags': ${tags}}`;
  const nullAdd = `NULL::STRUCT(path VARCHAR, partitionValues MAP(VARCHAR, VARCHAR), size BIGINT, modificationTime BIGINT, dataChange BOOLEAN, stats VARCHAR, tags MAP(VARCHAR, VARCHAR))`;
  try {
    await connection.run(`
      COPY (
        SELECT * FROM (VALUES
          (NULL, ${nullAdd}, {'minReaderVersion': 1, 'minWriterVersion': 2, 'readerFeatures': NULL::VARCHAR[], 'writerFeatures': NULL::VARCHAR[]}, NULL),
          ({'id': 'table-id', 'name': NULL::VARCHAR, 'description': NULL::VARCHAR, 'format': {'provider': 'parquet', 'options': MAP {'compression': 'zstd'}}, 'schemaString': '{"type":"struct","fields":[]}', 'partitionColumns': []::VARCHAR[], 'configuration': MAP {'delta.checkpointInterval': '10'}, 'createdTime': 1764000000000::BIGINT}, ${nullAdd}, NULL, NULL),
          (NULL, ${add('part-a.parquet', `MAP {'loyalty_sync.rowids': '1-500'}`)}, NULL, NULL),
          (NULL, ${add('part-b.parquet', `NULL::MAP(VARCHAR, VARCHAR)`)}, NULL, NULL),
          (NULL, ${nullAdd}, NULL, {'appId': 'loyalty-sync:mirror-1', 'version': 42::BIGINT, 'lastUpdated': 1764000000000::BIGINT})
        ) AS t(metaData, "add", protocol, txn)
      ) TO '${path}' (FORMAT parquet)`);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }

  const state = stateFromCheckpointActions(10, await readCheckpoint(readFileSync(path), path));
  expect(state.version).toBe(10);
  expect(state.protocol).toEqual({ minReaderVersion: 1, minWriterVersion: 2 });
  expect(state.metadata).toEqual({
    id: 'table-id',
    name: null,
    description: null,
    format: { provider: 'parquet', options: { compression: 'zstd' } },
    schemaString: '{"type":"struct","fields":[]}',
    partitionColumns: [],
    configuration: { 'delta.checkpointInterval': '10' },
    createdTime: 1764000000000,
  });
  expect(state.files.get('part-a.parquet')).toEqual({
    path: 'part-a.parquet',
    partitionValues: {},
    size: 1234,
    modificationTime: 1764000000000,
    dataChange: false,
    stats: '{"numRecords":2}',
    tags: { 'loyalty_sync.rowids': '1-500' },
  });
  expect(state.files.get('part-b.parquet')?.tags).toBeUndefined();
  expect(state.txns.get('loyalty-sync:mirror-1')).toEqual({ appId: 'loyalty-sync:mirror-1', version: 42, lastUpdated: 1764000000000 });
  expect(state.unknownActions.size).toBe(0);
});

it('says which file is not a checkpoint', async () => {
  await expect(readCheckpoint(Buffer.from('not parquet'), 'table/_delta_log/00000000000000000010.checkpoint.parquet')).rejects.toThrow(
    'table/_delta_log/00000000000000000010.checkpoint.parquet is not a readable Parquet checkpoint; expected a Delta checkpoint written by a Delta engine.',
  );
});
