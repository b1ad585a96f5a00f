/** Kinds of write the queue can push (one per non-read endpoint of the API). */
export const JOB_KINDS = ['add_points', 'update_review', 'delete_review', 'create_order', 'claim_reward'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/**
 * queued → running → succeeded | dead | unknown; queued → cancelled.
 * `unknown`: the request may have reached the API and its outcome could not be proved.
 */
export const JOB_STATES = ['queued', 'running', 'succeeded', 'dead', 'unknown', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** A validated payload: the API's field names in snake_case, plus the target (customer, review). */
export type JobPayload = Record<string, string | number | boolean | string[] | number[]>;

/** One row of `write_jobs`. */
export interface WriteJob {
  id: number;
  kind: JobKind;
  payload: JobPayload;
  idempotencyKey: string;
  /** Jobs sharing it are sent one at a time, in id order: `customer:ID` or `review:PLATFORM/ID`. */
  orderingKey: string;
  state: JobState;
  /** Sends started, including one in flight. */
  attempts: number;
  nextAttemptAt: string;
  firstAttemptAt: string | null;
  /** An earlier attempt may have landed. */
  inDoubt: boolean;
  /** When reconciliation last looked for proof of an `unknown` job's outcome. */
  checkedAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  lastErrorCode: string | null;
  response: string | null;
  /** `cli`, or `FILE:LINE` for imported rows. */
  source: string;
  lockedBy: string | null;
  lockedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The row as SQLite returns it. */
export interface WriteJobRow {
  id: number;
  kind: JobKind;
  payload: string;
  idempotency_key: string;
  ordering_key: string;
  state: JobState;
  attempts: number;
  next_attempt_at: string;
  first_attempt_at: string | null;
  in_doubt: number;
  checked_at: string | null;
  last_status: number | null;
  last_error: string | null;
  last_error_code: string | null;
  response: string | null;
  source: string;
  locked_by: string | null;
  locked_at: string | null;
  created_at: string;
  updated_at: string;
}

export function rowToJob(row: WriteJobRow): WriteJob {
  return {
    id: row.id,
    kind: row.kind,
    payload: JSON.parse(row.payload) as JobPayload,
    idempotencyKey: row.idempotency_key,
    orderingKey: row.ordering_key,
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    firstAttemptAt: row.first_attempt_at,
    inDoubt: row.in_doubt === 1,
    checkedAt: row.checked_at,
    lastStatus: row.last_status,
    lastError: row.last_error,
    lastErrorCode: row.last_error_code,
    response: row.response,
    source: row.source,
    lockedBy: row.locked_by,
    lockedAt: row.locked_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function isJobKind(value: string): value is JobKind {
  return (JOB_KINDS as readonly string[]).includes(value);
}

export function isJobState(value: string): value is JobState {
  return (JOB_STATES as readonly string[]).includes(value);
}
