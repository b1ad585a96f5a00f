import type { Config } from '../config.js';
import type { Db } from '../db/open.js';
import type { StreamDefinition } from '../streams/index.js';
import { newestCreatedAt, newestUpdatedAt, windowIds } from './storedFacts.js';
import type { Plan } from './types.js';
import { lookbackStart, overlapStart, refreshDue, sinceIdForWindow, updatedAtMin } from './watermarks.js';

export interface PlanInput {
  db: Db;
  stream: StreamDefinition;
  settings: Config['sync'];
  now: Date;
  /** Ignore what is stored and read everything. */
  full: boolean;
  /** Run the refresh even if it is not due. */
  forceRefresh: boolean;
  lastRefreshAt: string | null;
}

/** The passes of a fresh run of one stream, from the stream's strategy and what is stored. */
export function planStream(input: PlanInput): Plan {
  const { db, stream, settings, now, full } = input;
  const strategy = stream.strategy;
  switch (strategy.kind) {
    case 'full-walk':
      return { passes: [{ kind: 'walk', startedAt: now.toISOString() }], refreshes: false };
    case 'updated-at': {
      const newest = full ? null : newestUpdatedAt(db, stream);
      const changes = strategy.refresh !== undefined;
      const sorted = { sort_field: 'updated_at' as const, sort_direction: 'asc' as const };
      if (newest === null) return { passes: [{ kind: 'list', role: 'new', params: sorted }], refreshes: changes };
      if (changes && (input.forceRefresh || refreshDue(input.lastRefreshAt, now, settings.refreshIntervalHours))) {
        const params = { ...sorted, updated_at_min: lookbackStart(now, newest, settings.lookbackDays) };
        return { passes: [{ kind: 'list', role: 'refresh', params }], refreshes: true };
      }
      const min = updatedAtMin(newest, settings.updatedAtOverlapMinutes);
      return { passes: [{ kind: 'list', role: 'new', params: { ...sorted, ...(min === undefined ? {} : { updated_at_min: min }) } }], refreshes: false };
    }
    case 'since-id': {
      const newest = full ? null : newestCreatedAt(db, stream);
      const changes = strategy.refresh !== undefined;
      if (newest === null) {
        // Nothing stored (or --full): one read of everything is also the refresh.
        return { passes: [{ kind: 'list', role: 'new', params: { since_id: 0 } }], refreshes: changes };
      }
      const newSinceId = sinceIdForWindow(windowIds(db, stream, overlapStart(newest, settings.idOverlapHours)));
      const due = changes && (input.forceRefresh || refreshDue(input.lastRefreshAt, now, settings.refreshIntervalHours));
      if (!due) return { passes: [{ kind: 'list', role: 'new', params: { since_id: newSinceId } }], refreshes: false };
      const windowStart = lookbackStart(now, newest, settings.lookbackDays);
      if (strategy.refresh === 'created-at-window') {
        return {
          passes: [
            { kind: 'list', role: 'new', params: { since_id: newSinceId } },
            { kind: 'list', role: 'refresh', params: { created_at_min: windowStart } },
          ],
          refreshes: true,
        };
      }
      // Reading from the oldest order in the window onwards also reads every new order: one pass does both.
      const refreshSinceId = Math.min(newSinceId, sinceIdForWindow(windowIds(db, stream, windowStart)));
      return { passes: [{ kind: 'list', role: 'refresh', params: { since_id: refreshSinceId } }], refreshes: true };
    }
  }
}
