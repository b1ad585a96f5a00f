import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { STREAM_NAMES, type SnapshotFormat } from '../config.js';
import type { DriftEntry } from '../drift/index.js';
import type { BigQueryField } from './csvLoaderTypes.js';
import { DIR_MODE, FILE_MODE } from './fileSink.js';
import type { LedgerBuild } from '../ledger/balancesAsOf.js';
import type { Logger } from '../log.js';
import type { InvalidValue } from './invalidValues.js';
import { MANIFEST_DIR, pointerOf, tmpPathFor } from './layout.js';
import { newerPublishedRun } from './pointerOrder.js';
import type { ExportColumnType, ExportTable, TableKind } from './schema.js';

export const MANIFEST_VERSION = 1;

export interface ManifestColumn {
  name: string;
  /** The mirror's logical type (src/streams, src/ledger/models). */
  type: ExportColumnType;
  /** Parquet files only: how the column is stored. */
  parquet?: { physical: string; logical: string | null };
}

export interface ManifestFile {
  table: ExportTable;
  format: SnapshotFormat;
  /** Relative to the export root, with forward slashes. */
  path: string;
  rows: number;
  bytes: number;
  sha256: string;
  /** full: every row of the table; since_last: rows whose _change_seq is above `sinceChangeSeq`. */
  kind: 'full' | 'since_last';
  sinceChangeSeq: number | null;
  sinceRunId: string | null;
  columns: ManifestColumn[];
  /** Parquet only: per column, values the mirror held that the column's type cannot represent (written as null). */
  invalidValues?: Record<string, number>;
  /** With invalidValues: per column, the first of them (in row order) and its row's id, to find it in the mirror. */
  firstInvalidValues?: Record<string, InvalidValue>;
  /** CSV only: column → DuckDB type, in file order: read_csv's `types`, so a loader guesses nothing (csvLoaderTypes.ts). */
  duckdbTypes?: Record<string, string>;
  /** CSV only: the file's BigQuery schema, as `bq load` takes it from a schema file. */
  bigquerySchema?: BigQueryField[];
}

export interface Manifest {
  manifestVersion: number;
  runId: string;
  /** since_last only when a previous successful export existed; otherwise a requested since_last ran full. */
  kind: 'full' | 'since_last';
  /**
   * True when the run holds every row of every stream table (a full run of all five): the whole state,
   * which manifests/latest.json names. False for a run of some tables (`--table`) or of changes only.
   */
  complete: boolean;
  requestedKind: 'full' | 'since_last';
  previousRunId: string | null;
  createdAt: string;
  /** The partition date of this run's files (UTC). */
  partitionDate: string;
  tool: string;
  program: string | null;
  snapshot: {
    /** The mirror's change counter when the read transaction began. */
    changeSeq: number;
    /** Stream → sync watermark, as sync_state held them at the snapshot. */
    watermarks: Record<string, string | null>;
  };
  /** How money is typed in Parquet; see decimal.ts. */
  moneyRule: string;
  /** Every table of the run: a stream, a model (derived from the streams, always exported whole) or the write queue, and its rows in the run. */
  tables: ManifestTable[];
  files: ManifestFile[];
  /**
   * Per exported stream table, what its records carried that the API spec does not list (fields, enum values),
   * as `schema_drift` held it at the snapshot: the part of `raw` a loader's schema may not expect.
   */
  schemaDrift: Record<string, DriftEntry[]>;
  /** Delta runs only: each stream table's Delta table after the run, per place it lives (the export folder, the bucket). */
  delta?: ManifestDeltaTable[];
  /**
   * Runs with a model table only: what the model tables were built with, as the snapshot held it (ledger_state):
   * the zone their days are calendar days of, the point value of their liability (null: none), and their last day.
   * Null when the ledger was never built (the model tables are empty).
   */
  ledger?: LedgerBuild | null;
}

export interface ManifestTable {
  table: ExportTable;
  kind: TableKind;
  /** Rows the run holds of the table: of its files, or of the snapshot for a run of Delta tables alone. */
  rows: number;
}

export interface ManifestDeltaTable {
  table: ExportTable;
  /** `local` (EXPORT_DIR/delta/TABLE) or `bucket` (PREFIX/delta/TABLE). */
  where: 'local' | 'bucket';
  /** Relative to the export root or the target's prefix: `delta/TABLE`. */
  path: string;
  /** The table's current version after the run. */
  version: number;
  /** Whether this run committed that version (false: nothing had changed). */
  committed: boolean;
  /** Active data files and their bytes at that version. */
  files: number;
  bytes: number;
  /** Rows in the files this run's commit added, and in those it removed (a rewritten file counts in both). */
  rowsAdded: number;
  rowsRemoved: number;
  /** Bytes of the files this run's commit added. */
  bytesAdded: number;
  /** Per column, values of the rows this run's commit added that the column's type cannot represent (written as null). */
  invalidValues?: Record<string, number>;
  /** With invalidValues: per column, the first of them and its row's id. */
  firstInvalidValues?: Record<string, InvalidValue>;
}

/** Whether a run of this kind over these tables is complete: full, and every stream table in it. */
export function isCompleteRun(kind: Manifest['kind'], tables: readonly string[]): boolean {
  return kind === 'full' && STREAM_NAMES.every((stream) => tables.includes(stream));
}

/**
 * Writes manifests/RUNID.json, then a copy as the pointer of its kind (latest.json for a complete
 * run, see pointerOf), each by atomic rename, unless the pointer names a run that began later (see
 * newerPublishedRun), which `logger` is told; returns the manifest's relative path.
 */
export async function writeManifest(root: string, manifest: Manifest, logger: Logger): Promise<string> {
  const relative = `${MANIFEST_DIR}/${manifest.runId}.json`;
  const text = manifestText(manifest);
  await mkdir(join(root, MANIFEST_DIR), { recursive: true, mode: DIR_MODE });
  await writeAtomically(root, relative, text, manifest.runId);
  const pointer = pointerOf(manifest);
  if (pointer === null) return relative;
  const newer = newerPublishedRun(await readIfThere(join(root, MANIFEST_DIR, pointer)), manifest, Date.now());
  if (newer === null) await writeAtomically(root, `${MANIFEST_DIR}/${pointer}`, text, manifest.runId);
  else logger.warn({ runId: manifest.runId, newer }, `${pointer} already names run ${newer}, which began after this one: it stays; this run is at ${relative}`);
  return relative;
}

/** The bytes of a manifest, the same on disk and in a bucket. */
export function manifestText(manifest: Manifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

async function readIfThere(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

async function writeAtomically(root: string, relative: string, text: string, runId: string): Promise<void> {
  const tmp = tmpPathFor(root, relative, runId);
  // Exclusively: a name already taken (a planted symlink) fails the write rather than redirect it.
  await writeFile(tmp, text, { mode: FILE_MODE, flush: true, flag: 'wx' });
  await rename(tmp, join(root, relative));
}

export async function readManifest(path: string): Promise<Manifest> {
  return JSON.parse(await readFile(path, 'utf8')) as Manifest;
}
