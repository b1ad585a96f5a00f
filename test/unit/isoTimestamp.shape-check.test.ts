import { expect, it } from 'vitest';
import { isIsoTimestamp, isoToMicros } from '../../src/isoTimestamp.js';

const SAMPLES = [
  '2026-03-01T12:00:00.000Z', '2026-03-01T12:00:00Z', '2026-03-01T12:00:00.123456Z', '2026-03-01T12:00:00.1234569Z', '2026-03-01T12:00:00.5+02:00',
  '2026-03-01T12:00-0130', '2026-03-01 12:00:00', '2024-02-29', '1969-12-31T23:59:59.999999Z', '0050-01-01T00:00:00Z', '2026-03-01T12:00:00+0000',
  '2026-03-01T17:00:00+05', '2026-03-01t12:00:00z', '2026-03-01 12:00:00,25Z', '', 'yesterday', '2026-13-01', '2026-01-01T24:00:00Z', '2026-01-01T12:60Z',
  '2026-01-01T12:00:00.Z', '2026-01-01T12:00:00ZZ', '2026-01-01T12:00:00+2', '2026-01-01T12:00:00+123', '2026-01-01T12:00:00+24', '2026-01-01T12:00:00+05:60',
  '2026-01-01T12:00:00+05:', '2026-01-01T12:00:00,Z', '2026-01-01x12:00:00Z', '2026-1-01', '20260101', '2026-03-01-05', '2026-03-01Z', '2026-03-01+05:00',
  '2026-01-01T12:00:00.1234567890Z', '@SUM(1+1)', '=2026-01-01', '2026-01-01T12:00:00Z\n=cmd',
  // The days past the 28th, in months that have them or not, leap years included.
  '2026-02-29', '2026-02-30T10:00:00Z', '2026-02-31T12:00:00.000Z', '2028-02-29T00:00:00Z', '2100-02-29', '2000-02-29T23:59:59Z', '2026-04-31T08:00:00Z',
  '2026-04-30T08:00:00Z', '2026-01-31T08:00:00Z', '2026-12-31T23:59:59.999Z', '2026-11-31', '2026-06-31 12:00:00',
];

it('the sync\'s shape check accepts exactly what the parser reads, the length of each month included', () => {
  for (const text of SAMPLES) expect(isIsoTimestamp(text), JSON.stringify(text)).toBe(isoToMicros(text) !== null);
  expect(SAMPLES.filter((text) => text.slice(4, 8) === '-02-' && text.slice(8, 10) > '28').map(isIsoTimestamp)).toEqual([true, false, false, false, true, false, true]);
});
