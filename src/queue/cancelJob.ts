import type { Db } from '../db/open.js';
import { rowToJob, type JobState, type WriteJob, type WriteJobRow } from './types.js';

/**
 * The states a person may cancel from: a queued job is stopped before it is sent; a dead one, or an
 * unknown one a person has checked, is cleared so it no longer counts as unhealthy. A cancelled job keeps
 * its row, so its idempotency key stays taken and queueing the same write again adds nothing.
 */
export const CANCELLABLE_STATES: readonly JobState[] = ['queued', 'dead', 'unknown'];

export interface CancelResult {
  /** The job as it was just before; its state says what was cancelled, or why nothing was. */
  before: WriteJob;
  cancelled: boolean;
}

/**
 * queued, dead or unknown → cancelled, in one transaction with the read of the state it left, so
 * the caller can say what it cleared. Undefined when there is no such job.
 */
export function cancelJob(db: Db, id: number, now: Date): CancelResult | undefined {
  return db
    .transaction(() => {
      const row = db.prepare('SELECT * FROM write_jobs WHERE id = ?').get(id) as WriteJobRow | undefined;
      if (row === undefined) return undefined;
      const before = rowToJob(row);
      if (!CANCELLABLE_STATES.includes(before.state)) return { before, cancelled: false };
      db.prepare(`UPDATE write_jobs SET state = 'cancelled', updated_at = ? WHERE id = ?`).run(now.toISOString(), id);
      return { before, cancelled: true };
    })
    .immediate();
}
