import { createApiClient } from '../api/client.js';
import type { CommandContext } from '../cli/context.js';
import { openDatabase } from '../db/open.js';
import type { WorkerDeps } from './jobs.js';
import { acquireLock } from './lock.js';
import { installShutdown } from './shutdown.js';

export interface WorkerOptions {
  /** Named in the lock so another process can say who holds the mirror. */
  command: string;
  /** `run` waits for the lock; one-shot commands fail at once so a scheduler sees it. */
  waitForLock: boolean;
}

/**
 * Opens the mirror and the client, takes the writer lock, and installs the graceful shutdown;
 * `work` gets a signal that aborts on SIGTERM/SIGINT or when the lock is lost. Everything is
 * closed again however `work` ends.
 */
export async function withWorker<T>(ctx: CommandContext, options: WorkerOptions, work: (deps: WorkerDeps, signal: AbortSignal) => Promise<T>): Promise<T> {
  const { config, logger } = ctx;
  const shutdown = installShutdown(logger, config.runtime.shutdownDeadlineSeconds * 1000);
  const db = openDatabase(config.db.path);
  const client = createApiClient(config.api, logger);
  try {
    const lock = await acquireLock({
      db,
      dbPath: config.db.path,
      command: options.command,
      leaseMs: config.runtime.lockLeaseSeconds * 1000,
      logger,
      wait: options.waitForLock,
      signal: shutdown.signal,
    });
    try {
      return await work({ db, client, config, logger }, AbortSignal.any([shutdown.signal, lock.lost]));
    } finally {
      lock.release();
    }
  } finally {
    await client.close();
    db.close();
    shutdown.dispose();
  }
}
