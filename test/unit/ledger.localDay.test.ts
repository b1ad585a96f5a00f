import { describe, expect, it } from 'vitest';
import { isoToMicros, microsToMillis } from '../../src/isoTimestamp.js';
import { addDays, createdAtLowerBound, createLocalDay } from '../../src/ledger/localDay.js';

const ZONES = ['UTC', 'America/New_York', 'Asia/Tokyo', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Asia/Kathmandu', 'Australia/Lord_Howe'];

/** A seeded generator, so a failure names inputs that can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return state / 2 ** 32;
  };
}

/** The day of a timestamp the slow way, with no cache and no shortcut: what local_day must equal. */
function referenceDay(timeZone: string, text: string): string | null {
  const micros = isoToMicros(text);
  if (micros === null) return null;
  let format = FORMATS.get(timeZone);
  if (format === undefined) FORMATS.set(timeZone, (format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })));
  return format.format(microsToMillis(micros));
}
const FORMATS = new Map<string, Intl.DateTimeFormat>();

/** `ms` written with a UTC offset of `minutes` (its wall time there, then ±HH:MM). */
function withOffset(ms: number, minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const whole = Math.abs(minutes);
  return `${new Date(ms + minutes * 60_000).toISOString().slice(0, 19)}${sign}${String(Math.floor(whole / 60)).padStart(2, '0')}:${String(whole % 60).padStart(2, '0')}`;
}

describe('local_day, the day of a timestamp in the program zone', () => {
  it("reads the API's own form exactly as any other form, days 29 to 31 and leap days included, and refuses what isoToMicros refuses", () => {
    const next = random(32);
    for (const zone of ZONES) {
      const localDay = createLocalDay(zone);
      for (let i = 0; i < 1500; i++) {
        const ms = Date.UTC(1970, 0, 1) + Math.floor(next() * (Date.UTC(2100, 0, 1) - Date.UTC(1970, 0, 1)));
        const text = new Date(ms).toISOString();
        expect(localDay(text), `${zone} ${text}`).toBe(referenceDay(zone, text));
      }
      const edges = ['2024-02-29T23:59:59.999Z', '2026-03-31T04:00:00.000Z', '2026-12-31T23:45:00.000Z', '2026-11-01T05:59:59.999Z', '2026-11-01T06:00:00.000Z', '1970-01-01T00:00:00.000Z'];
      // Kiritimati kept −10:40 until 1979: its days began at 10:40 UTC, inside a quarter hour.
      edges.push('1972-07-13T10:39:59.999Z', '1972-07-13T10:40:00.000Z', '1972-07-13T10:41:05.935Z', '1972-07-13T10:40:00+00:00');
      for (const text of edges) expect(localDay(text), `${zone} ${text}`).toBe(referenceDay(zone, text));
      for (const text of ['2026-02-29T10:00:00.000Z', '2026-04-31T10:00:00.000Z', '2026-13-01T10:00:00.000Z', '2026-00-10T10:00:00.000Z', '2026-03-10T24:00:00.000Z', '2026-03-10T10:60:00.000Z', '2026-03-10T10:00:60.000Z', '2026-03-10T10:00:00.00xZ', '2026-03-1aT10:00:00.000Z']) {
        expect(localDay(text), text).toBeNull();
      }
    }
  });

  it('narrows a scan to no text that falls on a day rebuilt, whatever offset the text is written with', () => {
    const next = random(7);
    for (const zone of ZONES) {
      const localDay = createLocalDay(zone);
      for (let i = 0; i < 600; i++) {
        const ms = Date.UTC(2020, 0, 1) + Math.floor(next() * (Date.UTC(2030, 0, 1) - Date.UTC(2020, 0, 1)));
        const minutes = Math.floor(next() * (2 * 1439 + 1)) - 1439;
        const texts = [withOffset(ms, minutes), new Date(ms).toISOString(), new Date(ms).toISOString().slice(0, 10), new Date(ms).toISOString().replace('T', ' ')];
        for (const text of texts) {
          const day = localDay(text);
          expect(day, text).not.toBeNull();
          // Every day up to the timestamp's own: each must keep the text in its scan.
          for (let back = 0; back < 3; back++) {
            const from = addDays(day as string, -back);
            expect(text >= createdAtLowerBound(from, localDay), `${zone}: ${text} is on ${day}, the scan from ${from} starts at ${createdAtLowerBound(from, localDay)}`).toBe(true);
          }
        }
      }
    }
  });

  it('reads one day before the first day rebuilt at or west of UTC, two east of it', () => {
    expect(createdAtLowerBound('2026-03-22', createLocalDay('UTC'))).toBe('2026-03-21');
    expect(createdAtLowerBound('2026-03-22', createLocalDay('America/New_York'))).toBe('2026-03-21');
    expect(createdAtLowerBound('2026-03-22', createLocalDay('Asia/Tokyo'))).toBe('2026-03-20');
    expect(createdAtLowerBound('0000-01-01', createLocalDay('UTC'))).toBe('');
  });
});
