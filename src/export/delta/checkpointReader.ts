import { tableFromIPC } from 'apache-arrow';
import { compileParquetWasm, loadParquetWasm } from '../wasm.js';
import type { Action, AddFile, Metadata, Protocol, RemoveFile, Txn } from './actions.js';

/** Columns of a classic checkpoint that carry no table state (PROTOCOL.md: checkpoints keep no commitInfo). */
const IGNORED = new Set(['commitInfo']);

/**
 * The actions of a classic Parquet checkpoint (PROTOCOL.md, "Checkpoint Schema"): one row per action,
 * one struct column per action kind, null where the row is another kind. Spark's checkpoints and this
 * project's own have the same classic columns. A non-null value in any other column (domainMetadata,
 * checkpointMetadata, sidecar…) is kept as an unknown action, so that the table is judged foreign.
 * `where` names the file in the one-sentence error for bytes that are not Parquet.
 */
export async function readCheckpoint(bytes: Uint8Array, where: string): Promise<Action[]> {
  const parquet = loadParquetWasm(await compileParquetWasm());
  let table;
  try {
    table = tableFromIPC(parquet.readParquet(bytes).intoIPCStream());
  } catch (error) {
    throw new Error(`${where} is not a readable Parquet checkpoint; expected a Delta checkpoint written by a Delta engine.`, { cause: error });
  }
  const columns = table.schema.fields.map((field) => field.name).filter((name) => !IGNORED.has(name));
  const vectors = columns.map((name) => ({ name, vector: table.getChild(name) }));
  const actions: Action[] = [];
  for (let row = 0; row < table.numRows; row += 1) {
    for (const { name, vector } of vectors) {
      const value = vector?.get(row);
      if (value === null || value === undefined) continue;
      actions.push(toAction(name, plain(value) as Record<string, unknown>));
    }
  }
  return actions;
}

function toAction(kind: string, value: Record<string, unknown>): Action {
  switch (kind) {
    case 'add':
      return { add: toAdd(value) };
    case 'remove':
      return { remove: toRemove(value) };
    case 'metaData':
      return { metaData: toMetadata(value) };
    case 'protocol':
      return { protocol: toProtocol(value) };
    case 'txn':
      return { txn: toTxn(value) };
    default:
      return { unknown: { kind, value } };
  }
}

/**
 * Arrow's values as plain JSON-like values: structs and maps become objects, lists arrays, and 64-bit
 * integers numbers (sizes, times and versions stay far below 2^53).
 */
function plain(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object') {
    const json = (value as { toJSON?: () => unknown }).toJSON;
    if (typeof json === 'function') {
      const converted = json.call(value);
      if (converted !== value) return plain(converted);
    }
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, plain(inner)]));
  }
  return value;
}

function toAdd(value: Record<string, unknown>): AddFile {
  const add: AddFile = {
    path: value.path as string,
    partitionValues: (value.partitionValues ?? {}) as Record<string, string | null>,
    size: value.size as number,
    modificationTime: value.modificationTime as number,
    dataChange: (value.dataChange ?? false) as boolean,
  };
  if (value.stats !== null && value.stats !== undefined) add.stats = value.stats as string;
  if (value.tags !== null && value.tags !== undefined) add.tags = value.tags as Record<string, string>;
  return add;
}

function toRemove(value: Record<string, unknown>): RemoveFile {
  const remove: RemoveFile = { path: value.path as string, dataChange: (value.dataChange ?? false) as boolean };
  for (const key of ['deletionTimestamp', 'extendedFileMetadata', 'partitionValues', 'size', 'tags'] as const) {
    if (value[key] !== null && value[key] !== undefined) Object.assign(remove, { [key]: value[key] });
  }
  return remove;
}

function toMetadata(value: Record<string, unknown>): Metadata {
  const format = (value.format ?? {}) as { provider?: string; options?: Record<string, string> | null };
  return {
    id: value.id as string,
    name: (value.name ?? null) as string | null,
    description: (value.description ?? null) as string | null,
    format: { provider: format.provider ?? 'parquet', options: format.options ?? {} },
    schemaString: value.schemaString as string,
    partitionColumns: (value.partitionColumns ?? []) as string[],
    configuration: (value.configuration ?? {}) as Record<string, string>,
    createdTime: (value.createdTime ?? null) as number | null,
  };
}

function toProtocol(value: Record<string, unknown>): Protocol {
  const protocol: Protocol = { minReaderVersion: value.minReaderVersion as number, minWriterVersion: value.minWriterVersion as number };
  // A checkpoint of a table without features may carry these columns, null (PROTOCOL.md, "Checkpoint Schema").
  if (Array.isArray(value.readerFeatures)) protocol.readerFeatures = value.readerFeatures as string[];
  if (Array.isArray(value.writerFeatures)) protocol.writerFeatures = value.writerFeatures as string[];
  return protocol;
}

function toTxn(value: Record<string, unknown>): Txn {
  return { appId: value.appId as string, version: value.version as number, lastUpdated: (value.lastUpdated ?? null) as number | null };
}
