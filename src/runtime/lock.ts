import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db } from '../db/open.js';
import type { Logger } from '../log.js';

/** The lock that keeps two processes from syncing or pushing into one mirror at the same time. */
export const WRITER_LOCK = 'writer';

export interface LockHolder {
  pid: number;
  hostname: string;
  command: string;
  acquiredAt: string;
  heartbeatAt: string;
  expiresAt: string;
}

/** The lock is held by another live process; its message is what the user reads. */
export class LockBusyError extends Error {
  override readonly name = 'LockBusyError';
  constructor(
    readonly dbPath: string,
    readonly holder: LockHolder,
  ) {
    super(`${describeHolder(holder)} holds ${dbPath} since ${holder.acquiredAt}; its lease runs until ${holder.expiresAt} unless it renews it.`);
  }
}

/** The holder as one names it to a person: `another loyalty-sync (run, pid 12 on host-a)`. */
export function describeHolder(holder: LockHolder): string {
  return `another loyalty-sync (${holder.command}, pid ${holder.pid} on ${holder.hostname})`;
}

/** The abort reason when another process took the lock over (this one stalled past its lease). */
export class LockLostError extends Error {
  override readonly name = 'LockLostError';
  constructor(readonly dbPath: string) {
    super(`another loyalty-sync took over the writer lock of ${dbPath} (this process stalled longer than its lease); stopped`);
  }
}

export interface HeldLock {
  /** Aborted if the lease was lost (this process stalled longer than the lease and another took over). */
  readonly lost: AbortSignal;
  release(): void;
}

export interface AcquireOptions {
  db: Db;
  /** Which lock: the writer lock by default; an export run holds one of its own (src/export/runLock.ts). */
  name?: string;
  dbPath: string;
  command: string;
  leaseMs: number;
  logger: Logger;
  /** Keep trying until the lock frees up (or its lease expires) instead of failing at once. */
  wait?: boolean;
  signal?: AbortSignal;
  /** Called when the lock is taken and at each renewal (the health endpoint watches the lease). */
  onRenewed?: (at: Date) => void;
  /** With `wait`: called at each try that finds another live process holding the lock. */
  onBusy?: (holder: LockHolder) => void;
}

interface LockRow {
  token: string;
  pid: number;
  hostname: string;
  command: string;
  acquired_at: string;
  heartbeat_at: string;
  expires_at: string;
}

export function readLockHolder(db: Db, name = WRITER_LOCK, now = new Date()): LockHolder | null {
  const row = db.prepare('SELECT * FROM instance_lock WHERE name = ?').get(name) as LockRow | undefined;
  if (!row || row.expires_at <= now.toISOString()) return null;
  return toHolder(row);
}

/**
 * The tokens of the locks this process holds. A row on this host under this process's pid but with
 * another token was left by a previous process that had the same pid: in a container every run is pid 1.
 */
const tokensHeldHere = new Set<string>();

/** Whether another live process holds the lock `name`: its lease runs, and a holder on this host still exists. */
export function isHeldByAnother(db: Db, name: string, now = new Date()): boolean {
  const row = db.prepare('SELECT * FROM instance_lock WHERE name = ?').get(name) as LockRow | undefined;
  if (!row || row.expires_at <= now.toISOString()) return false;
  return !tokensHeldHere.has(row.token) && !holderIsGone(row);
}

function toHolder(row: LockRow): LockHolder {
  return { pid: row.pid, hostname: row.hostname, command: row.command, acquiredAt: row.acquired_at, heartbeatAt: row.heartbeat_at, expiresAt: row.expires_at };
}

/** Takes the writer lock and renews it every third of the lease until released. */
export async function acquireLock(options: AcquireOptions): Promise<HeldLock> {
  const { db, leaseMs, logger } = options;
  const name = options.name ?? WRITER_LOCK;
  const token = randomUUID();
  const tryTake = db.transaction((now: Date): LockRow | null => {
    const current = db.prepare('SELECT * FROM instance_lock WHERE name = ?').get(name) as LockRow | undefined;
    if (current && current.expires_at > now.toISOString()) {
      if (!holderIsGone(current)) return current;
      logger.warn({ previous: toHolder(current) }, `taking over the ${name === WRITER_LOCK ? 'writer lock' : `lock ${name}`} of pid ${current.pid}, which no longer runs on this host`);
    } else if (current) {
      logger.warn({ previous: toHolder(current) }, `taking over the ${name === WRITER_LOCK ? 'writer lock' : `lock ${name}`}, whose lease expired (its holder probably crashed)`);
    }
    const stamp = now.toISOString();
    db.prepare(
      `INSERT OR REPLACE INTO instance_lock (name, token, pid, hostname, command, acquired_at, heartbeat_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(name, token, process.pid, hostname(), options.command, stamp, stamp, new Date(now.getTime() + leaseMs).toISOString());
    return null;
  });

  let announced = false;
  for (;;) {
    const attemptAt = new Date();
    const busy = tryTake.immediate(attemptAt);
    if (!busy) {
      tokensHeldHere.add(token);
      options.onRenewed?.(attemptAt);
      break;
    }
    if (!options.wait) throw new LockBusyError(options.dbPath, toHolder(busy));
    options.onBusy?.(toHolder(busy));
    if (!announced) {
      logger.info({ holder: toHolder(busy) }, new LockBusyError(options.dbPath, toHolder(busy)).message + ' Waiting for it.');
      announced = true;
    }
    await delay(Math.min(leaseMs / 4, 1_000), options.signal);
  }

  const lost = new AbortController();
  const renew = db.prepare('UPDATE instance_lock SET heartbeat_at = ?, expires_at = ? WHERE name = ? AND token = ?');
  const timer = setInterval(() => {
    const now = new Date();
    try {
      const { changes } = renew.run(now.toISOString(), new Date(now.getTime() + leaseMs).toISOString(), name, token);
      if (changes === 0) {
        logger.error({ lock: name }, 'the lock was taken over by another process; stopping work');
        lost.abort(new LockLostError(options.dbPath));
        clearInterval(timer);
        tokensHeldHere.delete(token);
      } else options.onRenewed?.(now);
    } catch (error) {
      // A busy database delays one renewal; the lease has two more chances before it runs out.
      logger.warn({ err: error, lock: name }, 'could not renew the lock');
    }
  }, Math.max(50, Math.floor(leaseMs / 3)));
  timer.unref();

  return {
    lost: lost.signal,
    release() {
      clearInterval(timer);
      tokensHeldHere.delete(token);
      db.prepare('DELETE FROM instance_lock WHERE name = ? AND token = ?').run(name, token);
    },
  };
}

/**
 * A holder on this host whose pid no longer exists has crashed: its lock need not wait for the lease;
 * nor does one under this process's own pid that this process does not hold (a previous pid 1). On
 * another host nothing can be checked, so only the lease decides.
 */
function holderIsGone(row: LockRow): boolean {
  if (row.hostname !== hostname()) return false;
  if (row.pid === process.pid) return !tokensHeldHere.has(row.token);
  return !processExists(row.pid);
}

/** Signal 0 checks without signalling; EPERM means the process exists under another user. */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
