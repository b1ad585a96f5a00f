import type { StoredSegment } from './dumpFormat.js';
import type { StateManifest } from './leaseLog.js';

/**
 * Segments of one level merged into one of the next level once this many would be kept: a save
 * usually writes only its own changes, one in 8 writes the last 8 saves' changes again, one in 64
 * the last 64's, and so on, so a restore fetches a few dozen dumps at most between base rewrites.
 */
export const FANOUT = 8;
/** A new base is written once the segments would hold more than this share of the base's bytes. */
export const BASE_REWRITE_SHARE = 0.5;

export type SavePlan =
  | { kind: 'base'; reason: 'first' | 'schema' | 'segments-outgrew-base' }
  | {
      kind: 'segment';
      level: number;
      /** The segment holds the changes after this epoch. */
      fromEpoch: number;
      /** The manifest's segments that stay; those after them are replaced by the new one. */
      keep: number;
    };

/** What a save writes, from the manifest it follows and the mirror's schema version. Pure. */
export function planSave(manifest: StateManifest | null, schemaVersion: number): SavePlan {
  if (manifest === null) return { kind: 'base', reason: 'first' };
  if (manifest.schemaVersion !== schemaVersion) return { kind: 'base', reason: 'schema' };
  const segments = manifest.segments;
  let level = 0;
  let fromEpoch = manifest.epoch;
  let keep = segments.length;
  for (;;) {
    let first = keep;
    while (first > 0 && segments[first - 1].level === level) first -= 1;
    if (keep - first + 1 < FANOUT) break;
    level += 1;
    fromEpoch = segments[first].fromEpoch;
    keep = first;
  }
  // The merged segment holds at most what those it replaces held; the new changes are not known yet.
  const segmentBytes = segments.reduce((sum, segment) => sum + segment.bytes, 0);
  if (segmentBytes > BASE_REWRITE_SHARE * manifest.base.bytes) return { kind: 'base', reason: 'segments-outgrew-base' };
  return { kind: 'segment', level, fromEpoch, keep };
}

/** The segments after a save of `plan` wrote `written`. */
export function segmentsAfter(segments: readonly StoredSegment[], plan: Extract<SavePlan, { kind: 'segment' }>, written: StoredSegment): StoredSegment[] {
  return [...segments.slice(0, plan.keep), written];
}
