import type { Config } from '../config.js';
import type { Db } from '../db/open.js';
import type { StreamDefinition } from '../streams/index.js';
import { planSignalledReads } from './changeSignals.js';
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
  /** Page size of list reads (`api.pageSize`): how many records one signalled window should hold. */
  pageSize: number;
  /** Plan only the re-reads of signalled records (the follow-up after the run's signalling stream). */
  signalledOnly?: boolean;
}

/** The passes of a fresh run of one stream, from the stream's strategy and what is stored, then the re-reads of signalled records. */
export function planStream(input: PlanInput): Plan {
  if (input.signalledOnly === true) return withSignalledReads(input, { passes: [], refreshes: false }, null);
  const plan = planStrategy(input);
  const refreshFrom = plan.passes.find((pass) => pass.kind === 'list' && pass.role === 'refresh' && pass.params.created_at_min !== undefined);
  return withSignalledReads(input, plan, refreshFrom?.kind === 'list' ? (refreshFrom.params.created_at_min ?? null) : null);
}

/** `plan` followed by the windows that re-read what is signalled, but for what a refresh from `coveredFrom` reads anyway. */
function withSignalledReads(input: PlanInput, plan: Plan, coveredFrom: string | null): Plan {
  // A whole read brings every signalled record; its completion clears them.
  const signalled = plan.wholeReadStartedAt !== undefined ? null : planSignalledReads(input.db, input.stream, input.pageSize, coveredFrom);
  if (signalled === null) return plan;
  return { ...plan, passes: [...plan.passes, ...signalled.passes], signalsThroughSeq: signalled.throughSeq };
}

function planStrategy(input: PlanInput): Plan {
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
        // Nothing stored (or --full): one read of everything is also the refresh, and into an empty table the deep refresh.
        const empty = full ? newestCreatedAt(db, stream) === null : true;
        return { passes: [{ kind: 'list', role: 'new', params: { since_id: 0 } }], refreshes: changes, ...(empty ? { wholeReadStartedAt: now.toISOString() } : {}) };
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
