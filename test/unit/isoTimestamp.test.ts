import { describe, expect, it } from 'vitest';
import { isoToMicros } from '../../src/isoTimestamp.js';

describe('isoToMicros', () => {
  const micros = (ms: number): bigint => BigInt(ms) * 1000n;

  it('reads the forms the API and the mirror use, to the microsecond', () => {
    expect(isoToMicros('2026-03-01T12:00:00.000Z')).toBe(micros(Date.UTC(2026, 2, 1, 12)));
    expect(isoToMicros('2026-03-01T12:00:00Z')).toBe(micros(Date.UTC(2026, 2, 1, 12)));
    expect(isoToMicros('2026-03-01T12:00:00.123456Z')).toBe(micros(Date.UTC(2026, 2, 1, 12)) + 123_456n);
    expect(isoToMicros('2026-03-01T12:00:00.1234569Z')).toBe(micros(Date.UTC(2026, 2, 1, 12)) + 123_456n);
    expect(isoToMicros('2026-03-01T12:00:00.5+02:00')).toBe(micros(Date.UTC(2026, 2, 1, 10)) + 500_000n);
    expect(isoToMicros('2026-03-01T12:00-0130')).toBe(micros(Date.UTC(2026, 2, 1, 13, 30)));
    expect(isoToMicros('2026-03-01 12:00:00')).toBe(micros(Date.UTC(2026, 2, 1, 12)));
    expect(isoToMicros('2024-02-29')).toBe(micros(Date.UTC(2024, 1, 29)));
    expect(isoToMicros('1969-12-31T23:59:59.999999Z')).toBe(-1n);
    expect(isoToMicros('0050-01-01T00:00:00Z')).toBe(micros(new Date('0050-01-01T00:00:00Z').getTime()));
  });

  it('is exact for every year 0001 to 9999, far beyond the 2^53 microseconds a number holds', () => {
    // Microseconds of 9999-12-31T23:59:59.999999Z and 0001-01-01T00:00:00.000001Z, as DuckDB's epoch_us gives them.
    expect(isoToMicros('9999-12-31T23:59:59.999999Z')).toBe(253_402_300_799_999_999n);
    expect(isoToMicros('0001-01-01T00:00:00.000001Z')).toBe(-62_135_596_799_999_999n);
    expect(isoToMicros('1650-06-15T08:30:00.000007+01:00')).toBe(micros(Date.UTC(1650, 5, 15, 7, 30)) + 7n);
  });

  it('reads the other ISO 8601 forms a server may write', () => {
    const noon = micros(Date.UTC(2026, 2, 1, 12));
    expect(isoToMicros('2026-03-01T12:00:00+0000')).toBe(noon);
    expect(isoToMicros('2026-03-01T17:00:00+05')).toBe(noon);
    expect(isoToMicros('2026-03-01T07:00:00-05')).toBe(noon);
    expect(isoToMicros('2026-03-01t12:00:00z')).toBe(noon);
    expect(isoToMicros('2026-03-01 12:00:00,25Z')).toBe(noon + 250_000n);
    // ISO 8601 sets no limit on a fraction's digits: past the sixth they are below a microsecond.
    expect(isoToMicros('2026-03-01T12:00:00.1234567891Z')).toBe(noon + 123_456n);
    expect(isoToMicros('2026-03-01T12:00:00.000000000000999+00:00')).toBe(noon);
  });

  it('refuses what is not a real instant', () => {
    for (const text of ['', 'yesterday', '2026-02-30', '2025-02-29T00:00:00Z', '2026-13-01', '2026-01-01T24:00:00Z', '2026-01-01T12:60Z', '2026-01-01T12:00:00.Z', '2026-01-01T12:00:00ZZ', '2026-01-01T12:00:00+2', '2026-01-01T12:00:00+123', '2026-01-01T12:00:00+24', '2026-01-01T12:00:00+05:60', '2026-01-01T12:00:00+05:', '2026-01-01T12:00:00,Z', '2026-01-01x12:00:00Z', '2026-1-01', '20260101', '2026-03-01-05', '2026-03-01Z', '2026-03-01+05:00']) {
      expect(isoToMicros(text), text).toBeNull();
    }
  });
});
