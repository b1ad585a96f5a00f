import type { Config } from '../config.js';
import type { Db } from '../db/open.js';
import type { UpsertResult } from '../db/upsertRecords.js';
import type { Logger } from '../log.js';
import type { StreamDefinition } from '../streams/index.js';
import { deepRefreshDue, failDeepRefresh, loadDeepRefresh, type DeepPlan } from './deepRefreshState.js';
import { describeError } from '../api/errors.js';
import { passPages, readAhead, type SourceOptions, type SourcePage } from './pages.js';
import type { DeepCheckpoint, GroupOutcome } from './storeMessages.js';
import type { DeepSliceReport, Pass } from './types.js';

/** A fetched page as the stream's run hands it to storage (see streamSync). */
export interface DeepPage {
  body: Uint8Array;
  rows: number;
  next: string | null;
}

export interface DeepSliceContext<P extends DeepPage> {
  db: Db;
  stream: StreamDefinition;
  config: Readonly<Config>;
  logger: Logger;
  clock: () => Date;
  signal?: AbortSignal;
  source: SourceOptions;
  /** The stream run's page checks (ids, schema drift), applied to the refresh's pages as to any. */
  checkPages(pages: AsyncGenerator<SourcePage>): AsyncGenerator<P>;
  storeWith(pages: P[], checkpoint: DeepCheckpoint): Promise<GroupOutcome>;
  /** Counts a stored page in the stream's report. */
  record(rows: number, result: UpsertResult): void;
  readAheadPages: number;
}

/** The list read whole: from since_id 0, as verify's full walk reads it. */
const WHOLE_LIST: DeepPlan['params'] = { since_id: 0 };

/**
 * Reads the next slice of the stream's deep refresh, when one is under way, asked for (`sync --deep`) or
 * due. A plain sync reads at most `sync.deepRefreshPagesPerRun` pages, so its regular passes are never held
 * up for long, and the refresh goes on from its checkpoint in the next run; `toTheEnd` (`sync --deep`) reads
 * to the end of the list. Null when no slice was read.
 */
export async function runDeepSlice<P extends DeepPage>(ctx: DeepSliceContext<P>, toTheEnd: boolean): Promise<DeepSliceReport | null> {
  const { db, stream, logger } = ctx;
  const state = loadDeepRefresh(db, stream.name);
  if (!deepRefreshDue(state, ctx.clock(), ctx.config.sync.deepRefreshIntervalHours)) return null;
  const underWay = state.plan !== null && state.startedAt !== null;
  let checkpoint: DeepCheckpoint = underWay
    ? { kind: 'deep', plan: state.plan!, startedAt: state.startedAt!, pages: state.pages, rows: state.rows, next: state.cursor }
    : { kind: 'deep', plan: { params: WHOLE_LIST, spans: [] }, startedAt: ctx.clock().toISOString(), pages: 0, rows: 0, next: null };
  const budget = toTheEnd ? Infinity : ctx.config.sync.deepRefreshPagesPerRun;
  logger.info({ startedAt: checkpoint.startedAt, pagesSoFar: checkpoint.pages, pageBudget: toTheEnd ? null : budget }, underWay ? 'deep refresh goes on' : 'deep refresh started');

  const slice: DeepSliceReport = { pages: 0, rows: 0, inserted: 0, updated: 0, removed: 0, completed: false };
  const pass: Pass = { kind: 'list', role: 'new', params: checkpoint.plan.params };
  const ahead = readAhead(ctx.checkPages(atMost(passPages(pass, checkpoint.next, ctx.source), budget)), ctx.readAheadPages);
  try {
    for (let group = await ahead.take(); group.length > 0; group = await ahead.take()) {
      const next = group[group.length - 1].next;
      const outcome = await ctx.storeWith(group, { ...checkpoint, next });
      const rows = group.reduce((sum, page) => sum + page.rows, 0);
      checkpoint = { ...checkpoint, plan: outcome.deep ?? checkpoint.plan, pages: checkpoint.pages + group.length, rows: checkpoint.rows + rows, next };
      group.forEach((page, i) => {
        ctx.record(page.rows, outcome.results[i]);
        slice.inserted += outcome.results[i].inserted;
        slice.updated += outcome.results[i].updated;
      });
      slice.pages += group.length;
      slice.rows += rows;
      if (next === null) {
        slice.completed = true;
        slice.removed = outcome.removed;
        break;
      }
      ctx.signal?.throwIfAborted();
    }
  } catch (error) {
    if (ctx.signal?.aborted !== true) failDeepRefresh(db, stream.name, describeError(error), ctx.clock().toISOString());
    throw error;
  } finally {
    ahead.close();
  }
  logger.info({ ...slice, pagesSoFar: checkpoint.pages }, slice.completed ? 'deep refresh completed' : 'deep refresh paused; the next sync goes on from its checkpoint');
  return slice;
}

/** The first `limit` pages of `pages`: a slice fetches no page it will not store. */
async function* atMost<T>(pages: AsyncGenerator<T>, limit: number): AsyncGenerator<T> {
  if (limit <= 0) return;
  let taken = 0;
  for await (const page of pages) {
    yield page;
    taken += 1;
    if (taken >= limit) return;
  }
}
