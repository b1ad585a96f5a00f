export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** The simulated "now" at tick 0: fixed so that every run with the same seed returns the same timestamps. */
export const SIMULATED_EPOCH = Date.UTC(2026, 2, 1, 12, 0, 0, 0);

/** Generated history reaches this far back from the simulated epoch. */
export const HISTORY_SPAN = 90 * DAY;

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** Milliseconds of an ISO 8601 date or date-time, or null when the text is not one. */
export function parseIso(text: string): number | null {
  if (!ISO_8601.test(text)) return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}

/** The simulator's wall clock, in milliseconds since 1970: what writes through the API are stamped with. */
export type WallClock = () => number;

/**
 * A wall clock that reads `epoch` now and runs at real speed (monotonic, whatever the machine's clock
 * does): the default, so a fixed epoch keeps the data reproducible while writes still carry the moment
 * they were applied.
 */
export function clockFrom(epoch: number): WallClock {
  const started = performance.now();
  return () => epoch + Math.floor(performance.now() - started);
}

/** The start of the current real hour: an epoch that makes simulated data look recent yet stays stable for an hour. */
export function currentHour(now = Date.now()): number {
  return Math.floor(now / HOUR) * HOUR;
}
