import { driftExample } from '../drift/example.js';
import type { ColumnType, StreamDefinition } from '../streams/index.js';
import type { Db } from './open.js';
import { recordToRow, type MistypedValue } from './recordToRow.js';
import { sameJson } from './sameJson.js';
import { toJsonText } from '../jsonText.js';

export interface UpsertResult {
  inserted: number;
  updated: number;
  unchanged: number;
  /** Columns found missing in at least one record of the batch. */
  missingColumns: Set<string>;
  /** Per column whose value did not parse as its type (stored as NULL): the records it happened in, and the first such value. */
  mistypedColumns: Map<string, MistypedColumn>;
}

export interface MistypedColumn {
  /** The field's dotted path in the record (`total`, `customer.id`). */
  path: string;
  /** The column's type, which the values did not parse as. */
  type: ColumnType;
  /** Records of the batch with such a value. */
  count: number;
  /** The first such value, as a schema drift example (short, emails masked). */
  example: string;
}

function noteMistyped(result: UpsertResult, mistyped: readonly MistypedValue[]): void {
  for (const { column, value } of mistyped) {
    const seen = result.mistypedColumns.get(column.name);
    if (seen !== undefined) seen.count += 1;
    else result.mistypedColumns.set(column.name, { path: column.path.join('.'), type: column.type, count: 1, example: driftExample(value) });
  }
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
 * tombstone columns need their own statement). A row whose `raw` holds the same JSON (members in
 * any order) is left alone, so re-reading overlap windows neither rewrites rows nor marks them
 * changed for exports; a row that verify had marked removed (`_removed_at`) is back, which is news.
 * Call it inside a transaction.
 */
export function createUpserter(db: Db, stream: StreamDefinition): (records: readonly ApiRecord[], changeSeq: number, now: string) => UpsertResult {
  const names = ['id', ...stream.columns.map((column) => column.name), 'raw', '_synced_at', '_change_seq'];
  // New rows (the bulk of a first sync) cost one statement; only an id already stored costs a second one.
  const insert = db.prepare(`INSERT INTO ${stream.name} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')}) ON CONFLICT (id) DO NOTHING`);
  const update = db.prepare(
    `UPDATE ${stream.name} SET ${names.slice(1).map((name) => `${name} = ?`).join(', ')}, _removed_at = NULL
     WHERE id = ? AND (_removed_at IS NOT NULL OR (raw IS NOT ? AND NOT same_json(raw, ?)))`,
  );

  return (records, changeSeq, now) => {
    const result: UpsertResult = { inserted: 0, updated: 0, unchanged: 0, missingColumns: new Set(), mistypedColumns: new Map() };
    for (const record of records) {
      const { values, missing, mistyped } = recordToRow(stream, record);
      for (const name of missing) result.missingColumns.add(name);
      if (mistyped !== null) noteMistyped(result, mistyped);
      const raw = toJsonText(record);
      if (insert.run(record.id, ...values, raw, now, changeSeq).changes > 0) result.inserted += 1;
      else if (update.run(...values, raw, now, changeSeq, record.id, raw, raw).changes > 0) result.updated += 1;
      else result.unchanged += 1;
    }
    return result;
  };
}

/**
 * Upserts unsubscribe entries: `first_seen_at` is set once, `last_seen_at` every time an entry is
 * seen, and `removed_at` (with verify's `_removed_at`) is cleared when an address comes back. Only a changed record or a return
 * marks the row changed (`_change_seq`): being seen again is bookkeeping, not news for exports.
 * `updated` counts changed records and returns. Call it inside a transaction.
 */
export function createUnsubscribeUpserter(db: Db, stream: StreamDefinition): (records: readonly ApiRecord[], changeSeq: number, now: string) => UpsertResult {
  const typed = stream.columns.map((column) => column.name);
  const upsert = db.prepare(
    `INSERT INTO unsubscribes (id, ${typed.join(', ')}, first_seen_at, last_seen_at, removed_at, raw, _synced_at, _change_seq)
     VALUES (?, ${typed.map(() => '?').join(', ')}, ?, ?, NULL, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET
       ${typed.map((name) => `${name} = excluded.${name}`).join(', ')},
       last_seen_at = excluded.last_seen_at,
       _synced_at = CASE WHEN @changed THEN excluded._synced_at ELSE unsubscribes._synced_at END,
       _change_seq = CASE WHEN @changed THEN excluded._change_seq ELSE unsubscribes._change_seq END,
       raw = excluded.raw,
       removed_at = NULL,
       _removed_at = NULL`,
  );
  const current = db.prepare('SELECT raw, removed_at FROM unsubscribes WHERE id = ?');

  return (records, changeSeq, now) => {
    const result: UpsertResult = { inserted: 0, updated: 0, unchanged: 0, missingColumns: new Set(), mistypedColumns: new Map() };
    for (const record of records) {
      const { values, missing, mistyped } = recordToRow(stream, record);
      for (const name of missing) result.missingColumns.add(name);
      if (mistyped !== null) noteMistyped(result, mistyped);
      const raw = toJsonText(record);
      const before = current.get(record.id) as { raw: string; removed_at: string | null } | undefined;
      // A return, or a record whose JSON changed (members in any order), is news for exports.
      const changed = before !== undefined && ((before.raw !== raw && !sameJson(before.raw, raw)) || before.removed_at !== null);
      upsert.run(record.id, ...values, now, now, raw, now, changeSeq, { changed: changed ? 1 : 0 });
      if (before === undefined) result.inserted += 1;
      else if (changed) result.updated += 1;
      else result.unchanged += 1;
    }
    return result;
  };
}
