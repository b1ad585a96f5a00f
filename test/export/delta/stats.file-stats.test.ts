import { describe, expect, it } from 'vitest';
import type { ColumnBatch } from '../../../src/export/columnBatches.js';
import { FileStatsCollector } from '../../../src/export/delta/stats.js';
import { deltaColumns } from '../../../src/export/delta/tableSchema.js';

const columns = deltaColumns([
  { name: 'id', type: 'text' },
  { name: 'points', type: 'integer' },
  { name: 'created_at', type: 'timestamp' },
  { name: 'total', type: 'decimal' },
  { name: 'active', type: 'boolean' },
]);

function text(values: Array<string | null>): ColumnBatch['columns'][number] {
  const parts = values.map((value) => (value === null ? null : Buffer.from(value, 'utf8')));
  return { kind: 'text', bytes: Buffer.concat(parts.filter((part) => part !== null)), lengths: parts.map((part) => (part === null ? null : part.length)) };
}

describe('the stats of a Delta data file', () => {
  it('counts rows and nulls, takes min and max of longs and timestamps, and orders text ids as UTF-8 bytes', () => {
    const collector = new FileStatsCollector(columns);
    collector.observe({
      length: 3,
      columns: [
        text(['b@example.com', 'é@example.com', null]),
        { kind: 'values', values: [5, '-7', null] },
        { kind: 'values', values: ['2026-11-25T10:00:00.123456Z', '2026-11-25T09:00:00+02:00', 'not a time'] },
        text(['1.50', null, '12345678901234567890.123456789']),
        { kind: 'values', values: [1, null, 0] },
      ],
    });
    collector.observe({ length: 1, columns: [text(['a@example.com']), { kind: 'values', values: ['x'] }, { kind: 'values', values: [null] }, text([null]), { kind: 'values', values: [null] }] });
    expect(collector.stats()).toEqual({
      numRecords: 4,
      // "é" (0xC3 0xA9) sorts after every ASCII letter, as Spark and Parquet compare strings.
      minValues: { id: 'a@example.com', points: -7, created_at: '2026-11-25T07:00:00.000Z' },
      // Both truncated down to the millisecond, as PROTOCOL.md says: readers widen a maximum by 1 ms themselves.
      maxValues: { id: 'é@example.com', points: 5, created_at: '2026-11-25T10:00:00.123Z' },
      // A value the encoder writes as null (an unparseable timestamp, a non-integer) counts as null.
      nullCount: { id: 1, points: 2, created_at: 2, total: 2, active: 2 },
    });
  });

  it('takes min and max of timestamps from year 0001 to 9999 exactly, truncated down to the millisecond', () => {
    const collector = new FileStatsCollector(columns);
    const times = ['9999-12-31T23:59:59.999999Z', '1650-06-15T08:30:00Z', '0001-01-01T00:00:00.000999Z', '1969-12-31T23:59:59.999999Z'];
    collector.observe({
      length: times.length,
      columns: [text(times.map((_, i) => `c${i}`)), { kind: 'values', values: times.map(() => null) }, { kind: 'values', values: times }, text(times.map(() => null)), { kind: 'values', values: times.map(() => null) }],
    });
    const stats = collector.stats();
    expect([stats.minValues.created_at, stats.maxValues.created_at, stats.nullCount.created_at]).toEqual(['0001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z', 0]);

    // Before 1970 "down" is towards the past: -1 µs is in the millisecond that starts 1 ms before the epoch.
    const beforeEpoch = new FileStatsCollector(columns);
    beforeEpoch.observe({ length: 1, columns: [text(['x']), { kind: 'values', values: [null] }, { kind: 'values', values: [times[3]] }, text([null]), { kind: 'values', values: [null] }] });
    expect(beforeEpoch.stats().maxValues.created_at).toBe('1969-12-31T23:59:59.999Z');
  });

  it('gives no min or max for a column with only nulls, and none for text ids longer than 32 characters', () => {
    const collector = new FileStatsCollector(columns);
    const long = `${'x'.repeat(40)}@example.com`;
    collector.observe({ length: 1, columns: [text([long]), { kind: 'values', values: [null] }, { kind: 'values', values: [null] }, text([null]), { kind: 'values', values: [null] }] });
    const stats = collector.stats();
    expect(stats.minValues).toEqual({});
    expect(stats.maxValues).toEqual({});
    expect(stats.nullCount).toEqual({ id: 0, points: 1, created_at: 1, total: 1, active: 1 });
  });
});
