import type { StreamDefinition } from '../streams/index.js';
import type { Db } from './open.js';
import { recordToRow } from './recordToRow.js';

export interface UpsertResult {
  inserted: number;
  updated: number;
  unchanged: number;
  /** Columns found missing in at least one record of the batch. */
  missingColumns: Set<string>;
}

export interface ApiRecord {
  id: number | string;
  [field: string]: unknown;
}

/** Takes the next change sequence number; call inside the write transaction that uses it. */
export function nextChangeSeq(db: Db): number {
  const row = db.prepare('UPDATE change_counter SET value = value + 1 WHERE id = 1 RETURNING value').get() as { value: number };
  return row.value;
}

/**
 * Returns a function that upserts a batch of records of one stream (not unsubscribes, whose
 * tombstone columns need their own statement). A row whose `raw` is unchanged is left alone,
 * so re-reading overlap windows neither rewrites rows nor marks them changed for exports.
 * Call it inside a transaction.
 */
export function createUpserter(db: Db, stream: StreamDefinition): (records: readonly ApiRecord[], changeSeq: number, now: string) => UpsertResult {
  const names = ['id', ...stream.columns.map((column) => column.name), 'raw', '_synced_at', '_change_seq'];
  const assignments = names.filter((name) => name !== 'id').map((name) => `${name} = excluded.${name}`);
  const upsert = db.prepare(
    `INSERT INTO ${stream.name} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})
     ON CONFLICT (id) DO UPDATE SET ${assignments.join(', ')}
     WHERE ${stream.name}.raw IS NOT excluded.raw`,
  );
  const exists = db.prepare(`SELECT 1 FROM ${stream.name} WHERE id = ?`).pluck();

  return (records, changeSeq, now) => {
    const result: UpsertResult = { inserted: 0, updated: 0, unchanged: 0, missingColumns: new Set() };
    for (const record of records) {
      const { values, missing } = recordToRow(stream, record);
      for (const name of missing) result.missingColumns.add(name);
      const existed = exists.get(record.id) !== undefined;
      const { changes } = upsert.run(record.id, ...values, JSON.stringify(record), now, changeSeq);
      if (!existed) result.inserted += 1;
      else if (changes > 0) result.updated += 1;
      else result.unchanged += 1;
    }
    return result;
  };
}
