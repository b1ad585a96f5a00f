import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROTOCOL, type AddFile, type RemoveFile, type TableState, type Txn } from '../../../src/export/delta/actions.js';
import { checkpointBytes } from '../../../src/export/delta/checkpoint.js';
import { duckdb, query, tempDir } from '../helpers.js';

/** A checkpoint Spark wrote (delta-io/delta's golden table `basic-with-inserts-deletes-checkpoint`, version 10). */
const SPARK_CHECKPOINT = join(import.meta.dirname, '../../fixtures/delta-golden/basic-with-inserts-deletes-checkpoint/_delta_log/00000000000000000010.checkpoint.parquet');

const DAY_MS = 24 * 60 * 60 * 1000;
const NOW = Date.parse('2026-11-25T12:00:00Z');

function add(path: string, size: number, lo: number, hi: number): AddFile {
  return {
    path,
    partitionValues: {},
    size,
    modificationTime: NOW - 2 * DAY_MS,
    dataChange: true,
    stats: JSON.stringify({ numRecords: hi - lo + 1, minValues: { id: lo }, maxValues: { id: hi }, nullCount: { id: 0 } }),
    tags: { 'loyalty_sync.rowids': `${lo}-${hi}` },
  };
}

function remove(path: string, deletedDaysAgo: number): RemoveFile {
  return { path, deletionTimestamp: NOW - deletedDaysAgo * DAY_MS, dataChange: true, extendedFileMetadata: true, partitionValues: {}, size: 999 };
}

const adds = [add('part-run1-00000-aaaaaaaa.parquet', 1234, 1, 500), add('part-run2-00000-bbbbbbbb.parquet', 5_000_000_000, 501, 900)];
const txn: Txn = { appId: 'loyalty-sync:mirror-1', version: 4242, lastUpdated: NOW - DAY_MS };

const state: TableState = {
  version: 20,
  protocol: PROTOCOL,
  metadata: {
    id: '5b0a3d7e-6f1c-4c0e-9a57-2f5b8f1e3c11',
    name: null,
    description: null,
    format: { provider: 'parquet', options: {} },
    schemaString: JSON.stringify({ type: 'struct', fields: [{ name: 'id', type: 'long', nullable: false, metadata: {} }] }),
    partitionColumns: [],
    configuration: { 'delta.checkpointInterval': '10' },
    createdTime: NOW - 30 * DAY_MS,
  },
  txns: new Map([[txn.appId, txn]]),
  files: new Map(adds.map((file) => [file.path, file])),
  tombstones: new Map([
    ['part-run0-00000-recent00.parquet', remove('part-run0-00000-recent00.parquet', 1)],
    ['part-run0-00000-expired0.parquet', remove('part-run0-00000-expired0.parquet', 8)],
  ]),
  lastCommitTimestamp: NOW - DAY_MS,
  unknownActions: new Set(),
};

interface SchemaLeaf {
  type: unknown;
  repetition: unknown;
  converted: unknown;
  logical: unknown;
}

/** Every node of a Parquet file's schema by its dotted path (`add.tags.key_value.key`), as DuckDB reads the footer. */
async function parquetSchema(connection: Parameters<typeof query>[0], file: string): Promise<Map<string, SchemaLeaf>> {
  const rows = await query(connection, `select name, type, repetition_type, num_children, converted_type, logical_type from parquet_schema('${file}')`);
  const nodes = new Map<string, SchemaLeaf>();
  // The footer lists the schema depth-first with each group's child count: a stack of open groups
  // rebuilds the paths.
  const open: Array<{ path: string; left: number }> = [];
  for (const [index, row] of rows.entries()) {
    while (open.length > 0 && open[open.length - 1].left === 0) open.pop();
    const parent = open[open.length - 1];
    if (parent !== undefined) parent.left -= 1;
    const path = index === 0 ? '' : parent.path === '' ? String(row.name) : `${parent.path}.${String(row.name)}`;
    if (index > 0) nodes.set(path, { type: row.type, repetition: row.repetition_type, converted: row.converted_type, logical: row.logical_type });
    const children = Number(row.num_children ?? 0);
    if (children > 0) open.push({ path, left: children });
  }
  return nodes;
}

describe('a checkpoint of the table state', () => {
  let duck: Awaited<ReturnType<typeof duckdb>>;
  let file: string;

  beforeAll(async () => {
    duck = await duckdb();
    file = join(tempDir('checkpoint-'), '00000000000000000020.checkpoint.parquet');
    await writeFile(file, await checkpointBytes(state, NOW));
  });
  afterAll(() => duck.close());

  it('has the Parquet types, nesting and names of a Spark-written checkpoint for every column it writes', async () => {
    const ours = await parquetSchema(duck.connection, file);
    const spark = await parquetSchema(duck.connection, SPARK_CHECKPOINT);
    const differences = [...ours].filter(([path, node]) => JSON.stringify(spark.get(path)) !== JSON.stringify(node)).map(([path, node]) => ({ path, ours: node, spark: spark.get(path) }));
    expect(differences).toEqual([]);
    // Nothing a reader needs is missing: the columns of every action this code writes.
    for (const path of [
      'txn.appId', 'txn.version', 'txn.lastUpdated',
      'add.path', 'add.partitionValues.key_value.key', 'add.partitionValues.key_value.value', 'add.size', 'add.modificationTime', 'add.dataChange', 'add.stats', 'add.tags.key_value.key', 'add.tags.key_value.value',
      'remove.path', 'remove.deletionTimestamp', 'remove.dataChange', 'remove.extendedFileMetadata', 'remove.partitionValues.key_value.value', 'remove.size',
      'metaData.id', 'metaData.format.provider', 'metaData.format.options.key_value.key', 'metaData.schemaString', 'metaData.partitionColumns.list.element', 'metaData.configuration.key_value.value', 'metaData.createdTime',
      'protocol.minReaderVersion', 'protocol.minWriterVersion',
    ]) expect(ours.has(path), path).toBe(true);
  });

  it('reads back in DuckDB with the column types DuckDB gives the Spark checkpoint', async () => {
    const described = async (path: string): Promise<Map<string, unknown>> =>
      new Map((await query(duck.connection, `describe select * from read_parquet('${path}')`)).map((row) => [String(row.column_name), row.column_type]));
    const ours = await described(file);
    const spark = await described(SPARK_CHECKPOINT);
    expect([...ours.keys()]).toEqual(['txn', 'add', 'remove', 'metaData', 'protocol']);
    // Spark's structs carry columns for features this table never uses (deletion vectors, row
    // tracking); each of ours is Spark's with those dropped.
    expect(ours.get('txn')).toBe(spark.get('txn'));
    expect(ours.get('add')).toBe('STRUCT(path VARCHAR, partitionValues MAP(VARCHAR, VARCHAR), size BIGINT, modificationTime BIGINT, dataChange BOOLEAN, tags MAP(VARCHAR, VARCHAR), stats VARCHAR)');
    expect(String(spark.get('add'))).toContain('STRUCT(path VARCHAR, partitionValues MAP(VARCHAR, VARCHAR), size BIGINT, modificationTime BIGINT, dataChange BOOLEAN, tags MAP(VARCHAR, VARCHAR), ');
    expect(String(spark.get('add'))).toMatch(/, stats VARCHAR\)$/);
    expect(String(spark.get('remove'))).toContain(String(ours.get('remove')).replace(/\)$/, ''));
    expect(ours.get('metaData')).toBe(spark.get('metaData'));
    expect(String(spark.get('protocol'))).toContain(String(ours.get('protocol')).replace(/\)$/, ''));
  });

  it('holds one row per action with the state’s values', async () => {
    const rows = await query(duck.connection, `
      select add.path, add.size, add.modificationTime, add.dataChange, add.stats, to_json(add.tags) as tags, cardinality(add.partitionValues) as partitions
      from read_parquet('${file}') where add is not null order by add.path`);
    expect(rows).toEqual(adds.map((file) => ({
      path: file.path,
      size: String(file.size),
      modificationTime: String(file.modificationTime),
      dataChange: false,
      stats: file.stats,
      tags: JSON.stringify(file.tags),
      partitions: '0',
    })));

    expect(await query(duck.connection, `select txn.appId, txn.version, txn.lastUpdated from read_parquet('${file}') where txn is not null`))
      .toEqual([{ appId: txn.appId, version: '4242', lastUpdated: String(txn.lastUpdated) }]);

    // The tombstone removed a day ago stays for vacuum; the one past the 7-day retention is dropped.
    expect(await query(duck.connection, `select remove.path, remove.deletionTimestamp, remove.dataChange, remove.extendedFileMetadata, remove.size from read_parquet('${file}') where remove is not null`))
      .toEqual([{ path: 'part-run0-00000-recent00.parquet', deletionTimestamp: String(NOW - DAY_MS), dataChange: false, extendedFileMetadata: true, size: '999' }]);

    expect(await query(duck.connection, `
      select metaData.id, metaData.format.provider, metaData.schemaString, metaData.partitionColumns, to_json(metaData.configuration) as configuration, metaData.createdTime
      from read_parquet('${file}') where metaData is not null`))
      .toEqual([{ id: state.metadata.id, provider: 'parquet', schemaString: state.metadata.schemaString, partitionColumns: [], configuration: '{"delta.checkpointInterval":"10"}', createdTime: String(state.metadata.createdTime) }]);

    expect(await query(duck.connection, `select protocol.minReaderVersion, protocol.minWriterVersion from read_parquet('${file}') where protocol is not null`))
      .toEqual([{ minReaderVersion: 1, minWriterVersion: 2 }]);

    expect(await query(duck.connection, `select count(*) as actions from read_parquet('${file}')`)).toEqual([{ actions: '6' }]);
  });
});
