import { randomBytes } from 'node:crypto';
import type { StreamName } from '../config.js';
import { checkpointLessOften } from '../db/walCheckpoint.js';
import { getStream } from '../streams/index.js';
import { createCheckpointStore } from './checkpoint.js';
import { createProgress } from './progress.js';
import { startStoreThread } from './storeThread.js';
import { syncStream } from './streamSync.js';
import type { StreamReport, SyncOptions, SyncReport } from './types.js';
import { SKIPPED_UNREACHABLE } from './unreachable.js';

/**
 * Pulls the chosen streams one after another. A stream that fails is reported and recorded,
 * and the others still run; an aborted signal stops after the page in flight is stored.
 * Pages are written by a storage thread on its own connection, so the mirror must be a file.
 */
export async function runSync(options: SyncOptions): Promise<SyncReport> {
  const clock = options.clock ?? (() => new Date());
  const runId = newRunId(clock());
  const logger = options.logger.child({ runId });
  const names = [...new Set<StreamName>(options.streams ?? options.config.sync.streams)];
  const checkpoints = createCheckpointStore(options.db);
  const progress = createProgress(options.progress);
  const reports: StreamReport[] = [];
  if (options.db.memory) throw new Error('a sync needs the mirror in a file: its storage thread opens a connection of its own');
  logger.info({ streams: names, full: options.full === true, refresh: options.refresh === true }, 'sync started');
  const store = startStoreThread(options.db.name);
  const restoreCheckpointing = checkpointLessOften(options.db);
  let storeFailure: unknown = null;
  try {
    for (const name of names) {
      if (options.signal?.aborted) {
        reports.push({ stream: name, status: 'interrupted', rowsRead: 0, inserted: 0, updated: 0, pages: 0, refreshed: false });
        continue;
      }
      // Each stream would only spend its own retries finding the same closed door.
      if (reports.some((report) => report.unreachable)) {
        reports.push({ stream: name, status: 'skipped', error: SKIPPED_UNREACHABLE, rowsRead: 0, inserted: 0, updated: 0, pages: 0, refreshed: false });
        logger.warn({ stream: name }, `${name} ${SKIPPED_UNREACHABLE}`);
        continue;
      }
      const stream = getStream(name);
      reports.push(
        await syncStream({
          ...options,
          logger: logger.child({ stream: name }),
          stream,
          runId,
          full: options.full === true,
          refresh: options.refresh === true,
          progress,
          checkpoints,
          store,
          clock,
        }),
      );
    }
  } finally {
    restoreCheckpointing();
    // Every stream flushed at its end, so nothing is left to commit: a failure here is the thread's own.
    await store.close().catch((error: unknown) => (storeFailure = error));
  }
  if (storeFailure !== null) logger.error({ err: storeFailure }, "the sync's storage thread did not stop cleanly");
  const ok = storeFailure === null && reports.every((report) => report.status === 'succeeded');
  logger.info({ ok }, 'sync finished');
  return { runId, ok, streams: reports };
}

/** Sortable by time and unique enough for one mirror: 20261122T203000Z-3f9a1c. */
function newRunId(now: Date): string {
  return `${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '')}-${randomBytes(3).toString('hex')}`;
}
