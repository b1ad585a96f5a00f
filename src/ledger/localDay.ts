import { daysFromCivil, daysInMonth, isoToMicros, microsToMillis } from '../isoTimestamp.js';

/** Every offset of a present-day time zone is a whole number of quarter hours, so a day never starts inside one. */
const QUARTER_HOUR_MS = 15 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
const QUARTERS_A_DAY = DAY_MS / QUARTER_HOUR_MS;
/** In the cache: a quarter hour in which a day starts (offsets of the past, such as Kiritimati's −10:40 until 1979). */
const DAY_STARTS_WITHIN = '';

/**
 * The first instant the ledger gives a day: no loyalty program has records of before 1970, so an older timestamp
 * is a zero date (`0001-01-01`) or another placeholder of a broken source, which would otherwise stretch the daily
 * tables over every day since (a build of millions of rows). Intl also writes years before 1000 without their
 * leading zeros, which would sort such a day after today.
 */
const EARLIEST_MS = 0;

/**
 * The first instant the ledger gives no day, the mirror image of EARLIEST_MS: year 9999 is the "never" placeholder
 * (a tier that never expires is `9999-12-31T23:59:59Z`), and an order, enrolment or transaction dated there would
 * stretch every daily table to it (2.9 million rows rewritten by every update), or past what a day's text can be
 * written as (an order of 31 December 9999 stopped every build). In microseconds for SQL.
 */
const LATEST_MS = Date.UTC(9999, 0, 1);
const LATEST_MICROS = BigInt(LATEST_MS) * 1000n;

/**
 * Whether local_day gives a `transactions` row's created_at a day, as an SQL expression (0 or 1) that needs no
 * zone: a text of 2 January 1970 to 30 December 9998 is between EARLIEST_MS and LATEST_MS whatever its offset, and
 * only the others and those dated past the 28th are read exactly (a mirror synced before the sync's check counted a month's days may
 * hold a 31 February). A created_at the sync could not read is stored NULL. The reconciliation counts what the
 * ledger counts with it.
 */
export const HAS_LEDGER_DAY_SQL = `CASE WHEN created_at >= '1970-01-02' AND created_at < '9998-12-31' AND substr(created_at, 9, 2) <= '28' THEN 1
  WHEN iso_micros(created_at) >= 0 AND iso_micros(created_at) < ${LATEST_MICROS} THEN 1 ELSE 0 END`;

/**
 * The calendar day (`YYYY-MM-DD`) in `timeZone` of an ISO 8601 timestamp from 1970 to 9998, or null when the text is
 * none, earlier or later.
 * Intl is slow next to a million rows, so the day is computed once per quarter hour of UTC and cached: within a
 * quarter hour the local date of a present-day zone cannot change, DST switches included. A quarter hour whose
 * first and last instants fall on different days is marked, and its timestamps get the day of their own instant
 * (this assumes a zone's date never goes back within a quarter hour, which no zone's history has done).
 */
export function createLocalDay(timeZone: string): (timestamp: string | null) => string | null {
  const cache = new Map<number, string>();
  const dayOfInstant = dayFormatter(timeZone);
  return (timestamp) => {
    if (timestamp === null) return null;
    let quarter = apiFormQuarter(timestamp);
    let ms: number | null = null;
    if (quarter === null) {
      const micros = isoToMicros(timestamp);
      if (micros === null) return null;
      ms = microsToMillis(micros);
      if (ms < EARLIEST_MS || ms >= LATEST_MS) return null;
      quarter = Math.floor(ms / QUARTER_HOUR_MS);
    }
    let day = cache.get(quarter);
    if (day === undefined) {
      const first = dayOfInstant(quarter * QUARTER_HOUR_MS);
      day = first === dayOfInstant((quarter + 1) * QUARTER_HOUR_MS - 1) ? first : DAY_STARTS_WITHIN;
      cache.set(quarter, day);
    }
    if (day !== DAY_STARTS_WITHIN) return day;
    // apiFormQuarter accepted only what isoToMicros reads.
    return dayOfInstant(ms ?? microsToMillis(isoToMicros(timestamp) as bigint));
  };
}

/** A character's digit value, or a value above 9 for any other character. */
function digitAt(text: string, at: number): number {
  return (text.charCodeAt(at) - 48) >>> 0;
}

/**
 * The quarter hour since 1970 of a timestamp in the API's own form, `YYYY-MM-DDTHH:MM:SS.sssZ` (JavaScript's
 * toISOString), or null for any other text (isoToMicros then reads it, the same way). The ledger computes a day for
 * every transaction of a build: this is written out character by character, with no Date, because loops, closures
 * and Date.UTC here cost a full build of a million transactions a tenth of its time. A quarter hour needs no seconds.
 */
function apiFormQuarter(text: string): number | null {
  if (
    text.length !== 24 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 84 || text.charCodeAt(13) !== 58 ||
    text.charCodeAt(16) !== 58 || text.charCodeAt(19) !== 46 || text.charCodeAt(23) !== 90
  ) {
    return null;
  }
  const y0 = digitAt(text, 0), y1 = digitAt(text, 1), y2 = digitAt(text, 2), y3 = digitAt(text, 3);
  const m0 = digitAt(text, 5), m1 = digitAt(text, 6), d0 = digitAt(text, 8), d1 = digitAt(text, 9);
  const h0 = digitAt(text, 11), h1 = digitAt(text, 12), n0 = digitAt(text, 14), n1 = digitAt(text, 15);
  const s0 = digitAt(text, 17), s1 = digitAt(text, 18);
  if (Math.max(y0, y1, y2, y3, m0, m1, d0, d1, h0, h1, n0, n1, s0, s1, digitAt(text, 20), digitAt(text, 21), digitAt(text, 22)) > 9) return null;
  const year = y0 * 1000 + y1 * 100 + y2 * 10 + y3;
  const month = m0 * 10 + m1;
  const day = d0 * 10 + d1;
  const hour = h0 * 10 + h1;
  const minute = n0 * 10 + n1;
  // Any field out of range is left to isoToMicros, and so are years before 1970 and year 9999, for no gain in reading
  // them here.
  if (year < 1970 || year > 9998 || month < 1 || month > 12 || day < 1 || (day > 28 && day > daysInMonth(year, month)) || hour > 23 || minute > 59 || s0 * 10 + s1 > 59) {
    return null;
  }
  return daysFromCivil(year, month, day) * QUARTERS_A_DAY + hour * 4 + Math.floor(minute / 15);
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
 * Text no smaller than any ISO timestamp whose day, by `localDay` (the zone's), is `from` or later: a scan by the
 * `created_at` index reads from it before the exact day is computed. Such a timestamp's instant is no earlier than
 * the zone's midnight starting `from`, and its text, written with any offset, shows a date at most a day before
 * that instant's UTC date. The midnight falls on `from`'s own UTC date at or west of UTC, on the day before east
 * of it; so the text is from the day before `from`, or two days before east of UTC. Which side is read from the
 * zone's day at `from`'s UTC midnight: this assumes the zone did not move from east of UTC to west of it between
 * its midnight and UTC midnight, which none has done (Paris, Algiers and Monaco in 1911 changed at midnight).
 */
export function createdAtLowerBound(from: string, localDay: (timestamp: string | null) => string | null): string {
  if (from <= '0001-01-03') return '';
  const lastMomentBefore = new Date(Date.parse(`${from}T00:00:00Z`) - 1).toISOString();
  const midnightOnItsUtcDate = (localDay(lastMomentBefore) ?? from) < from;
  return addDays(from, midnightOnItsUtcDate ? -1 : -2);
}

/**
 * The minute (`YYYY-MM-DDTHH:MM`, UTC) from which every instant on `from` or later lies, in the zone of `localDay`:
 * the start of the quarter hour in which `from` begins (a zone's date changes only within a quarter hour it marks,
 * see createLocalDay). A timestamp in the API's UTC form, `T` at its eleventh character and `Z` at its end, whose
 * text sorts before it, is on an earlier day or on none: a valid one's first sixteen characters are its minute.
 */
export function dayStartMinute(from: string, localDay: (timestamp: string | null) => string | null): string {
  // No zone's day starts more than 15 hours before UTC's or 13 hours after.
  let quarter = Math.floor((Date.parse(`${from}T00:00:00Z`) - 15 * 3_600_000) / QUARTER_HOUR_MS);
  const last = quarter + (28 * 3_600_000) / QUARTER_HOUR_MS;
  while (quarter < last && (localDay(new Date((quarter + 1) * QUARTER_HOUR_MS - 1).toISOString()) ?? '') < from) quarter += 1;
  return new Date(quarter * QUARTER_HOUR_MS).toISOString().slice(0, 16);
}

/**
 * The transactions an update from `from` reads (bound by @bound, from createdAtLowerBound, and @dayStart, from
 * dayStartMinute): those from the bound on, less those in the API's UTC form that are before the day starts, which
 * SQL tells from the index alone. The bound alone holds a whole day before `from` for any offset a text may carry.
 */
export const UPDATE_TRANSACTIONS_WHERE = `created_at >= @bound AND NOT (created_at < @dayStart AND substr(created_at, 11, 1) = 'T' AND substr(created_at, -1) = 'Z')`;

/**
 * How a rebuild from `from` reads the transactions: whole, in table order, for a full build (walking an index would
 * fetch every row at random, several times slower), else by the `created_at` index, which holds the days rebuilt.
 */
export function transactionsScan(from: string): string {
  return from === BEFORE_ALL_DAYS ? 'transactions NOT INDEXED' : 'transactions INDEXED BY transactions_created_at';
}
