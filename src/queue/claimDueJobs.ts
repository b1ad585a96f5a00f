import type { Db } from '../db/open.js';
import { rowToJob, type WriteJob, type WriteJobRow } from './types.js';

/**
 * Marks up to `limit` due jobs `running` for this worker and returns them, committed before any
 * is sent. A job is due when queued with next_attempt_at <= dueBy (default: now), and only while no other job of
 * its ordering key is running and no earlier one is still queued (in backoff too), so each
 * customer's and each review's writes go out one at a time, in queue order.
 */
export function claimDueJobs(db: Db, options: { workerId: string; limit: number; now: Date; dueBy?: Date }): WriteJob[] {
  if (options.limit <= 0) return [];
  const at = options.now.toISOString();
  return db
    .transaction(() => {
      const rows = db
        .prepare(
          `UPDATE write_jobs
           SET state = 'running', attempts = attempts + 1, first_attempt_at = COALESCE(first_attempt_at, @at),
               locked_by = @workerId, locked_at = @at, updated_at = @at
           WHERE id IN (
             SELECT j.id FROM write_jobs j
             WHERE j.state = 'queued' AND j.next_attempt_at <= @dueBy
               AND NOT EXISTS (
                 SELECT 1 FROM write_jobs o WHERE o.ordering_key = j.ordering_key AND o.state = 'queued' AND o.id < j.id
               )
               AND NOT EXISTS (
                 SELECT 1 FROM write_jobs o WHERE o.ordering_key = j.ordering_key AND o.state = 'running'
               )
             ORDER BY j.id
             LIMIT @limit
           )
           RETURNING *`,
        )
        .all({ at, dueBy: (options.dueBy ?? options.now).toISOString(), workerId: options.workerId, limit: options.limit }) as WriteJobRow[];
      return rows.map(rowToJob).sort((a, b) => a.id - b.id);
    })
    .immediate();
}
