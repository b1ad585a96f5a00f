import type { Db } from '../db/open.js';
import { isoToMicrosNumber } from '../isoTimestamp.js';

/** Streams whose rows are stored in ascending id order and mostly never rewritten: their newest ids were stored last. */
const APPEND_MOSTLY = ['transactions', 'activities', 'orders'] as const;

/**
 * A moment of this process's clock (`ourTime`, ISO text as the mirror records it) placed on the API's clock:
 * the newest `created_at` among rows stored at or before it, in microseconds; null when none was.
 *
 * The API's timestamps and ours come from different clocks (the simulator's runs months apart and jumps an
 * hour a tick), so "changed after the refresh began" cannot compare them directly. A row stored before
 * `ourTime` was created before it, so its `created_at` is at most the API's time then: the bound errs early,
 * which makes verify call a difference pending rather than a defect, never the other way round.
 *
 * Each table is walked from its newest id down to the first row stored by then, once a sync of it that
 * stored rows had finished by then: when none had (the pass was the first sync, which stored everything),
 * the walk would read the whole table to find nothing.
 */
export function apiTimeAt(db: Db, ourTime: string): number | null {
  const storedBefore = db.prepare('SELECT 1 FROM sync_runs WHERE stream = @table AND started_at <= @at AND finished_at <= @at AND rows_inserted > 0 LIMIT 1').pluck();
  let newest: number | null = null;
  for (const table of APPEND_MOSTLY) {
    if (storedBefore.get({ table, at: ourTime }) === undefined) continue;
    const created = db.prepare(`SELECT created_at FROM ${table} WHERE _synced_at <= ? AND created_at IS NOT NULL ORDER BY id DESC LIMIT 1`).pluck().get(ourTime) as
      | string
      | undefined;
    const micros = created === undefined ? null : isoToMicrosNumber(created);
    if (micros !== null && (newest === null || micros > newest)) newest = micros;
  }
  return newest;
}
