import type { ListParams } from '../api/client.js';
import type { StreamName } from '../config.js';
import type { Db } from '../db/open.js';

const HOUR_MS = 60 * 60 * 1000;

/** The refresh under way: the filters it reads with and the id spans its stored pages covered. */
export interface DeepPlan {
  params: ListParams;
  spans: Array<[number, number]>;
}

/** A stream's row of `deep_refresh`, decoded (see migration 010). */
export interface DeepRefreshState {
  /** `sync --deep` asked for one that has not completed yet. */
  requestedAt: string | null;
  plan: DeepPlan | null;
  cursor: string | null;
  startedAt: string | null;
  pages: number;
  rows: number;
  lastStartedAt: string | null;
  lastCompletedAt: string | null;
  lastRemoved: number | null;
  lastError: string | null;
  lastErrorAt: string | null;
}

interface Row {
  requested_at: string | null;
  plan: string | null;
  cursor: string | null;
  started_at: string | null;
  pages: number;
  rows: number;
  last_started_at: string | null;
  last_completed_at: string | null;
  last_removed: number | null;
  last_error: string | null;
  last_error_at: string | null;
}

const NONE: DeepRefreshState = {
  requestedAt: null,
  plan: null,
  cursor: null,
  startedAt: null,
  pages: 0,
  rows: 0,
  lastStartedAt: null,
  lastCompletedAt: null,
  lastRemoved: null,
  lastError: null,
  lastErrorAt: null,
};

export function loadDeepRefresh(db: Db, stream: StreamName): DeepRefreshState {
  const row = db
    .prepare('SELECT requested_at, plan, cursor, started_at, pages, rows, last_started_at, last_completed_at, last_removed, last_error, last_error_at FROM deep_refresh WHERE stream = ?')
    .get(stream) as Row | undefined;
  if (row === undefined) return NONE;
  return {
    requestedAt: row.requested_at,
    plan: row.plan === null ? null : (JSON.parse(row.plan) as DeepPlan),
    cursor: row.cursor,
    startedAt: row.started_at,
    pages: row.pages,
    rows: row.rows,
    lastStartedAt: row.last_started_at,
    lastCompletedAt: row.last_completed_at,
    lastRemoved: row.last_removed,
    lastError: row.last_error,
    lastErrorAt: row.last_error_at,
  };
}

/** Where the refresh under way stands after a group of pages; meant for the group's transaction. */
export function saveDeepRefresh(db: Db, stream: StreamName, progress: { plan: DeepPlan; cursor: string | null; startedAt: string; pages: number; rows: number }, at: string): void {
  db.prepare(
    `INSERT INTO deep_refresh (stream, plan, cursor, started_at, pages, rows, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (stream) DO UPDATE SET plan = excluded.plan, cursor = excluded.cursor, started_at = excluded.started_at,
       pages = excluded.pages, rows = excluded.rows, updated_at = excluded.updated_at`,
  ).run(stream, JSON.stringify(progress.plan), progress.cursor, progress.startedAt, progress.pages, progress.rows, at);
}

/**
 * A read of the whole stream that began at `startedAt` completed (a deep refresh, or a first or `--full`
 * sync, which read everything too): every change made before then is in the mirror.
 */
export function completeDeepRefresh(db: Db, stream: StreamName, completion: { startedAt: string; removed: number }, at: string): void {
  db.prepare(
    `INSERT INTO deep_refresh (stream, last_started_at, last_completed_at, last_removed, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (stream) DO UPDATE SET requested_at = NULL, plan = NULL, cursor = NULL, started_at = NULL, pages = 0, rows = 0,
       last_started_at = excluded.last_started_at, last_completed_at = excluded.last_completed_at,
       last_removed = excluded.last_removed, last_error = NULL, last_error_at = NULL, updated_at = excluded.updated_at`,
  ).run(stream, completion.startedAt, at, completion.removed, at);
  db.prepare('DELETE FROM deep_refresh_absent WHERE stream = ?').run(stream);
}

export function failDeepRefresh(db: Db, stream: StreamName, message: string, at: string): void {
  db.prepare(
    `INSERT INTO deep_refresh (stream, last_error, last_error_at, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (stream) DO UPDATE SET last_error = excluded.last_error, last_error_at = excluded.last_error_at, updated_at = excluded.updated_at`,
  ).run(stream, message, at, at);
}

/** Drops the refresh under way (`--full`, or a refused mass removal): the next one starts from the beginning. */
export function abandonDeepRefresh(db: Db, stream: StreamName, at: string): void {
  db.prepare('UPDATE deep_refresh SET plan = NULL, cursor = NULL, started_at = NULL, pages = 0, rows = 0, updated_at = ? WHERE stream = ?').run(at, stream);
  db.prepare('DELETE FROM deep_refresh_absent WHERE stream = ?').run(stream);
}

/**
 * `sync --deep`: asks for a deep refresh of each of `streams`, read to the end in this run, unless one asked
 * for or begun is still unfinished for any of them: then this run finishes those (a killed `sync --deep` run
 * again goes on where it stopped, rather than reading again the streams it had completed). Returns the
 * streams asked for afresh.
 */
export function requestDeepRefresh(db: Db, streams: readonly StreamName[], at: string): StreamName[] {
  const unfinished = streams.filter((stream) => {
    const state = loadDeepRefresh(db, stream);
    return state.requestedAt !== null || state.plan !== null;
  });
  if (unfinished.length > 0) return [];
  const request = db.prepare(
    `INSERT INTO deep_refresh (stream, requested_at, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (stream) DO UPDATE SET requested_at = excluded.requested_at, updated_at = excluded.updated_at`,
  );
  db.transaction(() => {
    for (const stream of streams) request.run(stream, at, at);
  })();
  return [...streams];
}

/**
 * When the next deep refresh is due: `intervalHours` after the last one began. Null when one is under way or
 * asked for (it goes on at every sync) or when none has ever run: a stream never read whole is due at once.
 */
export function deepRefreshDueAt(state: DeepRefreshState, intervalHours: number): string | null {
  if (state.plan !== null || state.requestedAt !== null || state.lastStartedAt === null) return null;
  const last = Date.parse(state.lastStartedAt);
  return Number.isNaN(last) ? null : new Date(last + intervalHours * HOUR_MS).toISOString();
}

/** Whether a sync at `now` should read (a slice of) the stream whole: one is under way or asked for, was never made, or is due. */
export function deepRefreshDue(state: DeepRefreshState, now: Date, intervalHours: number): boolean {
  if (state.plan !== null || state.requestedAt !== null || state.lastStartedAt === null) return true;
  const due = deepRefreshDueAt(state, intervalHours);
  return due === null || now.getTime() >= Date.parse(due);
}
