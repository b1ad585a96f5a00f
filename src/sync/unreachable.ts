import type { SyncReport } from './types.js';

/** The reason given for the streams of a run that were not tried once the API proved unreachable. */
export const SKIPPED_UNREACHABLE = 'skipped: the API was unreachable';

/**
 * One sentence for a sync run that found the API unreachable at all, naming the address and the streams
 * it skipped; null when the API could be reached (its failures, if any, are reported stream by stream).
 */
export function describeUnreachableSync(report: SyncReport, baseUrl: string): string | null {
  const failed = report.streams.find((stream) => stream.unreachable);
  if (failed === undefined) return null;
  const skipped = report.streams.filter((stream) => stream.status === 'skipped').map((stream) => stream.stream);
  return `the API at ${baseUrl} could not be reached (${failed.error ?? 'no answer'})${skipped.length > 0 ? `; skipped ${skipped.join(', ')}` : ''}`;
}
