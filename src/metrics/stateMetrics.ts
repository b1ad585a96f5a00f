import { Counter, exponentialBuckets, Gauge, Histogram, Registry } from 'prom-client';
import type { StateMetricsFacts } from './facts.js';

/** How a save stored what changed: a whole new base, or a segment of the rows changed since the last save. */
export const SAVE_KINDS = ['base', 'segment'] as const;

/** Seconds; a save of a few changed rows takes a fraction of a second, a first base of a large mirror minutes. */
const SAVE_SECONDS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
/** Bytes; 1 KiB to 4 GiB by fours: a segment of a quiet run is kilobytes, a base of 10M transactions gigabytes. */
const SAVE_BYTES = exponentialBuckets(1024, 4, 12);

/**
 * The families of the state in the bucket on `registry`, and the facts that feed them. A restore
 * happens at most once per process, at its start, so its figures are gauges of that restore; saves
 * come after every job of `run` and `once`, so theirs are histograms. With `keepsState` (state.url
 * is set), the save histograms of both kinds start at 0, so `increase()` sees the first save.
 */
export function registerStateMetrics(registry: Registry, keepsState = false): StateMetricsFacts {
  const registers = [registry];
  const restoreSeconds = new Gauge({ name: 'loyalty_state_restore_duration_seconds', help: "Duration of this process's restore of the mirror from the state in the bucket; absent when it restored none.", registers });
  const restoreBytes = new Gauge({ name: 'loyalty_state_restore_bytes', help: "Bytes this process's restore fetched from the bucket (the base and its segments, compressed); absent when it restored none.", registers });
  const saveSeconds = new Histogram({ name: 'loyalty_state_save_duration_seconds', help: 'Duration of a save of the state to the bucket, by kind (base, segment).', labelNames: ['kind'], buckets: SAVE_SECONDS, registers });
  const saveBytes = new Histogram({ name: 'loyalty_state_save_bytes', help: 'Bytes a save of the state wrote to the bucket (compressed), by kind (base, segment).', labelNames: ['kind'], buckets: SAVE_BYTES, registers });
  const lastSave = new Gauge({ name: 'loyalty_state_last_save_timestamp_seconds', help: "Unix time of the state's newest save, by its log at start, then this process's saves; absent before the first.", registers });
  const skips = new Counter({ name: 'loyalty_state_lease_skips_total', help: "Runs of once that skipped because another run held the state's lease.", registers });
  // A gauge without labels starts at 0 in prom-client; no sample until a figure is known.
  restoreSeconds.remove();
  restoreBytes.remove();
  lastSave.remove();
  if (keepsState) {
    for (const kind of SAVE_KINDS) {
      saveSeconds.zero({ kind });
      saveBytes.zero({ kind });
    }
  }
  return {
    restored(report) {
      restoreSeconds.set(report.seconds);
      restoreBytes.set(report.bytes);
    },
    saved(save) {
      saveSeconds.observe({ kind: save.kind }, save.seconds);
      saveBytes.observe({ kind: save.kind }, save.bytes);
      lastSave.set(Date.now() / 1000);
    },
    leaseSkipped() {
      skips.inc();
    },
    lastSaveRead(at) {
      if (at !== null) lastSave.set(at.getTime() / 1000);
    },
  };
}

/**
 * The state's families alone, on a registry of their own: all that a `once` which skipped for a held
 * lease knows (it never opened the mirror), so that what it hands over replaces no other family.
 */
export function createStateMetrics(): { registry: Registry; state: StateMetricsFacts } {
  const registry = new Registry();
  return { registry, state: registerStateMetrics(registry, true) };
}
