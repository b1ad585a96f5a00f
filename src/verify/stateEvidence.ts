import type { Db } from '../db/open.js';
import { isoToMicrosNumber } from '../isoTimestamp.js';

/**
 * For activities whose state differs from the API's: the newest stored transaction that embeds each one in
 * the state the API now shows (the approval, void or decline that changed it), as its `created_at` in
 * microseconds. Activities without one are left out. Only transactions stored by `storedBy` count: those a
 * repair of this same verify stores were no news to the sync. One read of the transactions table for all of
 * them (it has no index on the embedded activity, and a scan per activity would cost a table each).
 */
export function stateEvidence(db: Db, wanted: ReadonlyArray<{ id: number; state: string }>, storedBy: string): Map<number, number> {
  const found = new Map<number, number>();
  if (wanted.length === 0) return found;
  const stateOf = new Map(wanted.map((activity) => [activity.id, activity.state]));
  const rows = db
    .prepare(
      `SELECT activity_id AS id, activity_state AS state, created_at AS createdAt FROM transactions
       WHERE _removed_at IS NULL AND _synced_at <= ? AND activity_id IN (SELECT value FROM json_each(?))`,
    )
    .iterate(storedBy, JSON.stringify([...stateOf.keys()])) as IterableIterator<{ id: number; state: string | null; createdAt: string | null }>;
  for (const row of rows) {
    if (row.state === null || row.state !== stateOf.get(row.id)) continue;
    const at = row.createdAt === null ? null : isoToMicrosNumber(row.createdAt);
    if (at !== null) found.set(row.id, Math.max(found.get(row.id) ?? at, at));
  }
  return found;
}
