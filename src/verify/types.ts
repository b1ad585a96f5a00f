import type { LedgerCheck } from '../ledger/reconcile.js';
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

/** The pass of the sync that brings a pending difference into the mirror. */
export type PassName = 'next sync' | 'next refresh' | 'next deep refresh';

/** What differs: the mirror lacks the row, holds one the API does not have, or holds it otherwise. */
export type DifferenceKind = 'missing' | 'extra' | 'stale';

/** A difference the sync has not had its chance at yet: changed upstream after the last pass that re-reads the row. */
export interface PendingRow {
  id: MirrorId;
  kind: DifferenceKind;
  pass: PassName;
  /** When that pass falls due (a sync from then on runs it; a time already past means the next sync); null for the next sync. */
  due: string | null;
}

/**
 * One stream's result, in the shape `verify --json` prints (a contract of issue 14; issue 25 added `pending`
 * and `defects`). `missing`, `extra` and `stale` are the defects: differences no pass of the sync will bring.
 */
export interface StreamVerifyResult {
  stream: StreamName;
  /** API rows compared with the mirror and found equal or defective (pending rows are counted under `pending` instead). */
  compared: number;
  /** At most ID_LIST_CAP each; the counts beside them are complete. */
  missing: MirrorId[];
  extra: MirrorId[];
  stale: MirrorId[];
  missing_count: number;
  extra_count: number;
  stale_count: number;
  /** missing_count + extra_count + stale_count: what fails the verify. */
  defects: number;
  /** Pending differences: `rows` holds at most ID_LIST_CAP of them, `count` all (unsynced ones included). */
  pending: { count: number; rows: PendingRow[] };
  /** Pending differences the next incremental sync brings (pass `next sync`), as before issue 25. */
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
  /** True when no defect remains (none found, or all repaired) and every stream was verified; pending differences do not count. */
  ok: boolean;
  streams: StreamVerifyResult[];
  /** The reconciliation of the transactions with the customers' balances (verify --ledger); its defects fail the verify. */
  ledger: LedgerCheck;
}

/** Id lists in reports are capped; the counts are not. */
export const ID_LIST_CAP = 1000;
