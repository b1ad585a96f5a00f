import type { Db } from '../db/open.js';
import { rowToJob, type WriteJob, type WriteJobRow } from './types.js';

/** `unknown` jobs never checked, or last checked before `checkedBefore`, oldest first. */
export function listUnknownJobs(db: Db, options: { checkedBefore: Date; limit: number }): WriteJob[] {
  const rows = db
    .prepare(`SELECT * FROM write_jobs WHERE state = 'unknown' AND (checked_at IS NULL OR checked_at < ?) ORDER BY id LIMIT ?`)
    .all(options.checkedBefore.toISOString(), options.limit) as WriteJobRow[];
  return rows.map(rowToJob);
}
