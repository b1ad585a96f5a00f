import type { StreamName } from '../config.js';
import type { UpsertResult } from '../db/upsertRecords.js';
import type { DriftFinding } from '../drift/index.js';
import type { DeepPlan } from './deepRefreshState.js';
import type { RemovalRule } from './massRemoval.js';
import type { Pass, Plan } from './types.js';

/** After a group of a stream's plan: what it completed and what is left. */
export interface PlanCheckpoint {
  kind: 'plan';
  /** The pass these pages completed, or null while it goes on. */
  finished: Pass | null;
  /** What is left to read after the group; no passes left completes the stream's run. */
  rest: Plan;
  /** Where the first pass of `rest` continues. */
  next: string | null;
}

/** After a group of a deep refresh, which keeps a checkpoint of its own: it is walked in slices across runs. */
export interface DeepCheckpoint {
  kind: 'deep';
  /** The refresh as it stood before the group. */
  plan: DeepPlan;
  startedAt: string;
  pages: number;
  rows: number;
  /** Where it continues after the group; null: the group's last page ended the list, so the refresh completes. */
  next: string | null;
}

/**
 * A group of pages of one stream and the checkpoint after the last of them. The pages travel as the
 * bytes the API sent, moved (not copied) to the storage thread: copying parsed records between threads
 * costs more than parsing them again there, and bytes outside the JavaScript heap leave neither
 * thread's heap holding pages until its next full collection.
 */
export interface PageGroup {
  stream: StreamName;
  bodies: Uint8Array[];
  checkpoint: PlanCheckpoint | DeepCheckpoint;
  /** The run's clock, read on the main thread (tests pin it). */
  at: string;
  /** The schema drift in the group's records, found on the main thread, which parsed them already. */
  drift: DriftFinding[];
  /** What a walk or a deep refresh this group completes may mark removed. */
  removals: RemovalRule;
}

export interface GroupOutcome {
  /** One result per page of the group, in order. */
  results: UpsertResult[];
  /** The plan stored after a plan's group: its `rest`, or with a confirming walk in front (see `Pass`). */
  rest: Plan;
  /** Rows marked removed by a walk or a deep refresh this group completed. */
  removed: number;
  /** After a deep refresh's group: the refresh as stored (its spans grown by the group's pages). */
  deep?: DeepPlan;
  /** The findings of `drift` seen for the first time (recorded with the group). */
  drift: DriftFinding[];
}

export type StoreRequest =
  | ({ type: 'group'; id: number } & PageGroup)
  | { type: 'flush'; id: number }
  | { type: 'close'; id: number };

export type StoreReply =
  | { id: number; ok: true; outcome?: GroupOutcome }
  | { id: number; ok: false; message: string };

/** What the storage thread is started with. */
export interface StoreWorkerData {
  dbPath: string;
}
