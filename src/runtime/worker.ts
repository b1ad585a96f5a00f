import { createApiClient } from '../api/client.js';
import type { CommandContext } from '../cli/context.js';
import { STREAM_NAMES } from '../config.js';
import { countInboxFiles } from '../state/inbox/inboxCounts.js';
import { openDatabase } from '../db/open.js';
import type { OpsFacts } from '../metrics/facts.js';
import type { Health } from '../metrics/health.js';
import { countDrift } from '../drift/index.js';
import { countMirrorRows } from '../sync/mirrorRows.js';
import type { WorkerDeps } from './jobs.js';
import { deepRefreshFacts } from './deepRefreshFacts.js';
import { lastPublicationFailure } from './lastPublicationFailure.js';
import { lastSuccessFacts } from './lastSuccessFacts.js';
import { acquireLock } from './lock.js';
import { queueFacts } from './queueFacts.js';
import { installShutdown } from './shutdown.js';
import { lastLedgerDefects, lastVerifyFact } from './verifyFacts.js';

export interface WorkerOptions {
  /** Named in the lock so another process can say who holds the mirror. */
  command: string;
  /** Whether the command may create the mirror (sync, once, run); the others need it to exist. */
  createsMirror: boolean;
  /** `run` waits for the lock; one-shot commands fail at once so a scheduler sees it. */
  waitForLock: boolean;
  /** Where the jobs and the client tell what they did (metrics); none by default. */
  facts?: OpsFacts;
  /** Told when the mirror is open and how the writer lock fares (`/healthz`, `/readyz`). */
  health?: Health;
}

/** SIGTERM or SIGINT came while the process waited for another's writer lock: it stops having done nothing. */
export class StoppedBeforeStartError extends Error {
  constructor(signalMessage: string) {
    super(`${signalMessage} while waiting for the writer lock; nothing ran`);
    this.name = 'StoppedBeforeStartError';
  }
}

/**
 * Opens the mirror and the client, takes the writer lock, and installs the graceful shutdown;
 * `work` gets a signal that aborts on SIGTERM/SIGINT or when the lock is lost, and `deadline`, which
 * aborts only when the shutdown deadline passes after such a signal (or the lock is lost), for work
 * that finishes what it started rather than stop half-way. Everything is closed again however `work` ends.
 */
export async function withWorker<T>(
  ctx: CommandContext,
  options: WorkerOptions,
  work: (deps: WorkerDeps, signal: AbortSignal, deadline: AbortSignal) => Promise<T>,
): Promise<T> {
  const { config, logger } = ctx;
  const shutdown = installShutdown(logger, config.runtime.shutdownDeadlineSeconds * 1000);
  const { facts, health } = options;
  const db = openDatabase(config.db.path, { mustExist: !options.createsMirror });
  const client = createApiClient(config.api, logger, undefined, facts);
  try {
    health?.mirrorOpened();
    // Counted once at start; each job keeps its own tables' figures current from then on. The last
    // successes come first: before the lock, so a run that fails or waits still reports them.
    if (facts) {
      facts.lastSuccessesRead(lastSuccessFacts(db, config));
      facts.deepRefreshRead(deepRefreshFacts(db, config.sync.streams));
      const verified = lastVerifyFact(db);
      if (verified !== null) facts.verifyFinished(verified);
      const ledgerDefects = lastLedgerDefects(db);
      if (ledgerDefects !== null) facts.ledgerChecked(ledgerDefects);
      for (const table of STREAM_NAMES) facts.mirrorRows(table, countMirrorRows(db, table));
      facts.queueCounted(...queueFacts(db));
      if (config.state.url !== '') facts.inboxCounted(countInboxFiles(db));
      facts.lastPublicationFailureRead(lastPublicationFailure(db, config));
      for (const stream of config.sync.streams) facts.schemaDriftCounted(stream, countDrift(db, stream));
    }
    const leaseMs = config.runtime.lockLeaseSeconds * 1000;
    const lock = await acquireLock({
      db,
      dbPath: config.db.path,
      command: options.command,
      leaseMs,
      logger,
      wait: options.waitForLock,
      signal: shutdown.signal,
      onRenewed: (at) => health?.lockRenewed(at, leaseMs),
      onBusy: (holder) => health?.lockBusy(holder),
    }).catch((error: unknown) => {
      // A stop asked for while waiting for another process's lock: nothing ran, nothing was left half-done.
      if (shutdown.signal.aborted && error === shutdown.signal.reason) throw new StoppedBeforeStartError(String((error as Error).message));
      throw error;
    });
    if (health) lock.lost.addEventListener('abort', () => health.lockLost(), { once: true });
    try {
      const lost = [lock.lost, ...(ctx.state ? [ctx.state.lostSignal] : [])];
      return await work({ db, client, config, logger, facts, state: ctx.state }, AbortSignal.any([shutdown.signal, ...lost]), AbortSignal.any([shutdown.deadline, ...lost]));
    } finally {
      lock.release();
    }
  } finally {
    await client.close();
    db.close();
    shutdown.dispose();
  }
}
