import { isoToMicrosNumber } from '../isoTimestamp.js';

/**
 * Pure arithmetic of where an incremental read starts. Stored timestamps are the API's ISO 8601
 * text in whatever form it writes; the bounds computed here are always UTC text in the form
 * `2026-03-01T12:00:00.000Z`, which is what the API is sent.
 */

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** `iso` moved by `deltaMs`, as UTC ISO text to the millisecond (rounded down); null when `iso` is not a timestamp. */
export function shiftIso(iso: string, deltaMs: number): string | null {
  const ms = isoMillis(iso);
  return ms === null ? null : new Date(ms + deltaMs).toISOString();
}

function isoMillis(iso: string): number | null {
  const micros = isoToMicrosNumber(iso);
  return micros === null ? null : Math.floor(micros / 1000);
}

/** Start of the overlap re-read for late-visible ids: `overlapHours` before the newest stored row. */
export function overlapStart(newestCreatedAt: string | null, overlapHours: number): string | null {
  return newestCreatedAt === null ? null : shiftIso(newestCreatedAt, -overlapHours * HOUR);
}

/** `updated_at_min` of the next customers read; undefined (read everything) when nothing is stored. */
export function updatedAtMin(newestUpdatedAt: string | null, overlapMinutes: number): string | undefined {
  if (newestUpdatedAt === null) return undefined;
  return shiftIso(newestUpdatedAt, -overlapMinutes * MINUTE) ?? undefined;
}

/**
 * Start of the refresh window. It is anchored at the earlier of our clock and the newest stored
 * row, so an API clock behind ours (or a quiet stream) widens the window rather than missing rows.
 */
export function lookbackStart(now: Date, newestCreatedAt: string | null, lookbackDays: number): string {
  const newest = newestCreatedAt === null ? null : isoMillis(newestCreatedAt);
  const anchor = newest === null ? now.getTime() : Math.min(now.getTime(), newest);
  return new Date(anchor - lookbackDays * DAY).toISOString();
}

/** A refresh is due when none was ever completed or the last one is `intervalHours` old. */
export function refreshDue(lastRefreshAt: string | null, now: Date, intervalHours: number): boolean {
  if (lastRefreshAt === null) return true;
  const last = Date.parse(lastRefreshAt);
  return Number.isNaN(last) || now.getTime() - last >= intervalHours * HOUR;
}

/** What the stored rows say about a window that starts at some created_at. */
export interface WindowIds {
  /** Smallest stored id created inside the window; null when none is. */
  firstIdInWindow: number | null;
  /** Largest stored id below `firstIdInWindow`; null when there is none. */
  storedIdBelow: number | null;
  /** Largest stored id of all; null when the table is empty. */
  maxStoredId: number | null;
}

/**
 * `since_id` that re-reads every id created inside the window. Ids grow with creation time, so
 * every row created in the window, stored or not yet visible when last read, has an id above the
 * last stored row created before it: starting after that row (not after the first stored row in
 * the window) also catches late-visible ids that fall between the two.
 */
export function sinceIdForWindow(ids: WindowIds): number {
  if (ids.maxStoredId === null) return 0;
  if (ids.firstIdInWindow === null) return ids.maxStoredId;
  return ids.storedIdBelow ?? 0;
}
