import { describe, expect, it } from 'vitest';
import { lookbackStart, overlapStart, refreshDue, shiftIso, sinceIdForWindow, updatedAtMin } from '../../src/sync/watermarks.js';

describe('watermark arithmetic', () => {
  it('shifts ISO timestamps and keeps the API form', () => {
    expect(shiftIso('2026-03-01T12:00:00.000Z', -90 * 60_000)).toBe('2026-03-01T10:30:00.000Z');
    expect(shiftIso('2026-03-01T12:00:00+02:00', 0)).toBe('2026-03-01T10:00:00.000Z');
    expect(shiftIso('not a time', 0)).toBeNull();
  });

  it('starts the id overlap idOverlapHours before the newest stored row', () => {
    expect(overlapStart('2026-03-01T12:00:00.000Z', 2)).toBe('2026-03-01T10:00:00.000Z');
    expect(overlapStart(null, 2)).toBeNull();
  });

  it('reads customers from the newest updated_at minus the overlap, or everything when empty', () => {
    expect(updatedAtMin('2026-03-01T12:00:00.000Z', 10)).toBe('2026-03-01T11:50:00.000Z');
    expect(updatedAtMin(null, 10)).toBeUndefined();
  });

  it('anchors the lookback window at the earlier of the clock and the newest stored row', () => {
    const now = new Date('2026-11-22T00:00:00.000Z');
    expect(lookbackStart(now, '2026-03-31T00:00:00.000Z', 30)).toBe('2026-03-01T00:00:00.000Z');
    expect(lookbackStart(now, '2027-01-01T00:00:00.000Z', 30)).toBe('2026-10-23T00:00:00.000Z');
    expect(lookbackStart(now, null, 1)).toBe('2026-11-21T00:00:00.000Z');
  });

  it('finds a refresh due when never done, or after the interval', () => {
    const now = new Date('2026-03-02T12:00:00.000Z');
    expect(refreshDue(null, now, 24)).toBe(true);
    expect(refreshDue('2026-03-01T12:00:00.000Z', now, 24)).toBe(true);
    expect(refreshDue('2026-03-01T12:00:01.000Z', now, 24)).toBe(false);
  });

  describe('since_id for a window', () => {
    it('is 0 for an empty table', () => {
      expect(sinceIdForWindow({ firstIdInWindow: null, storedIdBelow: null, maxStoredId: null })).toBe(0);
    });

    it('starts after the last stored row before the window, so unseen ids between it and the window are read', () => {
      // Stored: 100 (before the window), 105 and 110 (inside). Id 103, created inside the window, was not yet visible.
      expect(sinceIdForWindow({ firstIdInWindow: 105, storedIdBelow: 100, maxStoredId: 110 })).toBe(100);
    });

    it('reads from the start when every stored row is inside the window', () => {
      expect(sinceIdForWindow({ firstIdInWindow: 7, storedIdBelow: null, maxStoredId: 9 })).toBe(0);
    });

    it('falls back to the max stored id when no stored row has a usable created_at', () => {
      expect(sinceIdForWindow({ firstIdInWindow: null, storedIdBelow: null, maxStoredId: 42 })).toBe(42);
    });
  });
});
