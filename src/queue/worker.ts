import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * A worker on another machine cannot be probed; its running jobs count as abandoned after this long. So do
 * those of a live-looking pid on this host: an attempt lasts minutes at most (attemptLimitMs), and a pid
 * reused after a reboot or a wrap-around (or another user's process) would otherwise hold the job, and every
 * later job of its customer, for ever.
 */
const WORKER_STALE_MS = 15 * 60 * 1000;

/**
 * Workers of this process still running. Two pushes may run side by side in one process (a
 * scheduled one and `once`), and a pid check cannot tell them apart, so the process keeps count.
 */
const liveWorkers = new Set<string>();

/** `host:pid:nonce`, stored in locked_by: enough for a later worker to tell whether this one is gone. */
export function startWorker(): string {
  const id = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  liveWorkers.add(id);
  return id;
}

export function stopWorker(id: string): void {
  liveWorkers.delete(id);
}

/** Whether the worker is this process's and still at work. */
export function isLiveHere(lockedBy: string | null, self: string): boolean {
  return lockedBy !== null && (lockedBy === self || liveWorkers.has(lockedBy));
}

/**
 * True when the worker that locked a job can no longer finish it. On this host the pid says so
 * (under our own pid, a worker that is not live is an earlier run of this process, or an earlier
 * process with a reused pid, as in containers); elsewhere only the age of the lock can.
 */
export function isWorkerGone(lockedBy: string | null, lockedAt: string | null, self: string, now: Date): boolean {
  if (lockedBy === null) return true;
  if (lockedBy === self || liveWorkers.has(lockedBy)) return false;
  const [host, pidText] = lockedBy.split(':');
  const [selfHost, selfPid] = self.split(':');
  const aged = lockedAt === null || now.getTime() - Date.parse(lockedAt) > WORKER_STALE_MS;
  if (host !== selfHost) return aged;
  if (pidText === selfPid) return true;
  try {
    process.kill(Number(pidText), 0);
    return aged;
  } catch (error) {
    // EPERM: the process exists under another user, so it is alive (and judged by age).
    return (error as NodeJS.ErrnoException).code === 'ESRCH' || aged;
  }
}
