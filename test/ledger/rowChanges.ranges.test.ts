import { describe, expect, it } from 'vitest';
import { rangesOf } from '../../src/ledger/rowChanges.js';

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
});
