import { isoToMicros, microsToMillis } from '../isoTimestamp.js';

/** Every offset of a present-day time zone is a whole number of quarter hours, so a day never starts inside one. */
const QUARTER_HOUR_MS = 15 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The calendar day (`YYYY-MM-DD`) in `timeZone` of an ISO 8601 timestamp, or null when the text is none.
 * Intl is slow next to a million rows, so the day is computed once per quarter hour of UTC and cached:
 * within a quarter hour the local date cannot change, DST switches included.
 */
export function createLocalDay(timeZone: string): (timestamp: string | null) => string | null {
  const cache = new Map<number, string>();
  const dayOfInstant = dayFormatter(timeZone);
  return (timestamp) => {
    if (timestamp === null) return null;
    const micros = isoToMicros(timestamp);
    if (micros === null) return null;
    const quarter = Math.floor(microsToMillis(micros) / QUARTER_HOUR_MS);
    let day = cache.get(quarter);
    if (day === undefined) {
      day = dayOfInstant(quarter * QUARTER_HOUR_MS);
      cache.set(quarter, day);
    }
    return day;
  };
}

/** `YYYY-MM-DD` of the instant `ms` in `timeZone`. */
export function dayFormatter(timeZone: string): (ms: number) => string {
  // en-CA writes dates as YYYY-MM-DD.
  const format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  return (ms) => format.format(ms);
}

/** The day `count` days after `day` (before it when negative), on the calendar alone. */
export function addDays(day: string, count: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + count * DAY_MS).toISOString().slice(0, 10);
}

/** Days from `from` to `to`, both included, in order; empty when `to` is before `from`. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) days.push(day);
  return days;
}

/** Whether `text` is a real calendar date written `YYYY-MM-DD`. */
export function isCalendarDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const parsed = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(parsed) && new Date(parsed).toISOString().slice(0, 10) === text;
}

/** The day before every day a rebuild can start from: a full build. */
export const BEFORE_ALL_DAYS = '0000-01-01';

/**
 * Text no smaller than any ISO timestamp whose day (in any zone) is `from` or later, to narrow a scan by the
 * `created_at` index before the exact day is computed: a written offset moves the date in the text by less than
 * a day from UTC, and the zone's day by less than another.
 */
export function createdAtLowerBound(from: string): string {
  return from <= '0001-01-03' ? '' : addDays(from, -2);
}

/**
 * How a rebuild from `from` reads the transactions: whole, in table order, for a full build (walking an index would
 * fetch every row at random, several times slower), else by the `created_at` index, which holds the days rebuilt.
 */
export function transactionsScan(from: string): string {
  return from === BEFORE_ALL_DAYS ? 'transactions NOT INDEXED' : 'transactions INDEXED BY transactions_created_at';
}
