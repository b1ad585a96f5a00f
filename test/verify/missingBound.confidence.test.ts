import { describe, expect, it } from 'vitest';
import { missingBound } from '../../src/verify/index.js';
import { describeMissing } from '../../src/verify/renderReport.js';
import { IdSpans } from '../../src/sync/idSpans.js';

describe('the missing bound', () => {
  it('is the rule of three when nothing is missing, and reads as the issue shows it', () => {
    expect(missingBound(0, 9500)).toBeCloseTo(3 / 9500, 12);
    const line = describeMissing({
      stream: 'transactions', compared: 9500, missing: [], extra: [], stale: [], missing_count: 0, extra_count: 0, stale_count: 0, defects: 0, pending: { count: 0, rows: [] }, unsynced: 0, missing_bound: missingBound(0, 9500),
    });
    expect(line).toBe('0 of 9,500 compared missing (< 0.032% at 95%)');
  });

  it('is the one-sided Clopper-Pearson bound when rows are missing', () => {
    // Reference values: the 0.95 quantile of Beta(k + 1, n - k).
    expect(missingBound(1, 100)).toBeCloseTo(0.046560, 5);
    expect(missingBound(10, 1000)).toBeCloseTo(0.016903, 5);
    expect(missingBound(5, 5)).toBe(1);
    expect(missingBound(0, 0)).toBeNull();
  });
});

describe('id spans', () => {
  it('merge touching pages and list the gaps no page covered', () => {
    const spans = new IdSpans();
    spans.add(1, 500);
    spans.add(501, 1000);
    spans.add(1003, 1500);
    spans.add(20, 30);
    expect([spans.covers(0), spans.covers(1), spans.covers(1000), spans.covers(1001), spans.covers(1003)]).toEqual([false, true, true, false, true]);
    expect(spans.gaps()).toEqual([
      { above: null, below: 1 },
      { above: 1000, below: 1003 },
      { above: 1500, below: null },
    ]);
    spans.add(990, 1010);
    expect(spans.gaps()).toEqual([
      { above: null, below: 1 },
      { above: 1500, below: null },
    ]);
  });
});
