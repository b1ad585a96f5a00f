import { randomBytes } from 'node:crypto';
import type { StreamName } from '../config.js';
import { checkpointLessOften } from '../db/walCheckpoint.js';
import { getStream } from '../streams/index.js';
import { createCheckpointStore } from './checkpoint.js';
import { countDrift } from '../drift/index.js';
import { countMirrorRows } from './mirrorRows.js';
import { createProgress } from './progress.js';
import { startStoreThread } from './storeThread.js';
import { countSignals } from './changeSignals.js';
import { deepRefreshedStreams } from './deepRefreshedStreams.js';
import { requestDeepRefresh } from './deepRefreshState.js';
import { syncStream, type StreamRunContext } from './streamSync.js';
import type { StreamReport, SyncOptions, SyncReport } from './types.js';
import { stopsSync } from './unreachable.js';
import { updateLedger } from '../ledger/updateLedger.js';

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
  logger.info({ streams: names, full: options.full === true, refresh: options.refresh === true, deep: options.deep === true }, 'sync started');
  if (options.deep === true) {
    const deepStreams = deepRefreshedStreams(names);
    const asked = requestDeepRefresh(options.db, deepStreams, clock().toISOString());
    if (asked.length < deepStreams.length) logger.info({ streams: deepStreams }, 'a deep refresh asked for earlier is unfinished: this run finishes it rather than beginning another');
  }
  const store = startStoreThread(options.db.name);
  const restoreCheckpointing = checkpointLessOften(options.db);
  const common = { ...options, runId, full: options.full === true, refresh: options.refresh === true, deep: options.deep === true, progress, checkpoints, store, clock };
  let storeFailure: unknown = null;
  try {
    for (const name of names) {
      if (options.signal?.aborted) {
        reports.push({ stream: name, status: 'interrupted', rowsRead: 0, inserted: 0, updated: 0, pages: 0, refreshed: false });
        continue;
      }
      // Each stream would only spend its own requests finding the same closed door.
      const stopped = reports.map((report, i) => stopsSync(report, reports.slice(0, i))).find((reason) => reason !== null);
      if (stopped !== undefined) {
        reports.push({ stream: name, status: 'skipped', error: `skipped: ${stopped}`, rowsRead: 0, inserted: 0, updated: 0, pages: 0, refreshed: false });
        logger.warn({ stream: name }, `${name} skipped: ${stopped}`);
        continue;
      }
      const started = performance.now();
      const report = await syncStream({ ...common, logger: logger.child({ stream: name }), stream: getStream(name) });
      reports.push(report);
      if (options.facts) tellFacts(options.facts, options.db, report, (performance.now() - started) / 1000, clock());
    }
    await followSignals(reports, { ...common, logger });
  } finally {
    restoreCheckpointing();
    // Every stream flushed at its end, so nothing is left to commit: a failure here is the thread's own.
    await store.close().catch((error: unknown) => (storeFailure = error));
  }
  if (storeFailure !== null) logger.error({ err: storeFailure }, "the sync's storage thread did not stop cleanly");
  const ledgerError = bringLedgerUpToDate(options, clock(), logger);
  const ok = storeFailure === null && ledgerError === null && reports.every((report) => report.status === 'succeeded');
  logger.info({ ok }, 'sync finished');
  return { runId, ok, streams: reports, ...(ledgerError === null ? {} : { ledgerError }) };
}

/**
 * The model tables follow the mirror at the end of every sync, whatever its streams' outcome: what was stored
 * is in the mirror, so it belongs in the ledger too. A failure fails the sync (its streams' rows stay stored); its
 * sentence is returned for the command's own output, where every stream may read `succeeded`. Null when it worked.
 */
function bringLedgerUpToDate(options: SyncOptions, now: Date, logger: SyncOptions['logger']): string | null {
  try {
    const update = updateLedger(options.db, { timeZone: options.config.program.timeZone, pointValue: options.config.ledger.pointValue }, now);
    logger.info({ ledger: update }, 'points ledger updated');
    return null;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    logger.error({ err: error }, `the points ledger could not be updated: ${message}`);
    return message;
  }
}

/**
 * A stream read after the one it signals changes for (transactions after activities) may have queued records
 * for a re-read: they are read in the same run, so a plain sync brings an old activity's approval at once.
 * The follow-up's counts join the signalled stream's report; its failure fails that stream.
 */
async function followSignals(reports: StreamReport[], ctx: Omit<StreamRunContext, 'stream'>): Promise<void> {
  for (const [i, report] of reports.entries()) {
    const signal = getStream(report.stream).changeSignal;
    if (signal === undefined || report.status !== 'succeeded' || ctx.signal?.aborted) continue;
    const source = reports.find((other) => other.stream === signal.from);
    if (source === undefined || reports.indexOf(source) < i || source.rowsRead === 0 || countSignals(ctx.db) === 0) continue;
    const follow = await syncStream({ ...ctx, logger: ctx.logger.child({ stream: report.stream }), stream: getStream(report.stream), signalledOnly: true });
    reports[i] = {
      ...report,
      status: follow.status,
      ...(follow.error === undefined ? {} : { error: follow.error }),
      rowsRead: report.rowsRead + follow.rowsRead,
      inserted: report.inserted + follow.inserted,
      updated: report.updated + follow.updated,
      pages: report.pages + follow.pages,
      signalled: { rows: follow.rowsRead, pages: follow.pages },
    };
  }
}

/**
 * The table is counted once per stream and run (not per scrape). The count comes first, so a reader
 * that sees the run counted also sees the rows it left. An interrupted stream (shutdown) is no outcome.
 */
function tellFacts(facts: NonNullable<SyncOptions['facts']>, db: SyncOptions['db'], report: StreamReport, seconds: number, finishedAt: Date): void {
  if (report.status === 'interrupted') return;
  facts.mirrorRows(report.stream, countMirrorRows(db, report.stream));
  facts.schemaDriftCounted(report.stream, countDrift(db, report.stream));
  facts.streamSynced({
    stream: report.stream,
    outcome: report.status === 'succeeded' ? 'succeeded' : 'failed',
    inserted: report.inserted,
    updated: report.updated,
    removed: report.removed ?? 0,
    seconds,
    finishedAt,
  });
}

/** Sortable by time and unique enough for one mirror: 20261122T203000Z-3f9a1c. */
function newRunId(now: Date): string {
  return `${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '')}-${randomBytes(3).toString('hex')}`;
}
