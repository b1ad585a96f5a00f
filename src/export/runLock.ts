import type { Db } from '../db/open.js';
import type { Logger } from '../log.js';
import { acquireLock, isHeldByAnother, type HeldLock } from '../runtime/lock.js';

/**
 * An export run holds a lock of its own in the mirror (a leased row of `instance_lock`) from before it
 * writes its first file until it ends. Its files are named after its run id, so a later export tells a
 * live run's files from a killed one's by this lock, never by a pid: in a container every run is pid 1.
 */
export function runLockName(runId: string): string {
  return `export:${runId}`;
}

export function holdRunLock(db: Db, runId: string, leaseMs: number, logger: Logger): Promise<HeldLock> {
  return acquireLock({ db, dbPath: db.name, name: runLockName(runId), command: 'export', leaseMs, logger });
}

/** Whether another live process is still running export `runId`; a killed run's lease runs out, or its pid is gone. */
export function isRunLive(db: Db, runId: string): boolean {
  return isHeldByAnother(db, runLockName(runId));
}

/** Removes the locks of export runs whose lease ran out, so killed runs leave no rows behind for good. */
export function dropExpiredRunLocks(db: Db, now: Date): void {
  db.prepare(`DELETE FROM instance_lock WHERE name LIKE 'export:%' AND expires_at <= ?`).run(now.toISOString());
}
