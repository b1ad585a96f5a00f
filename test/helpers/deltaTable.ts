import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { TableState } from '../../src/export/delta/actions.js';
import { DiskDeltaStore } from '../../src/export/delta/diskStore.js';
import { readTableState } from '../../src/export/delta/logReader.js';
import type { DeltaStore } from '../../src/export/delta/store.js';
import { tempDir } from './tempDir.js';

export interface DeltaTableContents {
  state: TableState;
  /**
   * The rows of the active files as DuckDB reads them (JSON-safe: 64-bit numbers and timestamps as
   * strings), ordered by `id`. Partition columns come from each file's partitionValues, as strings.
   */
  rows: Array<Record<string, unknown>>;
}

/**
 * A Delta table as an engine would see it: the state from this project's log reader (never a listing
 * of Parquet files), and the rows of exactly the state's active files, read by DuckDB. `source` is the
 * table's folder or any DeltaStore (a bucket's files are copied to a temp folder first).
 */
export async function readDeltaTable(source: string | DeltaStore, opts: { version?: number } = {}): Promise<DeltaTableContents> {
  const store = typeof source === 'string' ? new DiskDeltaStore(source) : source;
  const state = await readTableState(store, opts);
  if (state === null) throw new Error(`${store.location} holds no Delta table: its _delta_log has no commit.`);
  const root = store instanceof DiskDeltaStore ? store.root : await copyActiveFiles(store, state);
  const files = [...state.files.values()];
  if (files.length === 0) return { state, rows: [] };
  const fileOf = new Map(files.map((file) => [join(root, decodeURIComponent(file.path)), file]));
  // Engines trust add.size: the kernel reads a Parquet footer at size − 8 and fetches ranges by it.
  for (const [path, file] of fileOf) {
    const bytes = statSync(path).size;
    if (file.size !== bytes) throw new Error(`${store.location}/${file.path}: the log's add.size says ${file.size} bytes, the file holds ${bytes}.`);
  }
  const list = [...fileOf.keys()].map((path) => `'${path.replaceAll("'", "''")}'`).join(', ');
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    // union_by_name: files written before a column was added (a schema commit) lack it, and read as null.
    const reader = await connection.runAndReadAll(`SELECT * FROM read_parquet([${list}], filename = true, union_by_name = true, hive_partitioning = false)`);
    const rows = (reader.getRowObjectsJson() as Array<Record<string, unknown>>).map(({ filename, ...row }) => {
      const file = fileOf.get(filename as string);
      return { ...row, ...(file?.partitionValues ?? {}) };
    });
    return { state, rows: rows.sort(byId) };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

function byId(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const [left, right] = [String(a.id), String(b.id)];
  if (/^-?\d+$/.test(left) && /^-?\d+$/.test(right)) return BigInt(left) < BigInt(right) ? -1 : BigInt(left) > BigInt(right) ? 1 : 0;
  return left < right ? -1 : left > right ? 1 : 0;
}

async function copyActiveFiles(store: DeltaStore, state: TableState): Promise<string> {
  const root = tempDir('delta-copy-');
  for (const file of state.files.values()) {
    const bytes = await store.read(decodeURIComponent(file.path));
    if (bytes === null) throw new Error(`${store.location}/${file.path} is an active file of version ${state.version} but is missing.`);
    const target = join(root, decodeURIComponent(file.path));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, bytes);
  }
  return root;
}
