import type { Db } from '../db/open.js';
import { rowToJob, type WriteJob, type WriteJobRow } from './types.js';

/**
 * Other jobs that were sent (or may have been) at or after `since`: the writes that could explain
 * a transaction found while reconciling. `updated_at` moves on every state change after a send,
 * so it is at least the time of the job's last attempt.
 */
export function listJobsSentSince(db: Db, options: { since: Date; excludeId: number }): WriteJob[] {
  const rows = db
    .prepare(
      `SELECT * FROM write_jobs
       WHERE id <> @excludeId AND attempts > 0 AND updated_at >= @since`,
    )
    .all({ excludeId: options.excludeId, since: options.since.toISOString() }) as WriteJobRow[];
  return rows.map(rowToJob);
}
