import type { StreamName } from '../config.js';
import type { Db } from '../db/open.js';

/** Rows of a mirror table as `status` counts them: for unsubscribes, the addresses currently on the list. */
export function countMirrorRows(db: Db, table: StreamName): number {
  const where = table === 'unsubscribes' ? ' WHERE removed_at IS NULL' : '';
  return db.prepare(`SELECT count(*) FROM ${table}${where}`).pluck().get() as number;
}
