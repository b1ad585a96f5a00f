import type { Db } from '../db/open.js';
import { createRecordStore } from '../db/recordStore.js';
import { nextChangeSeq, type ApiRecord } from '../db/upsertRecords.js';
import type { StreamDefinition } from '../streams/index.js';
import { watermarkOf } from '../sync/storedFacts.js';
import type { MirrorId, RepairCounts } from './types.js';

/** Applies what verify found to one stream of the mirror; never deletes a row. */
export interface Repairer {
  /** Stores missing and stale records exactly as the sync does (same mapping, `_change_seq` bumped). */
  store(records: readonly ApiRecord[]): void;
  /** Marks rows the API does not have with `_removed_at`. */
  markRemoved(ids: readonly MirrorId[]): void;
  /** Sets the stored watermark to what the rows still present say; returns it when it moved. */
  correctWatermark(): { from: string | null; to: string | null } | null;
  readonly counts: RepairCounts;
}

/** Marks per transaction, so a long list of extras does not hold the write lock in one go. */
const MARKS_PER_TRANSACTION = 1000;

/**
 * `signal` aborts with the writer lock: a repair judged before another process took the mirror over must
 * not land after it, so every write checks it first.
 */
export function createRepairer(db: Db, stream: StreamDefinition, clock: () => Date, signal: AbortSignal): Repairer {
  const upsert = createRecordStore(db)(stream);
  const walk = stream.strategy.kind === 'full-walk';
  // An unsubscribe verify finds gone has left the list: both of its marks say so.
  const mark = db.prepare(
    `UPDATE ${stream.name} SET _removed_at = @at, ${walk ? 'removed_at = coalesce(removed_at, @at), ' : ''}_synced_at = @at, _change_seq = @seq
     WHERE id = @id AND _removed_at IS NULL`,
  );
  const counts: RepairCounts = { inserted: 0, updated: 0, removed: 0 };
  return {
    counts,
    store(records) {
      if (records.length === 0) return;
      signal.throwIfAborted();
      const result = db.transaction(() => upsert(records, nextChangeSeq(db), clock().toISOString()))();
      counts.inserted += result.inserted;
      counts.updated += result.updated;
    },
    markRemoved(ids) {
      for (let from = 0; from < ids.length; from += MARKS_PER_TRANSACTION) {
        signal.throwIfAborted();
        db.transaction(() => {
          const seq = nextChangeSeq(db);
          const at = clock().toISOString();
          for (const id of ids.slice(from, from + MARKS_PER_TRANSACTION)) counts.removed += mark.run({ id, at, seq }).changes;
        })();
      }
    },
    correctWatermark() {
      signal.throwIfAborted();
      const from = (db.prepare('SELECT watermark FROM sync_state WHERE stream = ?').pluck().get(stream.name) as string | null | undefined) ?? null;
      const to = watermarkOf(db, stream);
      if (from === null || from === to) return null;
      db.prepare('UPDATE sync_state SET watermark = ?, updated_at = ? WHERE stream = ?').run(to, clock().toISOString(), stream.name);
      return { from, to };
    },
  };
}
