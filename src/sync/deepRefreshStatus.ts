import type { Config, StreamName } from '../config.js';
import type { Db } from '../db/open.js';
import { deepRefreshedStreams } from './deepRefreshedStreams.js';
import { deepRefreshOverdue } from './deepRefreshOverdue.js';
import { deepRefreshDueAt, loadDeepRefresh } from './deepRefreshState.js';

/** One deep-refreshed stream's deep refresh, as `status` shows it. */
export interface DeepRefreshStatus {
  stream: StreamName;
  /** The last one that completed; null before any. */
  last: { startedAt: string; completedAt: string | null; removed: number | null } | null;
  /** The one under way: when it began and what it has stored so far; null when none is. */
  underWay: { startedAt: string | null; pages: number; rows: number } | null;
  /** When the next falls due; null when one is under way or none ever completed (the next sync goes on with it, or starts one). */
  dueAt: string | null;
  /** None completed within twice `sync.deepRefreshIntervalHours` (see deepRefreshOverdue). */
  overdue: boolean;
  lastError: { message: string; at: string } | null;
}

/** Each configured stream the deep refresh reads whole (orders, activities), from `deep_refresh`. */
export function readDeepRefreshStatus(db: Db, settings: Config['sync'], now: Date): DeepRefreshStatus[] {
  return deepRefreshedStreams(settings.streams).map((stream) => {
    const state = loadDeepRefresh(db, stream);
    return {
      stream,
      last: state.lastStartedAt === null ? null : { startedAt: state.lastStartedAt, completedAt: state.lastCompletedAt, removed: state.lastRemoved },
      underWay: state.plan === null ? null : { startedAt: state.startedAt, pages: state.pages, rows: state.rows },
      dueAt: deepRefreshDueAt(state, settings.deepRefreshIntervalHours),
      overdue: deepRefreshOverdue(state, settings.deepRefreshIntervalHours, now),
      lastError: state.lastError === null || state.lastErrorAt === null ? null : { message: state.lastError, at: state.lastErrorAt },
    };
  });
}
