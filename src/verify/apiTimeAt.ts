import type { Db } from '../db/open.js';
import { isoToMicros } from '../isoTimestamp.js';

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
 * Each table is walked from its newest id down to the first row stored by then. When its oldest row was
 * stored after `ourTime` (the pass was the first sync, which stored everything), none was: the walk is
 * skipped rather than reading the whole table for nothing.
 */
export function apiTimeAt(db: Db, ourTime: string): number | null {
  let newest: number | null = null;
  for (const table of APPEND_MOSTLY) {
    const first = db.prepare(`SELECT _synced_at FROM ${table} ORDER BY id LIMIT 1`).pluck().get() as string | undefined;
    if (first === undefined || first > ourTime) continue;
    const created = db.prepare(`SELECT created_at FROM ${table} WHERE _synced_at <= ? AND created_at IS NOT NULL ORDER BY id DESC LIMIT 1`).pluck().get(ourTime) as
      | string
      | undefined;
    const micros = created === undefined ? null : isoToMicros(created);
    if (micros !== null && (newest === null || micros > newest)) newest = micros;
  }
  return newest;
}
