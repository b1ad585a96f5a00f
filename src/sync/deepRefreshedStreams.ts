import type { StreamName } from '../config.js';
import { getStream } from '../streams/index.js';

/** Of `streams`, those the deep refresh reads whole: records that change at any age in a list without an update filter. */
export function deepRefreshedStreams(streams: readonly StreamName[]): StreamName[] {
  return streams.filter((name) => getStream(name).noUpdateFilter === true);
}
