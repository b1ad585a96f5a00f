import type { Db } from '../db/open.js';
import { canonicalJson } from './idempotencyKey.js';
import { KINDS } from './kinds.js';
import { rowToJob, type JobKind, type JobPayload, type WriteJob, type WriteJobRow } from './types.js';

export interface NewJob {
  kind: JobKind;
  /** Already validated (`validatePayload`). */
  payload: JobPayload;
  idempotencyKey: string;
  source: string;
}

export interface EnqueueResult {
  job: WriteJob;
  /** False when a job with this key was already queued; `job` is then that job. */
  created: boolean;
}

/** An explicit key that already names a different write; reusing it would silently drop this one. */
export class KeyConflictError extends Error {
  override readonly name = 'KeyConflictError';
  constructor(
    readonly key: string,
    readonly existing: WriteJob,
  ) {
    super(`key "${key}" is already used by job ${existing.id} (${existing.kind}, state ${existing.state}) for a different write`);
  }
}

/** Inserts the job unless its idempotency key exists; returns the job that holds the key either way. */
export function enqueueJob(db: Db, job: NewJob, now: Date): EnqueueResult {
  const at = now.toISOString();
  const payload = canonicalJson(job.payload);
  const inserted = db
    .prepare(
      `INSERT INTO write_jobs (kind, payload, idempotency_key, ordering_key, state, next_attempt_at, source, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, ?)
       ON CONFLICT (idempotency_key) DO NOTHING
       RETURNING *`,
    )
    .get(job.kind, payload, job.idempotencyKey, KINDS[job.kind].orderingKey(job.payload), at, job.source, at, at) as WriteJobRow | undefined;
  if (inserted) return { job: rowToJob(inserted), created: true };
  const existing = db.prepare('SELECT * FROM write_jobs WHERE idempotency_key = ?').get(job.idempotencyKey) as WriteJobRow;
  if (existing.kind !== job.kind || existing.payload !== payload) throw new KeyConflictError(job.idempotencyKey, rowToJob(existing));
  return { job: rowToJob(existing), created: false };
}
