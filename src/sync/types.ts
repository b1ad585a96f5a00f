import type { ApiClient, ListParams } from '../api/client.js';
import type { Config, StreamName } from '../config.js';
import type { Db } from '../db/open.js';
import type { Logger } from '../log.js';
import type { OpsFacts } from '../metrics/facts.js';

export interface SyncOptions {
  db: Db;
  client: ApiClient;
  config: Readonly<Config>;
  logger: Logger;
  /** Default: `config.sync.streams`. */
  streams?: StreamName[];
  /** Forget the checkpoints and re-read everything; upserts make the re-read harmless. */
  full?: boolean;
  /** Run the lookback refresh now even if it is not due. */
  refresh?: boolean;
  /** Read the streams without an update filter whole now, to the end, even if no deep refresh is due. */
  deep?: boolean;
  /** Stop after the page in flight commits; the next run resumes from the checkpoint. */
  signal?: AbortSignal;
  /** Where the live line per stream goes; drawn only when it is a terminal. */
  progress?: NodeJS.WritableStream | null;
  /** The wall clock; tests may pin it. */
  clock?: () => Date;
  /** Told how each stream's sync ended and how many rows its table then holds; none by default. */
  facts?: Pick<OpsFacts, 'streamSynced' | 'mirrorRows' | 'schemaDriftCounted'>;
  /** Compare records with the spec's declaration and record schema drift; default true (off only to measure its cost). */
  checkDrift?: boolean;
  /**
   * Confirms a mass removal: lets an unsubscribe walk mark addresses removed even when the list came back
   * empty or more than `sync.maxRemovedShare` of the stored addresses left it. Default false.
   */
  acceptRemovals?: boolean;
}

/** `skipped`: not tried, because an earlier stream of the run found the API unreachable, or the credential refused. */
export type StreamStatusValue = 'succeeded' | 'failed' | 'interrupted' | 'skipped';

export interface StreamReport {
  stream: StreamName;
  status: StreamStatusValue;
  rowsRead: number;
  inserted: number;
  updated: number;
  /** Unsubscribes only: addresses that left the list in this run. */
  removed?: number;
  pages: number;
  /** True when this run re-read the stream's lookback window (or everything). */
  refreshed: boolean;
  /** The run's follow-up re-read of records another stream signalled changed (counted in the totals too). */
  signalled?: { rows: number; pages: number };
  /** What this run read of a deep refresh (counted in the totals above too); absent when it read none. */
  deep?: DeepSliceReport;
  error?: string;
  /** The stream failed because the API could not be reached at all (see isUnreachable). */
  unreachable?: boolean;
  /** The stream failed because the API refused the credential (401 or 403); whether that stops the run is describeStoppedSync's call. */
  refused?: 401 | 403;
}

export interface SyncReport {
  runId: string;
  ok: boolean;
  streams: StreamReport[];
  /** Why the points ledger could not be brought up to date at the sync's end (the sync then failed); absent when it was. */
  ledgerError?: string;
}

/**
 * One read of a stream:
 * - list: a cursor-paged list read with fixed filters (`role` says why: new rows, a refresh window, or a
 *   window of records another stream signalled as changed);
 * - walk: the unsubscribe list page by page; `startedAt` marks which rows this walk saw. A `confirming`
 *   walk re-reads the list after a walk that missed stored addresses (keeping that walk's `startedAt`):
 *   the list may have shifted under the first one, so only what both missed has left it.
 */
export type Pass =
  | { kind: 'list'; role: 'new' | 'refresh' | 'signalled'; params: ListParams }
  | { kind: 'walk'; startedAt: string; confirming?: boolean };

/**
 * What a stream's run still has to read, stored as JSON in `sync_state.pass_state` with every
 * page, so a killed run resumes with the same filters it started with (never recomputed from
 * a half-read stream). The first pass is the one in progress.
 */
export interface Plan {
  passes: Pass[];
  /** Completing the plan re-read every row that could have changed: it resets the refresh clock. */
  refreshes: boolean;
  /**
   * The plan reads the whole list into an empty table (a first sync): completing it counts as a deep refresh
   * begun then, and what it reads signals no change (see recordChangeSignals).
   */
  wholeReadStartedAt?: string;
  /** The plan re-reads the records signalled as changed up to this change counter: completing it clears those signals. */
  signalsThroughSeq?: number;
}

/** The part of a deep refresh one run read. */
export interface DeepSliceReport {
  pages: number;
  rows: number;
  inserted: number;
  updated: number;
  /** Rows marked removed when the refresh completed. */
  removed: number;
  /** The refresh reached the end of the list in this run. */
  completed: boolean;
}
