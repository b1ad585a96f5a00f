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
  holder: LeaseHolder;
  /** The lease's end by the store's clock, ISO 8601; a release's is its own time. */
  leaseUntil: string;
  writtenAt: string;
  manifest: StateManifest | null;
}

export type LeaseVerdict = { kind: 'free' } | { kind: 'held'; holder: LeaseHolder; until: string } | { kind: 'mine' };

/** Who may write next, by the newest entry and the store's time: a released or expired lease is free. */
export function leaseVerdict(head: LogEntry | null, storeNowMs: number, me: string): LeaseVerdict {
  if (head === null || head.kind === 'release') return { kind: 'free' };
  if (Date.parse(head.leaseUntil) <= storeNowMs) return { kind: 'free' };
  if (head.holder.id === me) return { kind: 'mine' };
  return { kind: 'held', holder: head.holder, until: head.leaseUntil };
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
  return value as LogEntry;
}

export function describeHolder(holder: LeaseHolder): string {
  return `${holder.command} on ${holder.host} (pid ${holder.pid})`;
}
