import type { Db } from '../db/open.js';
import { isoToMicrosNumber } from '../isoTimestamp.js';
import type { StreamDefinition } from '../streams/index.js';
import type { WindowIds } from './watermarks.js';

/** Wider than any UTC offset isoToMicros reads (up to ±23:59). */
const ANY_UTC_OFFSET_MS = 24 * 60 * 60 * 1000;

/*
 * Every fact here leaves out rows that verify marked removed (`_removed_at`): a row the API never had,
 * above the real maximum, would otherwise move the watermark past ids the API has not handed out yet.
 * ORDER BY … LIMIT 1 walks the index from its end and stops at the first row still present.
 */

/** Newest created_at stored (text max, through the created_at index); null when empty. */
export function newestCreatedAt(db: Db, stream: StreamDefinition): string | null {
  return newest(db, stream, 'created_at') as string | null;
}

/** Newest updated_at stored; the customers watermark. */
export function newestUpdatedAt(db: Db, stream: StreamDefinition): string | null {
  return newest(db, stream, 'updated_at') as string | null;
}

export function maxStoredId(db: Db, stream: StreamDefinition): number | null {
  return newest(db, stream, 'id') as number | null;
}

function newest(db: Db, stream: StreamDefinition, column: 'id' | 'created_at' | 'updated_at'): string | number | null {
  const sql = `SELECT ${column} FROM ${stream.name} WHERE ${column} IS NOT NULL AND _removed_at IS NULL ORDER BY ${column} DESC LIMIT 1`;
  return (db.prepare(sql).pluck().get() as string | number | undefined) ?? null;
}

/** The stored ids around a window starting at `createdFrom`, for `sinceIdForWindow`. */
export function windowIds(db: Db, stream: StreamDefinition, createdFrom: string | null): WindowIds {
  const maxId = maxStoredId(db, stream);
  const fromMicros = createdFrom === null ? null : isoToMicrosNumber(createdFrom);
  if (maxId === null || fromMicros === null) return { firstIdInWindow: null, storedIdBelow: null, maxStoredId: maxId };
  // Stored created_at is the API's text, in whatever ISO 8601 form it chose (07:00-05:00 is 12:00Z), so
  // text order is not time order. The index narrows by the date alone, a day earlier than any offset can
  // move it, whatever separates date and time; iso_micros (see openDatabase) decides.
  const narrowFromDate = new Date(Math.floor(fromMicros / 1000) - ANY_UTC_OFFSET_MS).toISOString().slice(0, 10);
  const first =
    (db
      .prepare(`SELECT min(id) FROM ${stream.name} WHERE created_at >= ? AND iso_micros(created_at) >= ? AND _removed_at IS NULL`)
      .pluck()
      .get(narrowFromDate, fromMicros) as number | null) ?? null;
  const below = first === null ? null : ((db.prepare(`SELECT id FROM ${stream.name} WHERE id < ? AND _removed_at IS NULL ORDER BY id DESC LIMIT 1`).pluck().get(first) as number | undefined) ?? null);
  return { firstIdInWindow: first, storedIdBelow: below, maxStoredId: maxId };
}

/** Where the stream stands, for `status` and export manifests: max id, newest updated_at, or nothing for a walk. */
export function watermarkOf(db: Db, stream: StreamDefinition): string | null {
  switch (stream.strategy.kind) {
    case 'since-id': {
      const id = maxStoredId(db, stream);
      return id === null ? null : String(id);
    }
    case 'updated-at':
      return newestUpdatedAt(db, stream);
    case 'full-walk':
      return null;
  }
}
