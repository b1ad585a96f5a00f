import type { Db } from '../db/open.js';

/**
 * ledger_row_changes: the rows of a model table each ledger update wrote or deleted, as a range of rowids under the
 * change counter value it took, so an export writes the model's Delta table incrementally, as it does a stream's by
 * `_change_seq`. Only customer_points_daily is large enough to need it; the daily tables are written whole.
 */
export const TRACKED_MODELS: readonly string[] = ['customer_points_daily'];

/** Rowids of a model's rows, both ends included. */
export interface RowidRange {
  first: number;
  last: number;
}

/** Notes kept a model before the oldest are folded into one note of every row (see noteRowChanges). */
const MAX_NOTES = 10_000;
const NOTES_KEPT_ON_FOLD = 5_000;

/**
 * Notes that `model`'s rows in `ranges` changed under `changeSeq`, or every row (a full build, which also makes every
 * older note moot). The counter is moved up to `changeSeq`: an export whose snapshot came before this update reflects
 * a lower value, so its next export finds the note newer and writes those rows. Past MAX_NOTES, the oldest notes
 * become one note of every row under the newest change they held: a place whose table reflects less than that
 * (one not exported for months) is written whole, the others are unaffected.
 */
export function noteRowChanges(db: Db, model: string, changeSeq: number, ranges: readonly RowidRange[] | 'every'): void {
  if (ranges === 'every') db.prepare('DELETE FROM ledger_row_changes WHERE model = ?').run(model);
  else if (ranges.length === 0) return;
  const insert = db.prepare('INSERT INTO ledger_row_changes (model, change_seq, first_rowid, last_rowid) VALUES (?, ?, ?, ?)');
  if (ranges === 'every') insert.run(model, changeSeq, null, null);
  else for (const range of ranges) insert.run(model, changeSeq, range.first, range.last);
  db.prepare('UPDATE change_counter SET value = max(value, ?) WHERE id = 1').run(changeSeq);
  const notes = db.prepare('SELECT count(*) FROM ledger_row_changes WHERE model = ?').pluck().get(model) as number;
  if (notes > MAX_NOTES) foldOldestNotes(db, model);
}

/** Replaces the notes older than the newest NOTES_KEPT_ON_FOLD by one note of every row, under the newest change they held. */
function foldOldestNotes(db: Db, model: string): void {
  const through = db
    .prepare('SELECT change_seq FROM ledger_row_changes WHERE model = ? ORDER BY change_seq DESC LIMIT 1 OFFSET ?')
    .pluck()
    .get(model, NOTES_KEPT_ON_FOLD) as number;
  db.prepare('DELETE FROM ledger_row_changes WHERE model = ? AND change_seq <= ?').run(model, through);
  db.prepare('INSERT INTO ledger_row_changes (model, change_seq, first_rowid, last_rowid) VALUES (?, ?, NULL, NULL)').run(model, through);
}

/**
 * The rowids as ranges, a new one wherever two neighbours lie more than `gap` apart: rows changed far apart (one
 * customer's days across a year, after a backdated transaction) then mark the files holding them, not every file
 * between, while a day's changed rows, close together, stay a few notes. Empty for no rowids.
 */
export function rangesOf(rowids: readonly number[], gap: number): RowidRange[] {
  const sorted = Float64Array.from(rowids).sort();
  const ranges: RowidRange[] = [];
  for (const rowid of sorted) {
    const last = ranges.at(-1);
    if (last !== undefined && rowid - last.last <= gap) last.last = rowid;
    else ranges.push({ first: rowid, last: rowid });
  }
  return ranges;
}

/**
 * The rows of `model` changed since the change counter stood at `afterSeq`: `'every'` when it was rebuilt whole since,
 * when an older version updated the tables without noting (ledger_state's built_at is not the notes_built_at this
 * version wrote beside it), or for a model this does not track; else the ranges noted since, in no order (none: no
 * row changed).
 */
export function modelRowChanges(db: Db, model: string, afterSeq: number): RowidRange[] | 'every' {
  if (!TRACKED_MODELS.includes(model) || updatedWithoutNotes(db)) return 'every';
  const notes = db.prepare('SELECT first_rowid AS first, last_rowid AS last FROM ledger_row_changes WHERE model = ? AND change_seq > ?').all(model, afterSeq) as Array<{
    first: number | null;
    last: number | null;
  }>;
  const ranges: RowidRange[] = [];
  for (const { first, last } of notes) {
    if (first === null || last === null) return 'every';
    ranges.push({ first, last });
  }
  return ranges;
}

/** Whether the last build of the ledger was by a version that keeps no notes (see migration 021). */
export function updatedWithoutNotes(db: Db): boolean {
  const state = db.prepare('SELECT built_at AS built, notes_built_at AS noted FROM ledger_state WHERE id = 1').get() as { built: string; noted: string | null } | undefined;
  return state !== undefined && state.noted !== state.built;
}
