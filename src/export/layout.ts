import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { SnapshotFormat } from '../config.js';
import type { ExportTable } from './schema.js';

/**
 * Where every export file lives, relative to the export root:
 *   TABLE/dt=YYYY-MM-DD/TABLE-RUNID.csv|.parquet   data, partitioned by the run's UTC date
 *   manifests/RUNID.json                            one manifest per run
 *   manifests/latest.json                           a copy of the newest complete run's manifest
 *   manifests/latest-partial.json                   … of the newest full run of only some tables (`--table`)
 *   manifests/latest-changes.json                   … of the newest run of changes only (`--since-last`)
 *   delta/TABLE/                                    a Delta Lake table per stream table (src/export/delta)
 * A file being written carries a `.tmp-` prefix in the same folder, so its rename into place is atomic.
 */
export const MANIFEST_DIR = 'manifests';
/** Names the newest complete run: every row of every stream table, a whole state a loader can replace its copy with. */
export const LATEST_MANIFEST = 'latest.json';
export const LATEST_PARTIAL_MANIFEST = 'latest-partial.json';
export const LATEST_CHANGES_MANIFEST = 'latest-changes.json';
/** Every pointer file: retention keeps the runs they name, so a pointer never names deleted files. */
export const POINTER_MANIFESTS = [LATEST_MANIFEST, LATEST_PARTIAL_MANIFEST, LATEST_CHANGES_MANIFEST] as const;
export type PointerManifest = (typeof POINTER_MANIFESTS)[number];

/**
 * The pointer a run's manifest is copied to: a run of changes, a complete run, or a full run of some
 * tables. None for a run that wrote no snapshot file (Delta tables only): a pointer names files to load.
 */
export function pointerOf(run: { kind: 'full' | 'since_last'; complete: boolean; files: readonly unknown[] }): PointerManifest | null {
  if (run.files.length === 0) return null;
  if (run.kind === 'since_last') return LATEST_CHANGES_MANIFEST;
  return run.complete ? LATEST_MANIFEST : LATEST_PARTIAL_MANIFEST;
}
export const TMP_PREFIX = '.tmp-';

/** Sortable, UTC, unique enough for runs started in the same second: 20261122T201500Z-ab12. */
export function newRunId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

export const RUN_ID_PATTERN = /^\d{8}T\d{6}Z-[0-9a-f]{4}$/;

export function partitionDate(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** Path relative to the export root, with forward slashes (as written in manifests). */
export function dataFilePath(table: ExportTable, format: SnapshotFormat, runId: string, date: string): string {
  return `${table}/dt=${date}/${table}-${runId}.${format}`;
}

/** `TABLE-RUNID.csv` → RUNID, or null for a name that is not an export file of that table. */
export function runIdOfDataFile(table: string, fileName: string): string | null {
  const match = /^(.+)-(\d{8}T\d{6}Z-[0-9a-f]{4})\.(csv|parquet)$/.exec(fileName);
  return match && match[1] === table ? match[2] : null;
}

/**
 * The temporary sibling of a final path, named after the run that writes it: the run's lock (runLock.ts),
 * not its pid, tells a later export whether the writer still lives (in a container every run is pid 1).
 */
export function tmpPathFor(root: string, relative: string, runId: string): string {
  const slash = relative.lastIndexOf('/');
  return join(root, relative.slice(0, slash + 1), `${TMP_PREFIX}${runId}-${relative.slice(slash + 1)}`);
}

/** The run that wrote a temporary file, or null if the name is not one of this version's temporary files. */
export function runIdOfTmpFile(fileName: string): string | null {
  const match = /^\.tmp-(\d{8}T\d{6}Z-[0-9a-f]{4})-/.exec(fileName);
  return match ? match[1] : null;
}

/** The pid in a temporary file name of earlier versions (`.tmp-PID-…`), or null if the name is not one. */
export function pidOfLegacyTmpFile(fileName: string): number | null {
  const match = /^\.tmp-(\d+)-/.exec(fileName);
  return match ? Number(match[1]) : null;
}

/** `TABLE/dt=YYYY-MM-DD/TABLE-RUNID.csv|.parquet` → its table and run, or null for any path outside the layout. */
export function parseDataFilePath(relative: string, tables: readonly string[]): { table: string; runId: string } | null {
  const match = /^([a-z_]+)\/dt=\d{4}-\d{2}-\d{2}\/([^/]+)$/.exec(relative);
  if (match === null || !tables.includes(match[1])) return null;
  const runId = runIdOfDataFile(match[1], match[2]);
  return runId === null ? null : { table: match[1], runId };
}

/** `manifests/RUNID.json` → RUNID, or null (the latest*.json pointers and anything else). */
export function runIdOfManifestPath(relative: string): string | null {
  const match = /^manifests\/([^/]+)\.json$/.exec(relative);
  return match !== null && RUN_ID_PATTERN.test(match[1]) ? match[1] : null;
}

/** When a run started, read from its id (20261122T201500Z-ab12 → 2026-11-22T20:15:00Z). */
export function runIdTime(runId: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z/.exec(runId);
  return m === null ? Number.NaN : Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
}
