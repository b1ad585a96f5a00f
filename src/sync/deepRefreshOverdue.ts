import type { DeepRefreshState } from './deepRefreshState.js';

const HOUR_MS = 60 * 60 * 1000;

/** A deep refresh is overdue once this many of its intervals have passed without one completing. */
export const OVERDUE_INTERVALS = 2;

/**
 * Whether a stream's deep refresh is overdue at `now`: none completed within twice
 * `sync.deepRefreshIntervalHours`, counted from the last completion, or, when none ever completed, from the
 * start of the one under way. A stream never deep-refreshed and with none under way is not overdue: the next
 * sync starts one at once. `status --check`, verify and the LoyaltyDeepRefreshOverdue alert share this rule.
 */
export function deepRefreshOverdue(state: DeepRefreshState, intervalHours: number, now: Date): boolean {
  const since = state.lastCompletedAt ?? state.startedAt;
  if (since === null) return false;
  const at = Date.parse(since);
  return !Number.isNaN(at) && now.getTime() - at > OVERDUE_INTERVALS * intervalHours * HOUR_MS;
}
