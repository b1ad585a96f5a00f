import { describeError } from '../api/errors.js';
import type { StreamName } from '../config.js';
import { createDriftDetector, recordDrift, warnNewDrift } from '../drift/index.js';
import { getStream } from '../streams/index.js';
import { massRemovalProblem, type RemovalRule } from '../sync/massRemoval.js';
import { createDifferenceJudge } from './differenceJudge.js';
import { createMirrorRows } from './mirrorRows.js';
import { missingBound } from './missingBound.js';
import { createRepairer } from './repair.js';
import { RequestBudget, verifySampled } from './sampledVerify.js';
import type { StreamVerifyContext } from './streamContext.js';
import { StreamTally } from './streamTally.js';
import { verifyStreamFull } from './fullVerify.js';
import type { StreamVerifyResult, VerifyOptions, VerifyReport } from './types.js';
import { failVerifyRun, finishVerifyRun, startVerifyRun } from './verifyRuns.js';
import { reconcileAndRecord } from '../ledger/reconcileAndRecord.js';
import { updateLedger } from '../ledger/updateLedger.js';

/**
 * Compares the chosen streams of the mirror with the API (every row with mode `full`, a budget of
 * requests with `sample`), repairs what differs when asked, and records the run in `verify_runs`.
 * A stream whose API fails is reported with its error; the others still run.
 */
export async function runVerify(options: VerifyOptions): Promise<VerifyReport> {
  const { db, client, config, mode } = options;
  const clock = options.clock ?? (() => new Date());
  const signal = options.signal ?? new AbortController().signal;
  const names = [...new Set<StreamName>(options.streams ?? config.sync.streams)];
  const logger = options.logger.child({ verify: mode });
  const requestsBefore = client.stats.requests;
  const runId = startVerifyRun(db, mode, options.repair, clock().toISOString());
  logger.info({ streams: names, mode, repair: options.repair, ...(mode === 'sample' ? { budget: options.requests } : {}) }, 'verify started');

  try {
    // Every stream's judge reads the sync's state before any repair moves a watermark.
    const started = clock();
    const contexts: StreamVerifyContext[] = names.map((name) => {
      const stream = getStream(name);
      const streamLogger = logger.child({ stream: name });
      const detectDrift = createDriftDetector(stream);
      return {
        client,
        config,
        logger: streamLogger,
        stream,
        mirror: createMirrorRows(db, stream),
        judge: createDifferenceJudge(db, stream, config.sync, started),
        tally: new StreamTally(),
        repairer: options.repair ? createRepairer(db, stream, clock, signal) : null,
        noteDrift: (records) => warnNewDrift(streamLogger, recordDrift(db, detectDrift(records), clock().toISOString())),
        signal,
      };
    });
    const errors = new Map<StreamName, string>();
    const fail = (ctx: StreamVerifyContext, error: unknown): void => {
      if (signal.aborted) throw error;
      errors.set(ctx.stream.name, describeError(error));
      ctx.logger.error({ err: error }, `verify of ${ctx.stream.name} failed: ${describeError(error)}`);
    };

    if (mode === 'full') {
      for (const ctx of contexts) await verifyStreamFull(ctx).catch((error: unknown) => fail(ctx, error));
    } else {
      await verifySampled(contexts, new RequestBudget(options.requests), options.random ?? Math.random, fail);
    }

    const removals: RemovalRule = { maxShare: config.sync.maxRemovedShare, accepted: options.acceptRemovals === true };
    const streams = contexts.map((ctx) => finishStream(ctx, mode, removals, errors.get(ctx.stream.name)));
    const remaining = streams.some((stream) => stream.error !== undefined || (!options.repair && stream.defects > 0));
    // What a repair stored reaches the model tables as a sync's pages would; then the balances are reconciled.
    if (options.repair) updateLedger(db, { timeZone: config.program.timeZone, pointValue: config.ledger.pointValue }, clock());
    const ledger = reconcileAndRecord(db, config.sync, clock(), logger);
    const report: VerifyReport = { mode, requests: client.stats.requests - requestsBefore, ok: !remaining && ledger.defects.length === 0, streams, ledger };
    finishVerifyRun(db, runId, report, clock().toISOString());
    logger.info({ ok: report.ok, requests: report.requests }, 'verify finished');
    return report;
  } catch (error) {
    failVerifyRun(db, runId, describeError(error), clock().toISOString());
    throw error;
  }
}

/** Marks the extras (when repairing), corrects the watermark, and turns the tally into the stream's result. */
function finishStream(ctx: StreamVerifyContext, mode: VerifyOptions['mode'], removals: RemovalRule, failure: string | undefined): StreamVerifyResult {
  const { tally, repairer, logger, stream } = ctx;
  for (const { id, verdict } of ctx.judge.settle()) tally.judged(id, 'stale', verdict);
  let error = failure;
  // A walk cut short cannot tell an extra from a row on a page it did not read: extras stand only for a stream verified to its end.
  if (repairer !== null && error === undefined) error = refusedMassRemoval(ctx, removals);
  if (repairer !== null && error === undefined) {
    repairer.markRemoved(tally.extras());
    const moved = repairer.correctWatermark();
    if (moved !== null) logger.warn(moved, `${stream.name}: the watermark moved from ${moved.from} to ${moved.to}; rows above it were not in the API`);
  }
  const bound = mode === 'sample' ? missingBound(tally.missing.count, tally.compared) : null;
  const result = tally.result(stream.name, bound, repairer?.counts);
  if (error !== undefined) result.error = error;
  const { missing_count, extra_count, stale_count } = result;
  logger.info(
    { compared: result.compared, missing: missing_count, extra: extra_count, stale: stale_count, pending: result.pending.count, unsynced: result.unsynced, repaired: result.repaired },
    `${stream.name} verified`,
  );
  return result;
}

/** Why the extras may not be marked without --accept-removals (the sync's rule for tombstones); undefined when they may. */
function refusedMassRemoval(ctx: StreamVerifyContext, removals: RemovalRule): string | undefined {
  if (removals.accepted) return undefined;
  const problem = massRemovalProblem(ctx.tally.extraCount(), ctx.mirror.presentCount(), removals.maxShare, `stored ${ctx.stream.name} rows`);
  if (problem === null) return undefined;
  const message = `the repair ${problem}, so nothing was marked; if the API really lost those rows, confirm with verify --repair --accept-removals`;
  ctx.logger.error(message);
  return message;
}
