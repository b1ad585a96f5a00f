import { afterEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import { createRecordStore } from '../../src/db/recordStore.js';
import { nextChangeSeq } from '../../src/db/upsertRecords.js';
import { getStream } from '../../src/streams/index.js';
import { markAbsentRemoved, noteAbsentRows, noteRowsOutsideSpans } from '../../src/sync/deepAbsent.js';
import { IdSpans } from '../../src/sync/idSpans.js';
import { freshMirror } from '../helpers/tempDir.js';

const AT = '2026-03-01T12:00:00.000Z';
const opened: Db[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

/** A mirror holding orders `ids`, as a first sync leaves it. */
function mirrorOf(ids: readonly number[]): Db {
  const { db } = freshMirror();
  opened.push(db);
  createRecordStore(db)(getStream('orders'))(ids.map((id) => ({ id, name: `#${id}` })), nextChangeSeq(db), AT);
  return db;
}

/** A whole deep refresh of orders reading `pages` in order, as storeGroup runs one; returns the ids it marked removed. */
function refresh(db: Db, pages: readonly number[][]): number[] {
  const stream = getStream('orders');
  const spans = new IdSpans();
  const upsert = createRecordStore(db)(stream);
  db.transaction(() => {
    for (const page of pages) {
      const items = page.map((id) => ({ id, name: `#${id}` }));
      upsert(items, nextChangeSeq(db), AT);
      noteAbsentRows(db, stream, items, spans);
    }
    noteRowsOutsideSpans(db, stream, spans);
    markAbsentRemoved(db, stream, AT, nextChangeSeq(db));
  })();
  return db.prepare('SELECT id FROM orders WHERE _removed_at IS NOT NULL ORDER BY id').pluck().all() as number[];
}

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

describe('the rows a deep refresh finds absent', () => {
  it('leave out every row a page returned, though a later page spans it (the issue\'s pages)', () => {
    const db = mirrorOf([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(refresh(db, [[1, 2, 3], [5, 6], [4, 7, 8]])).toEqual([]);
  });

  it('are exactly the rows on no page, whatever order pages overlapping both ways and interleaving late ids come in', () => {
    // Gone from the API: 5, inside one of two overlapping spans; 8, between spans; 11, inside two overlapping spans.
    const pages = [[1, 2, 4], [3, 6, 7], [9, 12], [10, 13]];
    for (const order of permutations(pages)) {
      const db = mirrorOf([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
      expect({ order, removed: refresh(db, order) }).toEqual({ order, removed: [5, 8, 11] });
    }
  });

  it('are un-noted when a later page returns them', () => {
    // The first page's span covers 5 and 6 without returning them; the second returns them.
    const db = mirrorOf([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(refresh(db, [[4, 7, 8], [5, 6], [1, 2, 3]])).toEqual([]);
  });
});

describe('the ground a page is the first to cover', () => {
  it('is its whole span past the last one, and the holes between earlier spans inside it', () => {
    const spans = new IdSpans();
    expect(spans.uncovered(5, 9)).toEqual([[5, 9]]);
    spans.add(5, 9);
    spans.add(20, 30);
    expect(spans.uncovered(31, 40)).toEqual([[31, 40]]);
    expect(spans.uncovered(1, 40)).toEqual([[1, 4], [10, 19], [31, 40]]);
    expect(spans.uncovered(6, 25)).toEqual([[10, 19]]);
    expect(spans.uncovered(21, 29)).toEqual([]);
    expect(spans.uncovered(9, 20)).toEqual([[10, 19]]);
    expect(spans.uncovered(1, 3)).toEqual([[1, 3]]);
  });
});
