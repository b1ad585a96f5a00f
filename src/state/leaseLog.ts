import type { StoredDump, StoredSegment } from './dumpFormat.js';

/**
 * The state's log: numbered entries under `state/log/`, each written create-only (`If-None-Match: *`),
 * so exactly one writer creates entry n + 1 after entry n. Taking the lease, renewing it, saving and
 * releasing are all entries; the newest entry says who holds the lease, until when, and which dumps
 * make up the saved state. A run that lost its lease (paused past its expiry while another took over)
 * finds its next entry already written by the other: its save is fenced off, whatever it believes.
 * Only `If-None-Match` is needed, which every store that honours conditions offers (Swift from 2.36
 * offers nothing else).
 */
export const LOG_FORMAT = 'loyalty-sync-state-log';

export type EntryKind = 'take' | 'renew' | 'save' | 'release';

export interface LeaseHolder {
  /** Unique per run: `host:pid:nonce`. */
  id: string;
  host: string;
  pid: number;
  command: string;
}

/** What the bucket's state is made of at an entry: a base and the segments that replay on top of it, in order. */
export interface StateManifest {
  /** Names this state's lineage: a local mirror of another one is never taken for current. */
  stateId: string;
  /** The epoch of the last save: the state holds every change up to it. */
  epoch: number;
  savedAt: string;
  /** The mirror's schema (its highest migration) when the base was written; a change of it writes a new base. */
  schemaVersion: number;
  base: StoredDump;
  segments: StoredSegment[];
  /** The local mirror file's size at the save, for `status` and the cost figures. */
  mirrorBytes: number;
}

export interface LogEntry {
  format: typeof LOG_FORMAT;
  seq: number;
  kind: EntryKind;
  /** Unique per write: a writer whose answer was lost recognises its own entry by it. */
  writeId: string;
  /**
   * The writeId of the entry this one was written after (null for a state's first entry): an entry
   * counts only while that entry is still the one at `seq - 1`. Absent in entries of older versions.
   */
  previous?: string | null;
  holder: LeaseHolder;
  /** The lease's end by the store's clock, ISO 8601; a release's is its own time. */
  leaseUntil: string;
  writtenAt: string;
  manifest: StateManifest | null;
}

export type LeaseVerdict =
  | { kind: 'free' }
  | { kind: 'held'; holder: LeaseHolder; until: string }
  | { kind: 'mine' }
  /** The lease looks run out, but no usable store clock says so: nobody may take it on this machine's word. */
  | { kind: 'unjudged'; holder: LeaseHolder; until: string };

/**
 * Who may write next, by the newest entry and the store's time: a released lease is free, and one that
 * ran out by the store's clock. Without a usable store clock (`clockUsable` false) a lease that looks run
 * out is `unjudged`: the clock that says so may be the broken one.
 */
export function leaseVerdict(head: LogEntry | null, storeNowMs: number, me: string, clockUsable = true): LeaseVerdict {
  if (head === null || head.kind === 'release') return { kind: 'free' };
  if (Date.parse(head.leaseUntil) <= storeNowMs) return clockUsable ? { kind: 'free' } : { kind: 'unjudged', holder: head.holder, until: head.leaseUntil };
  if (head.holder.id === me) return { kind: 'mine' };
  return { kind: 'held', holder: head.holder, until: head.leaseUntil };
}

/** The least margin a holder leaves unused at the end of its lease, besides the store clock's uncertainty. */
export const MIN_LEASE_MARGIN_MS = 1000;

/**
 * How long after building an entry (by the local monotonic clock) its writer may act on the lease it
 * grants. The writer stamped `leaseUntil` with its reading of the store's clock, which may be behind the
 * store by `uncertaintyMs` (the Date's whole seconds and the round trip of the answer that carried it);
 * others judge the expiry by their own readings, never ahead of the store. A sixth of the lease, at
 * least, is left for clock rates and scheduling.
 */
export function safeLeaseMs(leaseMs: number, uncertaintyMs: number): number {
  return Math.max(0, leaseMs - Math.max(leaseMs / 6, uncertaintyMs + MIN_LEASE_MARGIN_MS));
}

/** An entry as a writer knows it: where, and which write put it there. */
export type EntryIdentity = Pick<LogEntry, 'seq' | 'writeId'>;

/**
 * Whether an entry this writer placed at `written.seq` holds: every entry it wrote after (from the head
 * it read, through its own earlier entries whose answers were lost) is still at its number with the same
 * writeId, and no entry follows its own. An entry it needs that is gone, or another in its place, means the
 * log moved on while this writer was held up and was pruned behind it: the free number proves nothing.
 * `now` maps each number to the writeId found there (null: none).
 */
export function appendStands(chain: EntryIdentity[], written: EntryIdentity, now: ReadonlyMap<number, string | null>): boolean {
  for (const entry of chain) if (now.get(entry.seq) !== entry.writeId) return false;
  if (now.get(written.seq) !== written.writeId) return false;
  return (now.get(written.seq + 1) ?? null) === null;
}

/** The key of entry `seq`: zero-padded, so the store lists entries in order. */
export function logPath(seq: number): string {
  return `state/log/${String(seq).padStart(12, '0')}.json`;
}

export const LOG_FOLDER = 'state/log/';

export function seqOfLogPath(path: string): number | null {
  const match = /^state\/log\/(\d{12})\.json$/.exec(path);
  return match === null ? null : Number(match[1]);
}

/** Reads an entry's text; null when it is not one of ours (a damaged or foreign object is no lease). */
export function parseEntry(text: string, seq: number): LogEntry | null {
  let value: Partial<LogEntry>;
  try {
    value = JSON.parse(text) as Partial<LogEntry>;
  } catch {
    return null;
  }
  if (value.format !== LOG_FORMAT || value.seq !== seq || typeof value.leaseUntil !== 'string' || typeof value.writeId !== 'string' || value.holder === undefined) return null;
  if (value.previous !== undefined && value.previous !== null && typeof value.previous !== 'string') return null;
  return value as LogEntry;
}

export function describeHolder(holder: LeaseHolder): string {
  return `${holder.command} on ${holder.host} (pid ${holder.pid})`;
}
