import type { Db } from '../db/open.js';

/** Addresses still marked present that the walk started at `walkStartedAt` has not seen. */
export function countUnseen(db: Db, walkStartedAt: string): number {
  return db.prepare('SELECT count(*) FROM unsubscribes WHERE removed_at IS NULL AND last_seen_at < ?').pluck().get(walkStartedAt) as number;
}

/** Addresses still marked present. */
export function countPresent(db: Db): number {
  return db.prepare('SELECT count(*) FROM unsubscribes WHERE removed_at IS NULL').pluck().get() as number;
}

/**
 * After a complete walk of the unsubscribe list: every address still marked present that the
 * walk did not see (last seen before the walk started) has left the list. Never call it after a
 * partial walk, or addresses on unread pages would be wrongly marked removed. `_removed_at`, the mark
 * every stream table carries for rows the API no longer has, moves with `removed_at`. Returns how many left.
 */
export function tombstoneUnseen(db: Db, walkStartedAt: string, now: string, changeSeq: number): number {
  return db
    .prepare('UPDATE unsubscribes SET removed_at = ?, _removed_at = ?, _synced_at = ?, _change_seq = ? WHERE removed_at IS NULL AND last_seen_at < ?')
    .run(now, now, now, changeSeq, walkStartedAt).changes;
}
