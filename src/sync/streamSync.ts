import { ApiError, describeError, isUnreachable } from '../api/errors.js';
import type { ApiClient, ListName } from '../api/client.js';
import type { Config } from '../config.js';
import type { Db } from '../db/open.js';
import { createDriftDetector, warnMistyped, warnNewDrift, type DriftDetector, type DriftFinding } from '../drift/index.js';
import type { ApiRecord, UpsertResult } from '../db/upsertRecords.js';
import type { Logger } from '../log.js';
import type { StreamDefinition } from '../streams/index.js';
import type { CheckpointStore } from './checkpoint.js';
import { checkIds } from './checkIds.js';
import { passPages, readAhead, type SourcePage } from './pages.js';
import { planStream } from './plan.js';
import type { Progress } from './progress.js';
import { createRunLog, statsDelta } from './runs.js';
import { runDeepSlice } from './deepSlice.js';
import type { GroupOutcome, PageGroup } from './storeMessages.js';
import type { StoreThread } from './storeThread.js';
import type { Pass, Plan, StreamReport } from './types.js';

export interface StreamRunContext {
  db: Db;
  client: ApiClient;
  config: Readonly<Config>;
  /** Already carries `{ runId, stream }`. */
  logger: Logger;
  stream: StreamDefinition;
  runId: string;
  full: boolean;
  refresh: boolean;
  signal?: AbortSignal;
  progress: Progress;
  checkpoints: CheckpointStore;
  /** Writes the pages on its own connection; this thread's `db` reads what it committed. */
  store: StoreThread;
  clock: () => Date;
  /** As in `SyncOptions`: default true. */
  checkDrift?: boolean;
  /** As in `SyncOptions`. */
  acceptRemovals?: boolean;
  /** As in `SyncOptions`: read the stream whole now, to the end, if it has no update filter. */
  deep?: boolean;
  /** Run only the re-reads of records another stream signalled as changed (a run's follow-up). */
  signalledOnly?: boolean;
}

/**
 * Pages fetched ahead of storage at most. They wait as the bytes the API sent (about 6 MB for 32 pages
 * of transactions), so
 * the network keeps going through the storage thread's commits, which take a few hundred milliseconds
 * in a bulk load; a buffer of 4 pages stalled the fetching for most of each one.
 */
const READ_AHEAD_PAGES = 32;
/**
 * A deep refresh re-reads stored rows at the API's pace, never faster than storage takes them: a few pages
 * ahead keep the network busy, and a kill loses no more than those (32 would be a resumed run's to fetch again).
 */
const DEEP_READ_AHEAD_PAGES = 4;

/**
 * Runs one stream's plan (or resumes its unfinished one) page by page: each group of pages and the
 * checkpoint after it are stored together, so a kill at any instant loses nothing that a resumed run
 * does not read again.
 */
export async function syncStream(ctx: StreamRunContext): Promise<StreamReport> {
  const { db, client, stream, logger, checkpoints, signal, clock } = ctx;
  const name = stream.name;
  const walk = stream.strategy.kind === 'full-walk';
  const report: StreamReport = { stream: name, status: 'succeeded', rowsRead: 0, inserted: 0, updated: 0, pages: 0, refreshed: false };
  if (walk) report.removed = 0;
  const runs = createRunLog(db);
  const runRow = runs.start(ctx.runId, name, clock().toISOString());
  const statsBefore = { ...client.stats };
  const started = performance.now();
  ctx.progress.begin(name);
  // Aborting this cancels the page in flight and drops those read ahead; the caller's signal feeds it.
  const fetches = new AbortController();
  const onAbort = (): void => fetches.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const missing = new Set<string>();
  const optional = new Set(stream.columns.filter((column) => column.optional).map((column) => column.name));
  const { store } = ctx;
  const removals = { maxShare: ctx.config.sync.maxRemovedShare, accepted: ctx.acceptRemovals === true };

  // A group of pages and the checkpoint after the last of them, stored together.
  const storeWith = (pages: FetchedPage[], checkpoint: PageGroup['checkpoint']): Promise<GroupOutcome> =>
    store.store({ stream: name, bodies: pages.map((page) => page.body), checkpoint, at: clock().toISOString(), drift: pages.flatMap((page) => page.drift), removals });
  const storeGroup = (pages: FetchedPage[], finished: Pass | null, rest: Plan, next: string | null): Promise<GroupOutcome> =>
    storeWith(pages, { kind: 'plan', finished, rest, next });
  // Here, not on the storage thread: this thread parses every page anyway and mostly waits for storage,
  // which is what bounds a sync's speed.
  const detectDrift = ctx.checkDrift === false ? null : createDriftDetector(stream);

  // Fields whose values of the wrong type were met in this run: each is warned of once per run, not per row.
  const mistyped = new Set<string>();
  const record = (rows: number, result: UpsertResult): void => {
    report.rowsRead += rows;
    report.inserted += result.inserted;
    report.updated += result.updated;
    for (const column of result.missingColumns) if (!optional.has(column)) missing.add(column);
    for (const [column, values] of result.mistypedColumns) {
      if (mistyped.has(column)) continue;
      mistyped.add(column);
      warnMistyped(logger, name, column, values);
    }
  };

  const source = { client, list: listNameOf(stream), logger, signal: fetches.signal };
  /** Reads every pass of `plan` from `cursor`, storing each group of pages with the checkpoint after it; commits at the end. */
  const runPlan = async (start: Plan, from: string | null): Promise<void> => {
    let plan = start;
    let cursor = from;
    while (plan.passes.length > 0) {
      const pass = plan.passes[0];
      const ahead = readAhead(checkedPages(stream, passPages(pass, cursor, source), detectDrift), READ_AHEAD_PAGES);
      let passEnded = false;
      try {
        for (let group = await ahead.take(); group.length > 0; group = await ahead.take()) {
          const last = group[group.length - 1];
          passEnded = last.next === null;
          const rest = passEnded ? { ...plan, passes: plan.passes.slice(1) } : plan;
          const outcome = await storeGroup(group, passEnded ? pass : null, rest, last.next);
          plan = outcome.rest;
          cursor = passEnded ? null : last.next;
          warnNewDrift(logger, outcome.drift);
          if (walk) report.removed = (report.removed ?? 0) + outcome.removed;
          group.forEach((page, i) => {
            const result = outcome.results[i];
            report.pages += 1;
            record(page.rows, result);
            logger.debug(
              { pass: describePass(pass), page: report.pages, rows: page.rows, inserted: result.inserted, updated: result.updated, more: page.next !== null },
              'page stored',
            );
          });
          ctx.progress.update(name, report.rowsRead, report.pages);
          if (passEnded) break;
          signal?.throwIfAborted();
        }
      } finally {
        ahead.close();
      }
      if (!passEnded) {
        // The source ended without a final page (the walk met an empty page): close the pass on its own.
        signal?.throwIfAborted();
        const rest = { ...plan, passes: plan.passes.slice(1) };
        const outcome = await storeGroup([], pass, rest, null);
        if (walk) report.removed = (report.removed ?? 0) + outcome.removed;
        plan = outcome.rest;
        cursor = null;
      }
    }
    // What comes next (planning, the run log, status) reads through this thread's connection.
    await store.flush();
  };

  try {
    signal?.throwIfAborted();
    if (ctx.full) checkpoints.forget(name, clock().toISOString());
    const resumed = unfinishedPlan(ctx);
    if (resumed !== null) {
      await runPlan(resumed.plan, resumed.cursor);
      if (resumed.plan.refreshes) report.refreshed = true;
    }
    // A resumed plan was made before this run began: rows that became visible since may lie behind
    // its cursor (or its walk's pages may have shifted), so the run's own plan always follows.
    const plan = freshPlan(ctx);
    await runPlan(plan, null);
    if (plan.refreshes) report.refreshed = true;
    if (stream.noUpdateFilter && ctx.signalledOnly !== true) {
      const deep = await runDeepSlice(
        {
          db,
          stream,
          config: ctx.config,
          logger,
          clock,
          signal,
          source,
          checkPages: (pages) => checkedPages(stream, pages, detectDrift),
          storeWith: (pages, checkpoint) => storeWith(pages, checkpoint),
          record,
          readAheadPages: DEEP_READ_AHEAD_PAGES,
        },
        ctx.deep === true,
      );
      if (deep !== null) {
        report.deep = deep;
        report.pages += deep.pages;
        if (deep.completed) report.refreshed = true;
      }
    }
  } catch (error) {
    // Groups stored before the failure are committed with their checkpoints, unless storage itself failed:
    // then they rolled back with their checkpoints and are read again next run. (The counts in the report
    // are of rows applied, so they include those.) The failure to report is the first one.
    await store.flush().catch(() => undefined);
    if (signal?.aborted) {
      report.status = 'interrupted';
    } else {
      report.status = 'failed';
      report.error = describeError(error);
      if (isUnreachable(error)) report.unreachable = true;
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) report.refused = error.status;
      const at = clock().toISOString();
      checkpoints.fail(name, report.error, at);
      // Resuming would repeat a request the API refuses for good, so the plan is dropped, but only while its
      // pass has stored nothing: pages may come newest-first, and replanning from a stored part of a pass would
      // start after rows it never read. A pass under way keeps its checkpoint (a refused cursor restarts it).
      if (error instanceof ApiError && error.kind === 'permanent' && checkpoints.load(name).cursor === null) checkpoints.abandon(name, at);
      logger.error({ err: error }, `${name} failed: ${report.error}`);
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    fetches.abort();
  }

  const api = statsDelta(client.stats, statsBefore);
  runs.finish(runRow, report, api, clock().toISOString());
  if (missing.size > 0) {
    logger.warn({ columns: [...missing].sort() }, `some ${name} records lack fields the spec lists; those columns were stored as NULL`);
  }
  const seconds = (performance.now() - started) / 1000;
  const rowsPerSecond = Math.round(report.rowsRead / Math.max(seconds, 0.001));
  // The logger is bound to the stream already: repeating `stream` would write the key twice.
  const { stream: _bound, ...outcome } = report;
  logger.info({ ...outcome, ...api, seconds: Number(seconds.toFixed(3)), rowsPerSecond }, `${name} sync ${report.status}`);
  ctx.progress.finish(name, report.rowsRead, report.pages, report.status);
  return report;
}

/** The plan an interrupted run left, with the cursor of its first pass; null when the last run completed. */
function unfinishedPlan(ctx: StreamRunContext): { plan: Plan; cursor: string | null } | null {
  const state = ctx.checkpoints.load(ctx.stream.name);
  if (state.plan === null || state.plan.passes.length === 0) return null;
  ctx.logger.info({ pass: describePass(state.plan.passes[0]), cursor: state.cursor !== null }, 'resuming the unfinished run from its checkpoint');
  return { plan: state.plan, cursor: state.cursor };
}

/** This run's plan, from the stream's strategy and what is stored now. */
function freshPlan(ctx: StreamRunContext): Plan {
  return planStream({
    db: ctx.db,
    stream: ctx.stream,
    settings: ctx.config.sync,
    now: ctx.clock(),
    full: ctx.full,
    forceRefresh: ctx.refresh,
    lastRefreshAt: ctx.checkpoints.load(ctx.stream.name).lastRefreshAt,
    pageSize: ctx.config.api.pageSize,
    signalledOnly: ctx.signalledOnly,
  });
}

const LIST_NAMES: readonly ListName[] = ['customers', 'orders', 'activities', 'transactions'];

/** The client's list for a cursor-paged stream; null for the unsubscribe walk. */
export function listNameOf(stream: StreamDefinition): ListName | null {
  return LIST_NAMES.find((list) => list === stream.name) ?? null;
}

function describePass(pass: Pass): string {
  if (pass.kind === 'walk') return pass.confirming ? 'confirming walk' : 'walk';
  return pass.role;
}

/** A fetched page as it waits for storage: its body, its records' ids already checked, how many there are, their schema drift. */
interface FetchedPage {
  body: Uint8Array;
  rows: number;
  next: string | null;
  drift: DriftFinding[];
}

/**
 * Checks each page's ids (and schema drift, unless `detectDrift` is null) as it arrives, then lets its
 * parsed records go: the storage thread parses the body itself.
 */
async function* checkedPages(stream: StreamDefinition, pages: AsyncGenerator<SourcePage>, detectDrift: DriftDetector | null): AsyncGenerator<FetchedPage> {
  for await (const page of pages) {
    checkIds(stream, page.items);
    yield { body: page.body, rows: page.items.length, next: page.next, drift: detectDrift === null ? [] : detectDrift(page.items) };
  }
}
