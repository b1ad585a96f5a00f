import type { Db } from '../db/open.js';
import { oldestUnknownAt } from '../queue/oldestUnknownAt.js';
import { queueCounts } from '../queue/queueCounts.js';
import type { JobState } from '../queue/types.js';

/** What `OpsFacts.queueCounted` takes, read from the write queue. */
export function queueFacts(db: Db): [Record<JobState, number>, Date | null] {
  const unknownSince = oldestUnknownAt(db);
  return [queueCounts(db), unknownSince === null ? null : new Date(unknownSince)];
}
