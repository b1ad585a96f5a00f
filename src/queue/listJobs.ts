import type { Db } from '../db/open.js';
import { rowToJob, type JobState, type WriteJob, type WriteJobRow } from './types.js';

/** Jobs in queue order, optionally of one state. */
export function listJobs(db: Db, options: { state?: JobState } = {}): WriteJob[] {
  const rows = options.state
    ? db.prepare('SELECT * FROM write_jobs WHERE state = ? ORDER BY id').all(options.state)
    : db.prepare('SELECT * FROM write_jobs ORDER BY id').all();
  return (rows as WriteJobRow[]).map(rowToJob);
}
