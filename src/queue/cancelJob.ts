import type { Db } from '../db/open.js';
import { rowToJob, type WriteJob, type WriteJobRow } from './types.js';

/** queued → cancelled; undefined when the job was in another state (it may already be on its way). */
export function cancelJob(db: Db, id: number, now: Date): WriteJob | undefined {
  const row = db
    .prepare(`UPDATE write_jobs SET state = 'cancelled', updated_at = @at WHERE id = @id AND state = 'queued' RETURNING *`)
    .get({ id, at: now.toISOString() }) as WriteJobRow | undefined;
  return row && rowToJob(row);
}
