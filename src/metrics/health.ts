import { describeHolder, type LockHolder } from '../runtime/lock.js';

/**
 * What `/healthz` and `/readyz` answer, fed by the run as it goes: the mirror opened, the writer
 * lock renewed or lost, the scheduler started or stopped. A reason is one line for a person;
 * null means healthy (or ready).
 */
export interface Health {
  mirrorOpened(): void;
  /** The writer lock's lease was taken or renewed at `at` and now runs for `leaseMs`. */
  lockRenewed(at: Date, leaseMs: number): void;
  /** Another process holds the writer lock, and this one waits for it. */
  lockBusy(holder: LockHolder): void;
  lockLost(): void;
  schedulerStarted(): void;
  schedulerStopped(): void;
  liveness(now?: Date): string | null;
  readiness(): string | null;
}

export function createHealth(): Health {
  let mirrorOpen = false;
  let lease: { renewedAt: Date; leaseMs: number } | null = null;
  let lockLost = false;
  let heldBy: LockHolder | null = null;
  let scheduler: 'not started' | 'running' | 'stopped' = 'not started';
  return {
    mirrorOpened() {
      mirrorOpen = true;
    },
    lockRenewed(at, leaseMs) {
      lease = { renewedAt: at, leaseMs };
      lockLost = false;
      heldBy = null;
    },
    lockBusy(holder) {
      heldBy = holder;
    },
    lockLost() {
      lockLost = true;
    },
    schedulerStarted() {
      scheduler = 'running';
    },
    schedulerStopped() {
      scheduler = 'stopped';
    },
    liveness(now = new Date()) {
      if (heldBy !== null) return waitingFor(heldBy);
      if (scheduler !== 'running') return `the scheduler is ${scheduler}`;
      if (lockLost) return 'the writer lock was taken over by another process';
      if (lease === null) return 'the writer lock is not held';
      const sinceMs = now.getTime() - lease.renewedAt.getTime();
      // Past its lease another process may take the lock over: this one has stalled.
      if (sinceMs > lease.leaseMs) {
        return `the writer lock's lease was last renewed ${(sinceMs / 1000).toFixed(1)} s ago, longer than its ${lease.leaseMs / 1000} s lease`;
      }
      return null;
    },
    readiness() {
      if (!mirrorOpen) return 'the mirror is not open yet';
      // Only the process that holds the writer lock runs the jobs: a second one on the same mirror is not ready.
      if (heldBy !== null) return waitingFor(heldBy);
      if (lockLost) return 'the writer lock was taken over by another process';
      return lease === null ? 'the writer lock is not held yet' : null;
    },
  };
}

function waitingFor(holder: LockHolder): string {
  return `${describeHolder(holder)} holds the mirror's writer lock since ${holder.acquiredAt}; waiting for it`;
}
