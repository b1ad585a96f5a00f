import type { ApiClient } from '../api/client.js';
import type { Config, StreamName } from '../config.js';
import type { Db } from '../db/open.js';
import type { Logger } from '../log.js';

export type VerifyMode = 'full' | 'sample';

/** An id as the mirror holds it: a number, or text for unsubscribes. */
export type MirrorId = number | string;

export interface VerifyOptions {
  db: Db;
  client: ApiClient;
  config: Readonly<Config>;
  logger: Logger;
  /** Default: `config.sync.streams`. */
  streams?: StreamName[];
  mode: VerifyMode;
  /** Sampled mode: the most requests to send, retries included. */
  requests: number;
  /** Store what is missing or stale, mark extras removed, correct watermarks. Needs the writer lock. */
  repair: boolean;
  /**
   * With `repair`: mark extras removed even when they are all of a table's rows or more than
   * `sync.maxRemovedShare` of them (a confirmed mass removal). Default false.
   */
  acceptRemovals?: boolean;
  signal?: AbortSignal;
  /** Where sampled windows fall; tests pass a seeded one. Default Math.random. */
  random?: () => number;
  clock?: () => Date;
}

export interface RepairCounts {
  inserted: number;
  updated: number;
  removed: number;
}

/** One stream's result, in the shape `verify --json` prints (a contract of issue 14). */
export interface StreamVerifyResult {
  stream: StreamName;
  /** API rows compared with the mirror (rows the next sync reads anyway are counted as unsynced instead). */
  compared: number;
  /** At most ID_LIST_CAP each; the counts beside them are complete. */
  missing: MirrorId[];
  extra: MirrorId[];
  stale: MirrorId[];
  missing_count: number;
  extra_count: number;
  stale_count: number;
  /** Rows that appeared or changed after the last sync: the next incremental sync reads them. */
  unsynced: number;
  /** Sampled mode: upper bound of the share of rows missing, at 95% confidence; null in full mode or when nothing was compared. */
  missing_bound: number | null;
  /** Present with --repair. */
  repaired?: RepairCounts;
  /** Set when the stream could not be verified (the API failed); its counts cover what was read before. */
  error?: string;
}

export interface VerifyReport {
  mode: VerifyMode;
  /** Requests sent to the API, retries included. */
  requests: number;
  /** True when no difference remains (none found, or all repaired) and every stream was verified. */
  ok: boolean;
  streams: StreamVerifyResult[];
}

/** Id lists in reports are capped; the counts are not. */
export const ID_LIST_CAP = 1000;
