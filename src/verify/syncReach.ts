import type { Config } from '../config.js';
import type { Db } from '../db/open.js';
import type { ApiRecord } from '../db/upsertRecords.js';
import { isoToMicros } from '../isoTimestamp.js';
import type { StreamDefinition } from '../streams/index.js';
import { newestCreatedAt, newestUpdatedAt, windowIds } from '../sync/storedFacts.js';
import { overlapStart, sinceIdForWindow, updatedAtMin } from '../sync/watermarks.js';
import type { StoredRow } from './mirrorRows.js';

/**
 * Which differences are `unsynced`: rows that appeared or changed after the stream's last sync, which
 * the next incremental sync reads by itself. Decided from the stored watermarks, with the sync's own
 * arithmetic, so a healthy mirror of a live program verifies clean:
 * - since_id streams: ids above where the next sync starts (its overlap included);
 * - customers: updated_at at or after where the next sync starts;
 * - orders: also updated_at after the newest one stored (a refund, a cancellation);
 * - activities: also a pending activity the API shows decided (the one change the stream knows without a time);
 * - unsubscribes: the list has no order and no time, and every sync reads it whole, so an address the
 *   mirror lacks is unsynced; an address the mirror still shows is unsynced only if the last complete walk saw it.
 * Built before any repair, since repairs move the watermarks.
 */
export interface SyncReach {
  /** The API's `record` differs from the mirror's `stored` (or the mirror lacks it) because it is newer than the last sync. */
  unsynced(record: ApiRecord, stored: StoredRow | undefined): boolean;
  /** The mirror's `row` is not in the API because it left after the last sync. */
  goneSinceSync(row: StoredRow): boolean;
}

export function syncReachOf(db: Db, stream: StreamDefinition, settings: Config['sync']): SyncReach {
  switch (stream.strategy.kind) {
    case 'full-walk': {
      const lastWalk =
        (db.prepare("SELECT started_at FROM sync_runs WHERE stream = ? AND status = 'succeeded' ORDER BY id DESC LIMIT 1").pluck().get(stream.name) as
          | string
          | undefined) ?? null;
      return {
        unsynced: () => true,
        goneSinceSync: (row) => lastWalk !== null && row.lastSeenAt !== null && row.lastSeenAt >= lastWalk,
      };
    }
    case 'updated-at': {
      const from = micros(updatedAtMin(newestUpdatedAt(db, stream), settings.updatedAtOverlapMinutes) ?? null);
      return {
        unsynced: (record) => from === null || (micros(record.updated_at) ?? -Infinity) >= from,
        goneSinceSync: () => false,
      };
    }
    case 'since-id': {
      const newest = newestCreatedAt(db, stream);
      const sinceId = newest === null ? 0 : sinceIdForWindow(windowIds(db, stream, overlapStart(newest, settings.idOverlapHours)));
      const changedAfter = stream.columns.some((column) => column.name === 'updated_at') ? micros(newestUpdatedAt(db, stream)) : null;
      const decides = stream.columns.some((column) => column.name === 'state');
      return {
        unsynced(record, stored) {
          if (typeof record.id === 'number' && record.id > sinceId) return true;
          if (stored === undefined || stored.removed) return false;
          if (changedAfter !== null && (micros(record.updated_at) ?? -Infinity) > changedAfter) return true;
          return decides && record.state !== 'pending' && storedState(stored) === 'pending';
        },
        goneSinceSync: () => false,
      };
    }
  }
}

function micros(value: unknown): number | null {
  return typeof value === 'string' ? isoToMicros(value) : null;
}

function storedState(row: StoredRow): unknown {
  try {
    return (JSON.parse(row.raw) as { state?: unknown }).state;
  } catch {
    return undefined;
  }
}
