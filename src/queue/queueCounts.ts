import type { Db } from '../db/open.js';
import { JOB_STATES, type JobState } from './types.js';

export type QueueCounts = Record<JobState, number> & { oldestQueuedAt: string | null };

/** Jobs per state (every state present, zero when empty) and when the oldest queued job was queued, for `status`. */
export function queueCounts(db: Db): QueueCounts {
  const rows = db.prepare('SELECT state, COUNT(*) AS count, MIN(created_at) AS oldest FROM write_jobs GROUP BY state').all() as Array<{
    state: JobState;
    count: number;
    oldest: string;
  }>;
  const counts = Object.fromEntries(JOB_STATES.map((state) => [state, 0])) as Record<JobState, number>;
  let oldestQueuedAt: string | null = null;
  for (const row of rows) {
    counts[row.state] = row.count;
    if (row.state === 'queued') oldestQueuedAt = row.oldest;
  }
  return { ...counts, oldestQueuedAt };
}
