import type { StreamName } from '../config.js';
import { getStream } from '../streams/index.js';

/**
 * Of `streams`, those the deep refresh reads whole: records that change at any age in a list the API cannot
 * filter by update time (orders and activities), the streams with a refresh and no `updated_at` filter.
 */
export function deepRefreshedStreams(streams: readonly StreamName[]): StreamName[] {
  return streams.filter((name) => {
    const strategy = getStream(name).strategy;
    return strategy.kind === 'since-id' && strategy.refresh !== undefined;
  });
}
