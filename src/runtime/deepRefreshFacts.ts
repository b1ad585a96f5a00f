import type { StreamName } from '../config.js';
import type { Db } from '../db/open.js';
import type { DeepRefreshFact } from '../metrics/facts.js';
import { deepRefreshedStreams } from '../sync/deepRefreshedStreams.js';
import { loadDeepRefresh } from '../sync/deepRefreshState.js';

/** What `OpsFacts.deepRefreshRead` takes, read from `deep_refresh` for the configured streams the deep refresh reads. */
export function deepRefreshFacts(db: Db, streams: readonly StreamName[]): DeepRefreshFact[] {
  return deepRefreshedStreams(streams).map((stream) => {
    const state = loadDeepRefresh(db, stream);
    const underWay = state.plan !== null;
    return {
      stream,
      lastSuccessAt: state.lastCompletedAt === null ? null : new Date(state.lastCompletedAt),
      pages: underWay ? state.pages : 0,
      startedAt: underWay && state.startedAt !== null ? new Date(state.startedAt) : null,
    };
  });
}
