import type { Config } from '../config.js';
import type { Db } from '../db/open.js';
import type { StreamDefinition } from '../streams/index.js';
import { deepRefreshOverdue, OVERDUE_INTERVALS } from '../sync/deepRefreshOverdue.js';
import { deepRefreshDueAt, loadDeepRefresh } from '../sync/deepRefreshState.js';
import { apiTimeAt } from './apiTimeAt.js';
import type { PassName } from './types.js';

const HOUR_MS = 60 * 60 * 1000;

/** Where one of the sync's re-reading passes stands for a stream, as verify judges a difference against it. */
export interface PassClock {
  pass: Exclude<PassName, 'next sync'>;
  /**
   * On the API's clock (microseconds), a moment no later than the start of the last completed pass: a change
   * made before it should be in the mirror. Null when none completed, or its start cannot be placed.
   */
  startedBefore: number | null;
  /** One completed: every row it covers was read at least once by the code that signals changes. */
  completed: boolean;
  /** When the next one falls due, on our clock (now, when it is already due or under way). */
  due: string;
  /** None completed within twice its interval: rows waiting for it are not coming. */
  overdue: boolean;
}

/** The lookback refresh of a stream that has one (`sync.refreshIntervalHours`), from `sync_state` and `sync_runs`. */
export function refreshClock(db: Db, stream: StreamDefinition, settings: Config['sync'], now: Date): PassClock {
  const lastRefreshAt = (db.prepare('SELECT last_refresh_at FROM sync_state WHERE stream = ?').pluck().get(stream.name) as string | null | undefined) ?? null;
  const started = lastRefreshStart(db, stream);
  const interval = settings.refreshIntervalHours * HOUR_MS;
  const completedAt = lastRefreshAt === null ? NaN : Date.parse(lastRefreshAt);
  return {
    pass: 'next refresh',
    startedBefore: started === null ? null : apiTimeAt(db, started),
    completed: lastRefreshAt !== null,
    due: Number.isNaN(completedAt) ? now.toISOString() : new Date(completedAt + interval).toISOString(),
    overdue: !Number.isNaN(completedAt) && now.getTime() - completedAt > OVERDUE_INTERVALS * interval,
  };
}

/** The deep refresh of a stream without an update filter (`sync.deepRefreshIntervalHours`), from `deep_refresh`. */
export function deepRefreshClock(db: Db, stream: StreamDefinition, settings: Config['sync'], now: Date): PassClock {
  const state = loadDeepRefresh(db, stream.name);
  return {
    pass: 'next deep refresh',
    startedBefore: state.lastStartedAt === null ? null : apiTimeAt(db, state.lastStartedAt),
    completed: state.lastStartedAt !== null,
    due: deepRefreshDueAt(state, settings.deepRefreshIntervalHours) ?? now.toISOString(),
    overdue: deepRefreshOverdue(state, settings.deepRefreshIntervalHours, now),
  };
}

/**
 * When the plan of the last run that completed a refresh began: the first run since the success before it
 * (a killed run's plan is resumed by the next, so the plan can be older than the run that completed it).
 */
function lastRefreshStart(db: Db, stream: StreamDefinition): string | null {
  return (
    (db
      .prepare(
        `WITH last AS (SELECT max(id) AS id FROM sync_runs WHERE stream = @stream AND status = 'succeeded' AND refresh = 1),
              before AS (SELECT coalesce(max(r.id), 0) AS id FROM sync_runs r, last WHERE r.stream = @stream AND r.status = 'succeeded' AND r.id < last.id)
         SELECT min(r.started_at) FROM sync_runs r, last, before WHERE r.stream = @stream AND r.id > before.id AND r.id <= last.id`,
      )
      .pluck()
      .get({ stream: stream.name }) as string | null | undefined) ?? null
  );
}
