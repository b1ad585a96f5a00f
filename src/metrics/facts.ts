import type { ExportFormat, StreamName } from '../config.js';
import type { DriftKind } from '../drift/types.js';
import type { ExportTable } from '../export/schema.js';
import type { JobKind, JobState } from '../queue/types.js';
import type { InboxFileOutcome } from '../state/inbox/inboxCounts.js';
import type { StateFacts } from '../state/session.js';

/** How one exchange with the API ended: its HTTP status, or `error` when no status arrived. */
export type ApiOutcome = number | 'error';

/** How a push left a job; a job proved by reconciliation counts as `succeeded`. */
export const PUSH_OUTCOMES = ['succeeded', 'dead', 'unknown', 'retried'] as const;
export type PushOutcome = (typeof PUSH_OUTCOMES)[number];

/** How a stream's sync ended, and what it did to rows. */
export const SYNC_OUTCOMES = ['succeeded', 'failed'] as const;
export const SYNC_CHANGES = ['inserted', 'updated', 'removed'] as const;

/** How a run's publication to its bucket target ended. */
export const PUBLICATION_OUTCOMES = ['completed', 'failed'] as const;
export type PublicationOutcome = (typeof PUBLICATION_OUTCOMES)[number];

export interface StreamSyncFact {
  stream: StreamName;
  outcome: (typeof SYNC_OUTCOMES)[number];
  inserted: number;
  updated: number;
  removed: number;
  seconds: number;
  finishedAt: Date;
}

/** How verify classes a difference: pending (a pass of the sync brings it) or a defect (none will). */
export const VERIFY_CLASSES = ['pending', 'defect'] as const;

export interface VerifyFact {
  finishedAt: Date;
  /** No defect remained and every stream was verified. */
  ok: boolean;
  /** Per stream verified: the differences the run left, by class (a repair leaves none it stored). */
  streams: ReadonlyArray<{ stream: StreamName } & Record<(typeof VERIFY_CLASSES)[number], number>>;
}

/** Where a deep-refreshed stream's deep refresh stands. */
export interface DeepRefreshFact {
  stream: StreamName;
  /** When the last one completed; null before any. */
  lastSuccessAt: Date | null;
  /** Pages the one under way has read so far; 0 when none is under way. */
  pages: number;
  /** When the one under way began; null when none is. */
  startedAt: Date | null;
}

export interface ExportFact {
  finishedAt: Date;
  files: ReadonlyArray<{ table: ExportTable; format: ExportFormat; rows: number; bytes: number }>;
}

/**
 * Facts the client, the sync engine, the push worker and the job runner already know, handed to
 * whoever listens (the metrics module maps them to metric families). Passed in like the logger:
 * a component given none emits nothing.
 */
export interface OpsFacts {
  /** `endpoint` is the path template (`/v2/customers/{merchant_id}/points`), never a concrete id. */
  apiRequest(endpoint: string, outcome: ApiOutcome, seconds: number): void;
  streamSynced(fact: StreamSyncFact): void;
  /** Rows a mirror table holds now (for unsubscribes: the addresses currently on the list). */
  mirrorRows(table: StreamName, rows: number): void;
  pushJobEnded(kind: JobKind, outcome: PushOutcome): void;
  /** Jobs per state, and when the longest-unknown job became unknown (null when none is). */
  queueCounted(counts: Readonly<Record<JobState, number>>, oldestUnknownAt: Date | null): void;
  exportSucceeded(fact: ExportFact): void;
  /**
   * What the mirror remembers of earlier processes, read at start: each configured stream's last
   * successful sync, and the last successful export (null when none ever succeeded), so a restart
   * does not look like a mirror that never synced or exported.
   */
  lastSuccessesRead(fact: { syncs: ReadonlyArray<{ stream: StreamName; at: Date }>; export: Date | null }): void;
  /** The last verify that finished, read from the mirror at start and after each verify job. */
  verifyFinished(fact: VerifyFact): void;
  /**
   * Balances the newest reconciliation of the points ledger found unequal to their transactions, read from the
   * mirror at start and after each verify job. Apart from verifyFinished: `verify --ledger` records a
   * reconciliation without a verify run.
   */
  ledgerChecked(defects: number): void;
  /** Each deep-refreshed configured stream's deep refresh, read from the mirror at start and after each sync job. */
  deepRefreshRead(facts: readonly DeepRefreshFact[]): void;

  // Publications and schema drift (issue 26).
  /** A run's publication to its bucket target ended at `at`; `failed` includes a target refused before any file went up. */
  publicationEnded(outcome: PublicationOutcome, at: Date): void;
  /** Read at start from the mirror: when the newest publication to the configured target failed (null when none did). */
  lastPublicationFailureRead(at: Date | null): void;
  /** The schema drift findings the mirror holds for a stream (distinct field paths, enum values, mistyped paths), per kind. */
  schemaDriftCounted(stream: StreamName, counts: Readonly<Record<DriftKind, number>>): void;

  /** With state.url: the files in the write inbox as of its last listing, by outcome; read at start and after each push. */
  inboxCounted(counts: Readonly<Record<InboxFileOutcome, number>>): void;
}

/**
 * What the metrics hear of the state in the bucket (`state.url`): the session's restores, saves and
 * skips, and when the state was last saved as its log said when the run began.
 */
export interface StateMetricsFacts extends StateFacts {
  /** The newest save the state's log named at the start of the run (null before the first), so a run that saves nothing still says how old the state is. */
  lastSaveRead(at: Date | null): void;
}
