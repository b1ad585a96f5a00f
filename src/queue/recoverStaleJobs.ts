import type { Config } from '../config.js';
import type { Db } from '../db/open.js';
import { rowToJob, type WriteJob, type WriteJobRow } from './types.js';
import { isLiveHere, isWorkerGone } from './worker.js';

const ABANDONED = 'the worker sending it stopped before its outcome was recorded';

/**
 * The longest one attempt of a write can take from its claim: the client's retries of a request not
 * sent (rate limited, connection refused) within api.retry.maxElapsedMs, a wait of the rate limiter,
 * and the request itself. A job claimed earlier than this cannot have reached the API later.
 */
export function attemptLimitMs(api: Pick<Config['api'], 'requestTimeoutMs' | 'retry'>): number {
  return api.retry.maxElapsedMs + api.retry.maxDelayMs + api.requestTimeoutMs;
}

/**
 * Jobs left `running` by a worker that is gone (killed, crashed) may or may not have reached the
 * API, so they get the ambiguous-failure rules: reviews are idempotent and go back to the queue;
 * orders go back in doubt (looked up before any resend); points and claims become `unknown`.
 * Returns the jobs recovered, in their state before recovery. `othersGone`: the caller knows that no
 * worker outside this process can be at work (it holds the state's lease, and the jobs came from the
 * bucket), so another host's lock need not age first.
 *
 * A recovered job's `updated_at` is when its attempt ended at the latest (its claim plus `attemptLimitMs`),
 * not the recovery: reconciliation searches the customer's transactions up to it, and a recovery hours or
 * days after the claim would take a same-value credit from elsewhere in between as the job's own.
 */
export function recoverStaleJobs(db: Db, options: { workerId: string; now: Date; attemptLimitMs: number; othersGone?: boolean }): WriteJob[] {
  const at = options.now.toISOString();
  const endedBy = (job: WriteJob): string => {
    // With the state in a bucket the claim is saved before the send, and a save has no time limit: the send's
    // end is bounded by nothing the row holds, so by the recovery, as before.
    if (options.othersGone === true) return at;
    const claimed = job.lockedAt === null ? Number.NaN : Date.parse(job.lockedAt);
    return Number.isFinite(claimed) ? new Date(Math.min(options.now.getTime(), claimed + options.attemptLimitMs)).toISOString() : at;
  };
  return db
    .transaction(() => {
      const running = (db.prepare(`SELECT * FROM write_jobs WHERE state = 'running' ORDER BY id`).all() as WriteJobRow[]).map(rowToJob);
      const stale = running.filter((job) =>
        options.othersGone ? !isLiveHere(job.lockedBy, options.workerId) : isWorkerGone(job.lockedBy, job.lockedAt, options.workerId, options.now),
      );
      const update = db.prepare(
        `UPDATE write_jobs
         SET state = CASE WHEN kind IN ('add_points', 'claim_reward') THEN 'unknown' ELSE 'queued' END,
             in_doubt = 1, next_attempt_at = @at, last_status = NULL, last_error = @error, last_error_code = 'abandoned',
             locked_by = NULL, locked_at = NULL, updated_at = @endedBy
         WHERE id = @id AND state = 'running' AND locked_by IS @lockedBy`,
      );
      for (const job of stale) update.run({ id: job.id, lockedBy: job.lockedBy, at, endedBy: endedBy(job), error: ABANDONED });
      return stale;
    })
    .immediate();
}
