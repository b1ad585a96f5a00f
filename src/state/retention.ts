import type { Config } from '../config.js';
import { LOG_FOLDER, seqOfLogPath, type LogEntry, type StateManifest } from './leaseLog.js';
import { StateError } from './errors.js';
import type { StateLog } from './stateLog.js';
import { BucketStateStore } from './store/bucketStateStore.js';
import { FolderStateStore } from './store/folderStateStore.js';
import type { StateStore, StoredObject } from './store/stateStore.js';

/** Where the dumps live, relative to the state's prefix; each under a name of its own. */
export const DUMPS_FOLDER = 'state/dumps/';

/** The longest a run waits between its lease check and a send: a 429's Retry-After or an order lookup in doubt. */
const LONGEST_WAIT_MS = 30_000;

/** How many lease lengths an entry outlives its writing at least: a paused run that wakes finds the entries it wrote after. */
const LEASES_KEPT = 4;

/** Entries read at once when the sweep gathers the manifests of the retained window. */
const READS_AT_ONCE = 8;

/**
 * How long the bucket keeps what a save named: `state.retainHours`, and never less than several leases
 * plus the longest wait, so that no run still acting on a lease finds the entries around its own gone.
 */
export function retentionMs(state: Readonly<Config['state']>): number {
  return Math.max(state.retainHours * 3_600_000, LEASES_KEPT * state.leaseSeconds * 1000 + state.leaseWaitSeconds * 1000 + LONGEST_WAIT_MS);
}

/**
 * How old a folder state's temporary file must be before the sweep takes it for a killed writer's: several
 * lease lengths plus the longest wait, the floor of retentionMs. A temporary file lives from its write to its
 * rename within one store call. Saves, the only large writes, run one after another and the sweep runs after
 * them, so the sweeping holder has no save of its own in flight; its other writes (inbox errors, outbox
 * results) are small. Anyone else writing is a run taking the lease (one small log entry) or a run whose lease
 * ran out meanwhile: its write is fenced off anyway, and losing its temporary file only makes it fail sooner.
 * So a file this old belongs to no write that can still count, while one in flight is far younger.
 */
export function tempFileAgeMs(state: Readonly<Config['state']>): number {
  return LEASES_KEPT * state.leaseSeconds * 1000 + state.leaseWaitSeconds * 1000 + LONGEST_WAIT_MS;
}

export interface SweepReport {
  dumps: number;
  entries: number;
  uploads: number;
  /** A folder's temporary files left by writers killed midway (a bucket's are its open uploads). */
  tempFiles: number;
}

export interface SweepOptions {
  /** The store's time now. */
  nowMs: number;
  keepMs: number;
  /** A folder state's temporary files older than this are swept (tempFileAgeMs). */
  tempAgeMs: number;
  /** The newest entry, the sweeping run's own: the window's entries are read up to it even when a listing lags. */
  head: LogEntry;
  /** Re-reads the head: true while the newest entry is still the sweeping run's own and its lease holds. */
  stillHolder: () => Promise<boolean>;
}

/**
 * Deletes what no state of the retained window needs: log entries older than the entry in force at the
 * window's start, dumps no manifest of the window names (a base superseded an hour ago stays, so a
 * restore as of then still works), and multipart uploads under `state/` begun before the window (saves
 * killed or fenced off midway). Only the lease holder calls it, and nothing goes unless `stillHolder`
 * says the head is still its own right before the deletes.
 */
export async function sweepState(objects: StateStore, log: StateLog, options: SweepOptions): Promise<SweepReport> {
  const boundary = options.nowMs - options.keepMs;
  const [logObjects, dumps] = await Promise.all([objects.list(LOG_FOLDER), objects.list(DUMPS_FOLDER)]);
  const entries = logObjects
    .map((object) => ({ ...object, seq: seqOfLogPath(object.path) }))
    .filter((object): object is StoredObject & { seq: number } => object.seq !== null)
    .sort((a, b) => a.seq - b.seq);
  // The newest entry written before the window: the state in force when the window begins.
  const inForce = entries.filter((entry) => isOlder(entry, boundary)).at(-1);
  const headSeq = options.head.seq;
  const firstRetained = inForce?.seq ?? entries[0]?.seq ?? headSeq;
  const oldEntries = inForce === undefined ? [] : entries.filter((entry) => entry.seq < inForce.seq).map((entry) => entry.path);

  // A dump uploaded within the window may be a save whose entry is still being written: never a candidate. Nor is
  // one the newest state names (an old base, most of the time): the window's entries are read only for the rest.
  const current = new Set(dumpsOf(options.head.manifest));
  let oldDumps = dumps.filter((dump) => isOlder(dump, boundary) && !current.has(dump.path)).map((dump) => dump.path);
  if (oldDumps.length > 0) {
    const seqs = Array.from({ length: Math.max(0, headSeq - firstRetained + 1) }, (_, index) => firstRetained + index);
    const named = await namedDumps(log, seqs);
    oldDumps = oldDumps.filter((path) => !named.has(path));
  }
  // Only a bucket has multipart uploads; a folder's uploads are whole files.
  const uploads = objects instanceof BucketStateStore ? objects.objects : null;
  const stale = ((await uploads?.openUploads()) ?? []).filter((upload) => upload.path.startsWith('state/') && upload.initiatedMs > 0 && upload.initiatedMs < boundary);
  // A folder's writes in flight are temporary files instead; a writer killed midway leaves its own behind.
  const folder = objects instanceof FolderStateStore ? objects : null;
  const temps = (await folder?.staleTempFiles(options.nowMs - options.tempAgeMs)) ?? [];

  const nothing = { dumps: 0, entries: 0, uploads: 0, tempFiles: 0 };
  if (oldDumps.length + oldEntries.length + stale.length + temps.length === 0) return nothing;
  if (!(await options.stillHolder())) return nothing;
  if (oldDumps.length > 0) await objects.delete(oldDumps);
  if (oldEntries.length > 0) await objects.delete(oldEntries);
  for (const upload of stale) await uploads?.abortUpload(upload);
  await folder?.removeTempFiles(temps);
  return { dumps: oldDumps.length, entries: oldEntries.length, uploads: stale.length, tempFiles: temps.length };
}

/** An object the store dated, before `boundary`; an undated one is never old. */
function isOlder(object: { modifiedMs: number }, boundary: number): boolean {
  return object.modifiedMs > 0 && object.modifiedMs < boundary;
}

/** Every dump the manifests of these entries name; an entry that cannot be read stops the sweep (nothing is deleted on a guess). */
async function namedDumps(log: StateLog, seqs: readonly number[]): Promise<Set<string>> {
  const named = new Set<string>();
  for (let at = 0; at < seqs.length; at += READS_AT_ONCE) {
    const read = await Promise.all(seqs.slice(at, at + READS_AT_ONCE).map(async (seq) => ({ seq, entry: await log.read(seq) })));
    for (const { seq, entry } of read) {
      if (entry === null) {
        // Listed, then gone: another sweep deleted it, so this run is no longer the holder it believes.
        throw new StateError(`The state's log entry ${seq} was listed and then gone while old state objects were removed; nothing was deleted.`);
      }
      for (const path of dumpsOf(entry.manifest)) named.add(path);
    }
  }
  return named;
}

export function dumpsOf(manifest: StateManifest | null): string[] {
  return manifest === null ? [] : [manifest.base.path, ...manifest.segments.map((segment) => segment.path)];
}
