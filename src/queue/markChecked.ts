import type { Db } from '../db/open.js';

/** Records that reconciliation looked at an `unknown` job and found no proof either way. */
export function markChecked(db: Db, id: number, now: Date): void {
  db.prepare(`UPDATE write_jobs SET checked_at = @at WHERE id = @id AND state = 'unknown'`).run({ id, at: now.toISOString() });
}
