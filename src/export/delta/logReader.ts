import { LOG_DIR, commitPath, parseCommit, parseLogFileName, type Action, type Commit, type TableState } from './actions.js';
import { readCheckpoint } from './checkpointReader.js';
import { replay, stateFromCheckpointActions } from './replay.js';
import type { DeltaStore, StoredEntry } from './store.js';

/** Commit files read at once: enough to hide a bucket's latency, few enough for any store. */
const PARALLEL_READS = 16;

/** What the log's folder holds, by version. */
export interface LogListing {
  /** Versions with a `%020d.json` commit, ascending. */
  commits: number[];
  /** Versions with a complete checkpoint (classic, or every part of a multi-part one), ascending. */
  checkpoints: number[];
  /** The checkpoint files of each version in `checkpoints`, in part order. */
  checkpointFiles: Map<number, string[]>;
  /** Every entry under `_delta_log/`, by path. */
  entries: Map<string, StoredEntry>;
}

/** Lists the log: which versions have a commit, which a checkpoint that can be read whole. */
export async function listVersions(store: DeltaStore): Promise<LogListing> {
  const entries = new Map<string, StoredEntry>();
  const commits: number[] = [];
  const classic = new Map<number, string>();
  const parts = new Map<number, { total: number; files: Map<number, string> }>();
  for (const entry of await store.listLog()) {
    entries.set(entry.path, entry);
    if (entry.path.slice(0, LOG_DIR.length + 1) !== `${LOG_DIR}/`) continue;
    const name = entry.path.slice(LOG_DIR.length + 1);
    const parsed = parseLogFileName(name);
    if (parsed === null) continue;
    if (parsed.kind === 'commit') commits.push(parsed.version);
    else if (parsed.kind === 'checkpoint') classic.set(parsed.version, entry.path);
    else if (parsed.kind === 'multipart-checkpoint') {
      const [, part, total] = /\.checkpoint\.(\d{10})\.(\d{10})\.parquet$/.exec(name) ?? [];
      const found = parts.get(parsed.version) ?? { total: Number(total), files: new Map<number, string>() };
      found.files.set(Number(part), entry.path);
      parts.set(parsed.version, found);
    }
  }
  const checkpointFiles = new Map<number, string[]>();
  for (const [version, path] of classic) checkpointFiles.set(version, [path]);
  for (const [version, { total, files }] of parts) {
    // A multi-part checkpoint with a part missing (being written, or half deleted) is no checkpoint.
    if (!checkpointFiles.has(version) && files.size === total) checkpointFiles.set(version, [...files.keys()].sort((a, b) => a - b).map((part) => files.get(part) as string));
  }
  return {
    commits: commits.sort((a, b) => a - b),
    checkpoints: [...checkpointFiles.keys()].sort((a, b) => a - b),
    checkpointFiles,
    entries,
  };
}

/**
 * The table at its newest version, or at `opts.version` (time travel), or null when `_delta_log` holds
 * no commit and no checkpoint. Starts from the newest checkpoint at or before the version and replays
 * the JSON commits after it. The store is listed in full anyway, so `_delta_log/_last_checkpoint` (a
 * hint for stores that list from a key) is not needed, and a stale or missing one cannot mislead. A
 * checkpoint that cannot be read is passed over for an older one, or for the JSON commits from 0.
 */
export async function readTableState(store: DeltaStore, opts: { version?: number } = {}): Promise<TableState | null> {
  const listing = await listVersions(store);
  const { commits, checkpoints } = listing;
  if (commits.length === 0 && checkpoints.length === 0) return null;
  const newest = Math.max(commits.at(-1) ?? -1, checkpoints.at(-1) ?? -1);
  const wanted = opts.version ?? newest;
  if (!Number.isInteger(wanted) || wanted < 0 || wanted > newest) {
    throw new Error(`Version ${opts.version} of the Delta table at ${store.location} does not exist; expected a version from 0 to ${newest}.`);
  }
  const commitSet = new Set(commits);
  const starts = [...checkpoints.filter((version) => version <= wanted).reverse(), -1];
  let firstError: unknown = null;
  for (const start of starts) {
    const missing = firstMissing(commitSet, start + 1, wanted);
    if (missing !== null) {
      if (start === -1 && firstError === null) {
        const oldest = oldestReadable(listing);
        throw new Error(`Version ${wanted} of the Delta table at ${store.location} can no longer be read: commit ${missing} was deleted (vacuumed); the oldest version that can be read is ${oldest ?? 'none'}.`);
      }
      continue;
    }
    try {
      const base = start === -1 ? null : stateFromCheckpointActions(start, await readCheckpointFiles(store, listing.checkpointFiles.get(start) as string[]));
      const state = replay(base, await readCommits(store, start + 1, wanted));
      if (state.lastCommitTimestamp === null) state.lastCommitTimestamp = await commitTimestamp(store, listing, wanted);
      return state;
    } catch (error) {
      // An unreadable checkpoint is skipped for an older start; an unreadable commit fails every start alike.
      if (firstError === null) firstError = error;
    }
  }
  throw firstError;
}

/** What a target path holds, as the writer must judge it before writing there. */
export type TargetContents =
  /** Nothing, or only what a killed first export of this code left (data files and temp files, no commit). */
  | { kind: 'empty'; leftovers: string[] }
  | { kind: 'delta'; state: TableState }
  /** Files that are not a Delta table this code can take: `example` names one of them. */
  | { kind: 'not-delta'; example: string };

/**
 * Judges the path: a Delta table (its newest state), nothing (or only the leftovers of this code's own
 * killed first export), or something else (files of another program, or a `_delta_log` without a
 * commit). Whether a Delta table is this code's own (its metaData.id, its protocol) is the writer's call.
 */
export async function inspectTarget(store: DeltaStore): Promise<TargetContents> {
  const state = await readTableState(store);
  if (state !== null) return { kind: 'delta', state };
  const entries = (await store.list()).map((entry) => entry.path).sort();
  const foreign = entries.find((path) => !isOwnLeftover(path));
  if (foreign !== undefined) return { kind: 'not-delta', example: foreign };
  return { kind: 'empty', leftovers: entries };
}

/**
 * A file this code writes before its first commit: a data file `part-RUNID-NNNNN-RANDOM8.parquet` at
 * the table root, or a temporary file (`.tmp-…`) of a data file or a commit being written.
 */
export function isOwnLeftover(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const folder = path.slice(0, Math.max(0, path.lastIndexOf('/')));
  if (name.startsWith('.tmp-')) return folder === '' || folder === LOG_DIR;
  return folder === '' && /^part-\d{8}T\d{6}Z-[0-9a-f]{4}-\d{5}-[0-9A-Za-z]{8}\.parquet$/.test(name);
}

function firstMissing(commits: Set<number>, from: number, to: number): number | null {
  for (let version = from; version <= to; version += 1) if (!commits.has(version)) return version;
  return null;
}

/** The oldest version a reader can start from: a checkpoint, or commit 0, with every commit after it to the newest. */
function oldestReadable(listing: LogListing): number | null {
  const commitSet = new Set(listing.commits);
  const newest = Math.max(listing.commits.at(-1) ?? -1, listing.checkpoints.at(-1) ?? -1);
  const starts = [...(commitSet.has(0) ? [{ version: 0, from: 0 }] : []), ...listing.checkpoints.map((version) => ({ version, from: version + 1 }))];
  const readable = starts.filter(({ from }) => firstMissing(commitSet, from, newest) === null).map(({ version }) => version);
  return readable.length === 0 ? null : Math.min(...readable);
}

async function readCheckpointFiles(store: DeltaStore, paths: readonly string[]): Promise<Action[]> {
  const actions: Action[] = [];
  for (const path of paths) {
    const bytes = await store.read(path);
    if (bytes === null) throw new Error(`${store.location}/${path} disappeared while the table was read; expected it to stay until vacuum.`);
    actions.push(...(await readCheckpoint(bytes, `${store.location}/${path}`)));
  }
  return actions;
}

async function readCommits(store: DeltaStore, from: number, to: number): Promise<Commit[]> {
  const commits: Commit[] = [];
  for (let batch = from; batch <= to; batch += PARALLEL_READS) {
    const versions = Array.from({ length: Math.min(PARALLEL_READS, to - batch + 1) }, (_, index) => batch + index);
    commits.push(...(await Promise.all(versions.map((version) => readCommit(store, version)))));
  }
  return commits;
}

async function readCommit(store: DeltaStore, version: number): Promise<Commit> {
  const path = commitPath(version);
  const bytes = await store.read(path);
  if (bytes === null) throw new Error(`${store.location}/${path} disappeared while the table was read; expected it to stay until vacuum.`);
  return parseCommit(version, bytes.toString('utf8'), `${store.location}/${path}`);
}

/**
 * When version `version` was made, for a state that starts at a checkpoint with no commit after it:
 * its commit's commitInfo when the commit is still there, else the log file's modification time
 * (PROTOCOL.md: a commit's time is its file's when no in-commit timestamp says otherwise).
 */
async function commitTimestamp(store: DeltaStore, listing: LogListing, version: number): Promise<number | null> {
  const entry = listing.entries.get(commitPath(version));
  if (entry !== undefined) {
    const commit = await readCommit(store, version).catch(() => null);
    for (const action of commit?.actions ?? []) {
      if ('commitInfo' in action && typeof action.commitInfo.timestamp === 'number') return action.commitInfo.timestamp;
    }
    return entry.modifiedMs;
  }
  const checkpoint = listing.checkpointFiles.get(version)?.[0];
  return checkpoint === undefined ? null : (listing.entries.get(checkpoint)?.modifiedMs ?? null);
}
