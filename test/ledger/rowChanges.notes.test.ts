import { describe, expect, it } from 'vitest';
import { modelRowChanges, noteRowChanges, rangesOf } from '../../src/ledger/rowChanges.js';
import { freshMirror } from '../helpers/tempDir.js';

const MODEL = 'customer_points_daily';

describe("the rowid ranges a ledger update notes for customer_points_daily's Delta table", () => {
  it('joins rowids up to the gap apart, in rowid order, and splits where they lie further apart', () => {
    expect(rangesOf([], 100)).toEqual([]);
    expect(rangesOf([7], 100)).toEqual([{ first: 7, last: 7 }]);
    expect(rangesOf([350, 5, 105, 1, 9_007_199_254_740_991], 100)).toEqual([
      { first: 1, last: 105 },
      { first: 350, last: 350 },
      { first: 9_007_199_254_740_991, last: 9_007_199_254_740_991 },
    ]);
  });

  it('past 10,000 notes, folds the oldest into one of every row: a table that far behind is written whole, one less behind as noted', () => {
    const { db } = freshMirror();
    const base = db.prepare('SELECT value FROM change_counter WHERE id = 1').pluck().get() as number;
    db.transaction(() => {
      for (let update = 1; update <= 10_001; update += 1) noteRowChanges(db, MODEL, base + update, [{ first: update, last: update }]);
    })();
    const notes = db.prepare('SELECT count(*) FROM ledger_row_changes WHERE model = ?').pluck().get(MODEL) as number;
    // The migration's note and 10,000 updates pass 10,000: all but the newest 5,000 fold into one note; one update follows.
    expect(notes).toBe(5_002);
    expect(db.prepare('SELECT value FROM change_counter WHERE id = 1').pluck().get()).toBe(base + 10_001);
    // The fold took the notes of the first 5,000 updates: a table reflecting less than the 5,000th is written whole...
    expect(modelRowChanges(db, MODEL, base + 10)).toBe('every');
    expect(modelRowChanges(db, MODEL, base + 4_999)).toBe('every');
    // ...one reflecting it gets exactly the rows of every update after it, and one nearly current those of the last three.
    const sorted = (changes: ReturnType<typeof modelRowChanges>): unknown => (changes === 'every' ? changes : [...changes].sort((a, b) => a.first - b.first));
    expect(sorted(modelRowChanges(db, MODEL, base + 5_000))).toEqual(Array.from({ length: 5_001 }, (_, i) => ({ first: 5_001 + i, last: 5_001 + i })));
    expect(sorted(modelRowChanges(db, MODEL, base + 9_998))).toEqual([
      { first: 9_999, last: 9_999 },
      { first: 10_000, last: 10_000 },
      { first: 10_001, last: 10_001 },
    ]);
    db.close();
  });
});
