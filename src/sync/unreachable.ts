import type { StreamReport, SyncReport } from './types.js';

/** Why the rest of a run is not tried once the API cannot be used at all (skipped streams, once's later steps). */
export const UNREACHABLE = 'the API was unreachable';
export const CREDENTIAL_REFUSED = 'the API refused the credential';

/**
 * Why a sync run must stop after this stream, or null. An unreachable API and a 401 are final for every
 * request. A 403 is final only while the run has had no success: on the first stream it means the key is
 * refused everything, while after another stream succeeded it means only that stream is out of its scopes.
 */
export function stopsSync(report: StreamReport, earlier: readonly StreamReport[]): string | null {
  if (report.unreachable) return UNREACHABLE;
  if (report.refused === 401) return CREDENTIAL_REFUSED;
  if (report.refused === 403 && !earlier.some((stream) => stream.status === 'succeeded')) return CREDENTIAL_REFUSED;
  return null;
}

/**
 * One sentence for a sync run that stopped because the API could not be used at all (unreachable, or the
 * credential refused), naming the address and the streams it skipped; null when it did not stop (its
 * failures, if any, are reported stream by stream).
 */
export function describeStoppedSync(report: SyncReport, baseUrl: string): string | null {
  const index = report.streams.findIndex((stream, i) => stopsSync(stream, report.streams.slice(0, i)) !== null);
  if (index === -1) return null;
  const failed = report.streams[index];
  const skipped = report.streams.filter((stream) => stream.status === 'skipped').map((stream) => stream.stream);
  const what = failed.unreachable
    ? `the API at ${baseUrl} could not be reached (${failed.error ?? 'no answer'})`
    : `the API at ${baseUrl} refused LOYALTY_API_KEY (${failed.error ?? `status ${failed.refused}`}); check the key and its scopes with "loyalty-sync whoami"`;
  return `${what}${skipped.length > 0 ? `; skipped ${skipped.join(', ')}` : ''}`;
}
