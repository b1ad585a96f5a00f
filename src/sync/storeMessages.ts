import type { StreamName } from '../config.js';
import type { UpsertResult } from '../db/upsertRecords.js';
import type { DriftFinding } from '../drift/index.js';
import type { RemovalRule } from './massRemoval.js';
import type { Pass, Plan } from './types.js';

/**
 * A group of pages of one stream and the checkpoint after the last of them. The pages travel as the
 * bytes the API sent, moved (not copied) to the storage thread: copying parsed records between threads
 * costs more than parsing them again there, and bytes outside the JavaScript heap leave neither
 * thread's heap holding pages until its next full collection.
 */
export interface PageGroup {
  stream: StreamName;
  bodies: Uint8Array[];
  /** The pass these pages completed, or null while it goes on. */
  finished: Pass | null;
  /** What is left to read after the group; no passes left completes the stream's run. */
  rest: Plan;
  /** Where the first pass of `rest` continues. */
  next: string | null;
  /** The run's clock, read on the main thread (tests pin it). */
  at: string;
  /** The schema drift in the group's records, found on the main thread, which parsed them already. */
  drift: DriftFinding[];
  /** What a walk this group completes may tombstone. */
  removals: RemovalRule;
}

export interface GroupOutcome {
  /** One result per page of the group, in order. */
  results: UpsertResult[];
  /** The plan stored after the group: the group's `rest`, or with a confirming walk in front (see `Pass`). */
  rest: Plan;
  /** Unsubscribes tombstoned by a walk this group completed. */
  removed: number;
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
