import { LOG_DIR, parseLogFileName, type TableState } from './actions.js';
import type { DeltaStore, StoredEntry } from './store.js';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** Delta's `delta.logRetentionDuration` default: how long JSON commits a checkpoint covers are kept. */
export const LOG_RETAIN_MS = 30 * DAY_MS;

/**
 * A `.tmp-` file in `_delta_log/` is a commit or checkpoint that was being written: either made whole
 * under its final name within seconds or abandoned by a killed run. An hour leaves no doubt which.
 */
export const LOG_TEMP_RETAIN_MS = HOUR_MS;

const TEMP_PREFIX = '.tmp-';

export interface VacuumPlanInput {
  /** The table at its newest version: its active files and its tombstones. */
  state: TableState;
  /** Every object under the table root (DeltaStore.list). */
  entries: readonly StoredEntry[];
  nowMs: number;
  /** export.delta.retainDays: how long a file no longer in the table is kept for time travel. */
  retainMs: number;
  /** How long JSON commits (and older checkpoints) covered by a checkpoint are kept. */
  logRetainMs: number;
  /** Versions that have a classic checkpoint in `_delta_log/`. */
  checkpointVersions: readonly number[];
  /**
   * Whether the export run that named a file (`part-RUNID-…`) still runs: its files may be on their way
   * into a commit, whatever their age. Default: none does.
   */
  isRunLive?: (runId: string) => boolean;
}

const RUN_ID_IN_NAME = /\d{8}T\d{6}Z-[0-9a-f]{4}/;

export interface VacuumPlan {
  /** Relative to the table root. */
  dataFiles: string[];
  /** Relative to the table root, oldest version first. */
  logFiles: string[];
}

const baseName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** A path that stays inside the table root: relative, no `..`, no empty segment. */
const insideRoot = (path: string): boolean => path !== '' && !path.startsWith('/') && path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');

/** `add.path` is URI-encoded (PROTOCOL.md, "Add File and Remove File"); listings hold the decoded name. */
function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * Files other engines or tools keep beside the data: a name starting with `_` or `.` anywhere on the
 * path (`_delta_log/`, `.hidden_dir/keep.parquet`, `sub/_hidden/x.parquet`), as Spark's VACUUM spares
 * them at every level. The one exception is this code's own `.tmp-` leftovers of a killed upload,
 * which it only ever writes at the table root.
 */
function isHidden(path: string): boolean {
  const segments = path.split('/');
  if (segments.length === 1 && path.startsWith(TEMP_PREFIX)) return false;
  return segments.some((segment) => segment.startsWith('_') || segment.startsWith('.'));
}

/**
 * Which data files may go: those the table no longer (or never) holds, once older than `retainMs`.
 * Hidden paths (isHidden) are left alone.
 */
function planDataFiles({ state, entries, nowMs, retainMs, isRunLive }: VacuumPlanInput): string[] {
  const active = new Set<string>();
  for (const path of state.files.keys()) active.add(path).add(decodedPath(path));
  const removedAt = new Map<string, number>();
  for (const tombstone of state.tombstones.values()) {
    if (tombstone.deletionTimestamp !== null && tombstone.deletionTimestamp !== undefined) removedAt.set(decodedPath(tombstone.path), tombstone.deletionTimestamp);
  }
  const cutoff = nowMs - retainMs;
  return entries
    .filter(({ path, modifiedMs }) => {
      if (isHidden(path) || active.has(path)) return false;
      const runId = RUN_ID_IN_NAME.exec(baseName(path))?.[0];
      if (runId !== undefined && !removedAt.has(path) && isRunLive?.(runId) === true) return false;
      // Versions made before the removal still read the file: it goes only once the removal is older
      // than the retention. The later of the two times decides, so a skewed clock keeps a file longer,
      // never shorter. A file no version ever named is judged by its own age: a run still writing it
      // has not committed yet.
      const age = Math.max(removedAt.get(path) ?? Number.NEGATIVE_INFINITY, modifiedMs);
      return age < cutoff;
    })
    .map(({ path }) => path)
    .sort();
}

/**
 * Which log files may go, by PROTOCOL.md's "Metadata Cleanup": the newest commit no newer than
 * `logRetainMs` ago is the cut-off commit; the newest checkpoint at or before it is where the log is
 * cut. Every commit and checkpoint of an older version goes, whatever its own file's time (a file
 * touched later would otherwise stay behind, a version no checkpoint covers). The cut-off checkpoint,
 * its commit, everything after it and `_last_checkpoint` always stay, so every version inside the
 * window can still be read. A commit's time is its file's modification time.
 */
function planLogFiles({ entries, nowMs, logRetainMs, checkpointVersions }: VacuumPlanInput): string[] {
  const cutoff = nowMs - logRetainMs;
  const logFiles: Array<{ path: string; name: string; modifiedMs: number }> = [];
  for (const entry of entries) {
    if (!entry.path.startsWith(`${LOG_DIR}/`)) continue;
    const name = entry.path.slice(LOG_DIR.length + 1);
    if (!name.includes('/')) logFiles.push({ path: entry.path, name, modifiedMs: entry.modifiedMs });
  }
  let cutoffCommit = Number.NEGATIVE_INFINITY;
  for (const { name, modifiedMs } of logFiles) {
    const parsed = parseLogFileName(name);
    if (parsed?.kind === 'commit' && modifiedMs <= cutoff) cutoffCommit = Math.max(cutoffCommit, parsed.version);
  }
  const cutAt = Math.max(Number.NEGATIVE_INFINITY, ...checkpointVersions.filter((version) => version <= cutoffCommit));

  const doomed: Array<{ path: string; version: number }> = [];
  for (const { path, name, modifiedMs } of logFiles) {
    if (name.startsWith(TEMP_PREFIX)) {
      if (modifiedMs < nowMs - LOG_TEMP_RETAIN_MS) doomed.push({ path, version: -1 });
      continue;
    }
    const parsed = parseLogFileName(name);
    if (parsed === null || parsed.kind === 'other') continue;
    if (parsed.version < cutAt) doomed.push({ path, version: parsed.version });
  }
  // Oldest first: a vacuum stopped midway leaves the log a contiguous run of versions.
  return doomed.sort((a, b) => a.version - b.version || a.path.localeCompare(b.path)).map(({ path }) => path);
}

/** What a vacuum of the table would delete, given its listing: a pure function of its input. */
export function planVacuum(input: VacuumPlanInput): VacuumPlan {
  const entries = input.entries.filter(({ path }) => insideRoot(path));
  return { dataFiles: planDataFiles({ ...input, entries }), logFiles: planLogFiles({ ...input, entries }) };
}

export interface VacuumOptions {
  retainMs: number;
  logRetainMs?: number;
  isRunLive?: (runId: string) => boolean;
  /** The table's listing when the caller already has it (store.list()). */
  entries?: readonly StoredEntry[];
}

/** The versions that have a classic checkpoint, from a listing of the table. */
export function checkpointVersionsIn(entries: readonly StoredEntry[]): number[] {
  const versions: number[] = [];
  for (const { path } of entries) {
    if (!path.startsWith(`${LOG_DIR}/`)) continue;
    const parsed = parseLogFileName(path.slice(LOG_DIR.length + 1));
    if (parsed?.kind === 'checkpoint') versions.push(parsed.version);
  }
  return versions;
}

/**
 * Deletes what planVacuum allows under the table root: data files first, then the log's oldest
 * versions. `state` must be the table's newest version, read after the listing's data files were
 * committed or abandoned; a file written since is younger than any retention and stays.
 */
export async function vacuum(store: DeltaStore, state: TableState, nowMs: number, options: VacuumOptions): Promise<VacuumPlan> {
  const entries = options.entries ?? (await store.list());
  const checkpointVersions = checkpointVersionsIn(entries);
  const plan = planVacuum({ state, entries, nowMs, retainMs: options.retainMs, logRetainMs: options.logRetainMs ?? LOG_RETAIN_MS, checkpointVersions, isRunLive: options.isRunLive });
  if (plan.dataFiles.length > 0) await store.delete(plan.dataFiles);
  if (plan.logFiles.length > 0) await store.delete(plan.logFiles);
  return plan;
}
