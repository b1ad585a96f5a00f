import { Bool, Field, Int32, Int64, List, Map_, RecordBatch, Schema, Struct, Table, Utf8, tableToIPC, vectorFromArray, type DataType } from 'apache-arrow';
import { parquetCreatedBy } from '../../version.js';
import { compileParquetWasm, loadParquetWasm } from '../wasm.js';
import { LAST_CHECKPOINT, checkpointPath, type TableState } from './actions.js';
import { readCheckpoint } from './checkpointReader.js';
import type { DeltaStore } from './store.js';

/** A checkpoint every 10 versions, as Spark writes them (`delta.checkpointInterval`'s default). */
export const CHECKPOINT_INTERVAL = 10;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * How long a checkpoint keeps a `remove` tombstone: Delta's `delta.deletedFileRetentionDuration`
 * default, which is also export.delta.retainDays' default. A tombstone dropped from the checkpoint
 * only tells vacuum less: the file's own age then decides, and it is older than its removal.
 */
export const DEFAULT_TOMBSTONE_RETAIN_MS = 7 * DAY_MS;

/** True when the commit of `version` should be followed by a checkpoint of that version. */
export function shouldCheckpoint(version: number): boolean {
  return version > 0 && version % CHECKPOINT_INTERVAL === 0;
}

// The checkpoint's columns, with the names, Parquet types and nesting a Spark-written checkpoint has
// (PROTOCOL.md, "Checkpoint Schema"): every field optional, longs INT64, ints INT32, maps as a Parquet
// MAP whose repeated group is `key_value` with a required key, lists as `list`/`element`. Columns for
// features this table never uses (deletion vectors, row tracking, domain metadata, reader/writer
// features) are left out: "any missing column should be treated as null".
const field = (name: string, type: DataType): Field => new Field(name, type, true);
function stringMap(): Map_<Utf8, Utf8> {
  const type = new Map_<Utf8, Utf8>(new Field('entries', new Struct([new Field('key', new Utf8(), false), field('value', new Utf8())]), false));
  // Arrow JS names a map's entries `entries`, whatever it is given (ARROW-8716), and parquet-wasm names
  // the Parquet group after it. Spark and parquet-mr name it `key_value`. Readers accept either, but
  // a checkpoint that looks like Spark's leaves no reader to doubt. The batch's schema, not its data,
  // carries the name into the file.
  Object.assign(type.children[0], { name: 'key_value' });
  return type;
}
const stringList = (): List<Utf8> => new List(field('element', new Utf8()));

const CHECKPOINT_FIELDS = [
  field('txn', new Struct([field('appId', new Utf8()), field('version', new Int64()), field('lastUpdated', new Int64())])),
  field('add', new Struct([
    field('path', new Utf8()),
    field('partitionValues', stringMap()),
    field('size', new Int64()),
    field('modificationTime', new Int64()),
    field('dataChange', new Bool()),
    field('tags', stringMap()),
    field('stats', new Utf8()),
  ])),
  field('remove', new Struct([
    field('path', new Utf8()),
    field('deletionTimestamp', new Int64()),
    field('dataChange', new Bool()),
    field('extendedFileMetadata', new Bool()),
    field('partitionValues', stringMap()),
    field('size', new Int64()),
  ])),
  field('metaData', new Struct([
    field('id', new Utf8()),
    field('name', new Utf8()),
    field('description', new Utf8()),
    field('format', new Struct([field('provider', new Utf8()), field('options', stringMap())])),
    field('schemaString', new Utf8()),
    field('partitionColumns', stringList()),
    field('configuration', stringMap()),
    field('createdTime', new Int64()),
  ])),
  field('protocol', new Struct([field('minReaderVersion', new Int32()), field('minWriterVersion', new Int32())])),
];

type ActionColumn = 'txn' | 'add' | 'remove' | 'metaData' | 'protocol';
type Row = Record<ActionColumn, Record<string, unknown> | null>;

/** A row holding one action. Arrow's builders take only null, not a missing key, as a null struct. */
const row = (column: ActionColumn, action: Record<string, unknown>): Row => ({ txn: null, add: null, remove: null, metaData: null, protocol: null, [column]: action });

/** Arrow's Int64 columns take bigints; a missing value stays null. */
const long = (value: number | null | undefined): bigint | null => (value === null || value === undefined ? null : BigInt(value));

/** Maps with null values are kept as they are: `partitionValues` uses null for a null partition value. */
const stringMapValue = (value: Record<string, string | null> | null | undefined): Map<string, string | null> | null =>
  value === null || value === undefined ? null : new Map(Object.entries(value));

/**
 * One row per action of the state at its version (PROTOCOL.md, "Checkpoints"): protocol, metaData,
 * each application's newest txn, every active file, and the tombstones removed less than
 * `tombstoneRetainMs` before `nowMs`, which vacuum still reads. Adds lose `dataChange` (a checkpoint
 * changes no data) but keep `stats` and `tags`: the incremental planner reads the rowid ranges from tags.
 */
function checkpointRows(state: TableState, nowMs: number, tombstoneRetainMs: number): Row[] {
  const { protocol, metadata } = state;
  const rows: Row[] = [
    row('protocol', { minReaderVersion: protocol.minReaderVersion, minWriterVersion: protocol.minWriterVersion }),
    row('metaData', {
      id: metadata.id,
      name: metadata.name ?? null,
      description: metadata.description ?? null,
      format: { provider: metadata.format.provider, options: stringMapValue(metadata.format.options) },
      schemaString: metadata.schemaString,
      partitionColumns: metadata.partitionColumns,
      configuration: stringMapValue(metadata.configuration),
      createdTime: long(metadata.createdTime),
    }),
  ];
  for (const txn of state.txns.values()) {
    rows.push(row('txn', { appId: txn.appId, version: long(txn.version), lastUpdated: long(txn.lastUpdated) }));
  }
  for (const add of state.files.values()) {
    rows.push(row('add', {
      path: add.path,
      partitionValues: stringMapValue(add.partitionValues),
      size: long(add.size),
      modificationTime: long(add.modificationTime),
      dataChange: false,
      tags: stringMapValue(add.tags),
      stats: add.stats ?? null,
    }));
  }
  for (const remove of state.tombstones.values()) {
    // A tombstone without a deletion time cannot be placed in the window; Spark counts it as expired.
    if (remove.deletionTimestamp === null || remove.deletionTimestamp === undefined) continue;
    if (remove.deletionTimestamp <= nowMs - tombstoneRetainMs) continue;
    rows.push(row('remove', {
      path: remove.path,
      deletionTimestamp: long(remove.deletionTimestamp),
      dataChange: false,
      extendedFileMetadata: remove.extendedFileMetadata ?? null,
      partitionValues: stringMapValue(remove.partitionValues),
      size: long(remove.size),
    }));
  }
  return rows;
}

/** The checkpoint's Parquet bytes and the number of actions (rows) it holds. */
async function encodeCheckpoint(state: TableState, nowMs: number, tombstoneRetainMs: number): Promise<{ bytes: Uint8Array; actions: number }> {
  const rows = checkpointRows(state, nowMs, tombstoneRetainMs);
  const batch = new RecordBatch(new Schema(CHECKPOINT_FIELDS), vectorFromArray(rows, new Struct(CHECKPOINT_FIELDS)).data[0]);
  const wasm = loadParquetWasm(await compileParquetWasm());
  const table = wasm.Table.fromIPCStream(tableToIPC(new Table(batch), 'stream'));
  // Snappy, as Spark writes checkpoints: every engine that reads Delta reads it.
  const properties = new wasm.WriterPropertiesBuilder().setCompression(wasm.Compression.SNAPPY).setCreatedBy(parquetCreatedBy()).build();
  return { bytes: wasm.writeParquet(table, properties), actions: rows.length };
}

/**
 * The classic single-file Parquet checkpoint of `state` (`%020d.checkpoint.parquet`). Encoded in this
 * thread: a checkpoint holds one row per file, not the table's rows.
 */
export async function checkpointBytes(state: TableState, nowMs: number, tombstoneRetainMs = DEFAULT_TOMBSTONE_RETAIN_MS): Promise<Uint8Array> {
  return (await encodeCheckpoint(state, nowMs, tombstoneRetainMs)).bytes;
}

/** `_delta_log/_last_checkpoint`: where a reader starts (PROTOCOL.md, "Last Checkpoint File Schema"). */
export function lastCheckpointJson(version: number, size: number, sizeInBytes: number): string {
  return JSON.stringify({ version, size, sizeInBytes });
}

export interface WrittenCheckpoint {
  /** Relative to the table root. */
  path: string;
  /** False when a checkpoint of that version was already there (another writer's): it was left alone. */
  created: boolean;
  /** The actions the checkpoint there holds, as `_last_checkpoint` now says; null when it cannot be read (the pointer was left alone). */
  actions: number | null;
  bytes: number;
}

/**
 * Writes the checkpoint of `state` only if none exists for its version, then points
 * `_last_checkpoint` at it. A crash between the two leaves an older `_last_checkpoint`, which is
 * still true: readers then replay a few more JSON commits. The caller writes a checkpoint only for a
 * version that has none; one that appeared meanwhile (another writer's) is described as it is, its
 * actions counted from its own rows, since `size` must be that file's count; one that cannot be read
 * leaves the pointer alone.
 */
export async function writeCheckpoint(store: DeltaStore, state: TableState, nowMs: number, tombstoneRetainMs = DEFAULT_TOMBSTONE_RETAIN_MS): Promise<WrittenCheckpoint> {
  const path = checkpointPath(state.version);
  const { bytes, actions } = await encodeCheckpoint(state, nowMs, tombstoneRetainMs);
  if (await store.putIfAbsent(path, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))) {
    await store.put(LAST_CHECKPOINT, Buffer.from(lastCheckpointJson(state.version, actions, bytes.byteLength)));
    return { path, created: true, actions, bytes: bytes.byteLength };
  }
  const there = await store.read(path);
  const theirs = there === null ? null : await readCheckpoint(there, `${store.location}/${path}`).catch(() => null);
  if (there === null || theirs === null) return { path, created: false, actions: null, bytes: there?.byteLength ?? 0 };
  await store.put(LAST_CHECKPOINT, Buffer.from(lastCheckpointJson(state.version, theirs.length, there.byteLength)));
  return { path, created: false, actions: theirs.length, bytes: there.byteLength };
}
