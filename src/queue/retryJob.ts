import type { Db } from '../db/open.js';
import { rowToJob, type WriteJob, type WriteJobRow } from './types.js';

/**
 * dead or unknown → queued, due now, with a fresh attempt budget. The job keeps its id, so it
 * runs before later jobs of its customer or review. Undefined when it was in another state.
 */
export function retryJob(db: Db, id: number, now: Date): WriteJob | undefined {
  const at = now.toISOString();
  const row = db
    .prepare(
      `UPDATE write_jobs SET state = 'queued', attempts = 0, next_attempt_at = @at, updated_at = @at
       WHERE id = @id AND state IN ('dead', 'unknown')
       RETURNING *`,
    )
    .get({ id, at }) as WriteJobRow | undefined;
  return row && rowToJob(row);
}
