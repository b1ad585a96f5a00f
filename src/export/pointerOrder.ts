import type { Manifest } from './manifest.js';

/**
 * A pointer's run may be no more than this far ahead of this machine's clock to be believed newer: a run stamped by
 * a clock set days ahead must not hold the pointer until that day comes.
 */
const BELIEVED_AHEAD_MS = 10 * 60 * 1000;

/**
 * The run a pointer (latest*.json) already names when that run began after `manifest`'s, or null when `manifest`
 * may take the pointer. A run paused past its lease, or a slow export beside a quick one, finishes after a newer run
 * published: moving the pointer back would hand loaders an older snapshot after a newer one. A pointer that cannot
 * be read as a manifest is replaced.
 */
export function newerPublishedRun(pointerText: string | null, manifest: Pick<Manifest, 'runId' | 'createdAt'>, nowMs: number): string | null {
  if (pointerText === null) return null;
  let named: unknown;
  try {
    named = JSON.parse(pointerText);
  } catch {
    return null;
  }
  if (typeof named !== 'object' || named === null) return null;
  const { runId, createdAt } = named as { runId?: unknown; createdAt?: unknown };
  if (typeof runId !== 'string' || typeof createdAt !== 'string' || runId === manifest.runId) return null;
  const namedMs = Date.parse(createdAt);
  const ownMs = Date.parse(manifest.createdAt);
  if (!Number.isFinite(namedMs) || !Number.isFinite(ownMs)) return null;
  return namedMs > ownMs && namedMs <= nowMs + BELIEVED_AHEAD_MS ? runId : null;
}
