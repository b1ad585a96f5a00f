import { expect, it } from 'vitest';
import { createLocalDay } from '../../src/ledger/localDay.js';

/**
 * The day of a timestamp in the form the API writes is taken from a cache keyed by its minute; every text, in that
 * form or not, must still get the day of the instant it names, and an invalid one none.
 */
const ZONE = 'America/New_York';
const format = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' });

it('gives every timestamp the day of its instant in the zone, through the minute cache or not, and invalid text none', () => {
  const localDay = createLocalDay(ZONE);
  // Around the spring change (2026-03-08 07:00Z) and a local midnight (05:00Z before it, 04:00Z after), the seconds
  // and fractions the API writes, each minute seen first in one form and then in the others.
  const valid = [
    '2026-03-08T06:59:59Z', '2026-03-08T06:59:59.999Z', '2026-03-08T07:00:00.000Z', '2026-03-08T07:00:00.123456Z', '2026-03-08T04:59:59.123456789Z',
    '2026-03-08T05:00:00Z', '2026-03-09T03:59:59.5Z', '2026-03-09T04:00:00Z', '2026-03-09T04:00:00.000000001Z', '2026-11-01T05:59:59Z', '2026-11-01T06:00:00Z',
    // Not the API's form: the same instants written otherwise take the parser's path.
    '2026-03-09T03:59:59+00:00', '2026-03-08T23:59:59-04:00', '2026-03-09 04:00:00Z', '2026-03-09T04:00Z', '2026-03-09t04:00:00z',
  ];
  for (const round of [1, 2]) {
    for (const text of valid) expect(localDay(text), `${text} (round ${round})`).toBe(format.format(new Date(Date.parse(text.replace(' ', 'T').replace('t', 'T').replace('z', 'Z')))));
  }
  // A valid minute first, then texts of that minute the parser refuses: their tails must not borrow its cached day.
  expect(localDay('2026-03-09T04:00:00Z')).toBe('2026-03-09');
  for (const text of ['2026-03-09T04:00:60Z', '2026-03-09T04:00:00.Z', '2026-03-09T04:00:00.1234567890Z', '2026-03-09T04:00:0aZ', '2026-03-09T04:00:00.12aZ', '2026-03-09T04:00:00ZZ', '2026-02-30T12:00:00Z', '2026-02-30T12:00:00Z', '2026-01-01T24:00:00Z']) {
    expect(localDay(text), text).toBeNull();
  }
  expect(localDay(null)).toBeNull();
});
