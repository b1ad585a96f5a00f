import { setTimeout as sleep } from 'node:timers/promises';
import { isRetryable, ApiError } from '../api/errors.js';
import type { UnsubscribeEntry } from '../api/types.js';
import { checkIds } from '../sync/checkIds.js';
import { listNameOf } from '../sync/streamSync.js';
import { compareRecords } from './comparePage.js';
import { byIdSince } from './idOrder.js';
import { judgeUnseen } from './fullVerify.js';
import { IdSpans } from '../sync/idSpans.js';
import { compareSpanPage } from './spanPage.js';
import type { StreamVerifyContext } from './streamContext.js';
import type { MirrorId } from './types.js';

/** Requests a sampled verify may still send; every attempt counts, retries included. */
export class RequestBudget {
  used = 0;
  constructor(readonly limit: number) {}

  get left(): number {
    return this.limit - this.used;
  }
}

/** Draws of a since_id that may land inside windows already read before a stream counts as covered. */
const DRAWS_PER_WINDOW = 20;

interface Sampler {
  ctx: StreamVerifyContext;
  spans: IdSpans;
  /** Where windows are drawn: the ids present in the mirror. */
  range: { low: number; high: number } | null;
  done: boolean;
  fail(error: unknown): void;
}

/**
 * Sampled verify of several streams within one budget of requests, sent through the shared client (and
 * so its rate limiter), one attempt at a time so the budget is never exceeded:
 * 1. the newest page of each id-keyed stream;
 * 2. the whole unsubscribe walk, when its pages (by the mirror's count) fit in what is left;
 * 3. random since_id windows across each stream's id range, in turn, until the budget is spent.
 * Each page is compared with the mirror rows in exactly the id span it covers. `fail` records a stream
 * whose API failed for good; the others go on.
 */
export async function verifySampled(
  contexts: readonly StreamVerifyContext[],
  budget: RequestBudget,
  random: () => number,
  fail: (ctx: StreamVerifyContext, error: unknown) => void,
): Promise<void> {
  const samplers: Sampler[] = contexts
    .filter((ctx) => listNameOf(ctx.stream) !== null)
    .map((ctx) => ({ ctx, spans: new IdSpans(), range: ctx.mirror.idRange(), done: false, fail: (error: unknown) => fail(ctx, error) }));

  for (const sampler of samplers) {
    const pageSize = sampler.ctx.config.api.pageSize;
    await readWindow(sampler, budget, sampler.ctx.mirror.newestPageSince(pageSize));
  }
  for (const ctx of contexts) {
    if (listNameOf(ctx.stream) !== null) continue;
    const pages = Math.ceil(ctx.mirror.presentCount() / ctx.config.api.pageSize) + 1;
    if (pages > budget.left) {
      ctx.logger.info({ pages, left: budget.left }, `the ${ctx.stream.name} walk does not fit the budget; not compared`);
      continue;
    }
    await walkWithin(ctx, budget).catch((error: unknown) => fail(ctx, error));
  }
  for (;;) {
    const active = samplers.filter((sampler) => !sampler.done);
    if (active.length === 0 || budget.left <= 0) return;
    for (const sampler of active) {
      if (budget.left <= 0) return;
      const since = drawSince(sampler, random);
      if (since === null) sampler.done = true;
      else await readWindow(sampler, budget, since);
    }
  }
}

/** A since_id whose next id no window has covered yet, or null when the draws keep landing in covered ones. */
function drawSince(sampler: Sampler, random: () => number): number | null {
  const range = sampler.range;
  if (range === null) return null;
  for (let draw = 0; draw < DRAWS_PER_WINDOW; draw++) {
    const since = range.low - 1 + Math.floor(random() * (range.high - range.low + 1));
    if (!sampler.spans.covers(since + 1)) return since;
  }
  return null;
}

async function readWindow(sampler: Sampler, budget: RequestBudget, since: number): Promise<void> {
  const { ctx } = sampler;
  const list = listNameOf(ctx.stream);
  if (list === null || sampler.done) return;
  let records;
  try {
    records = await withinBudget(ctx, budget, async (signal) => (await ctx.client.fetchPage(list, byIdSince(list, since), null, { signal, retry: false })).items);
  } catch (error) {
    sampler.done = true;
    sampler.fail(error);
    return;
  }
  if (records === null) return;
  checkIds(ctx.stream, records);
  if (records.length === 0) {
    // Nothing above `since`: do not draw there again.
    sampler.spans.add(since + 1, Math.max(since + 1, sampler.range?.high ?? since + 1));
    return;
  }
  compareSpanPage(ctx, sampler.spans, records, true);
}

/** The unsubscribe walk, page by page within the budget; extras are judged only when it reached the end. */
async function walkWithin(ctx: StreamVerifyContext, budget: RequestBudget): Promise<void> {
  const seen = new Set<MirrorId>();
  const complete = await walkPages(ctx, budget, (items) => {
    checkIds(ctx.stream, items);
    ctx.noteDrift(items);
    for (const record of items) seen.add(record.id);
    const differing = compareRecords(items, (id) => ctx.mirror.byId(id), ctx.judge, ctx.tally);
    ctx.repairer?.store(differing);
  });
  if (!complete) return;
  await judgeUnseen(ctx, seen, async () => {
    const again = new Set<MirrorId>();
    return (await walkPages(ctx, budget, (items) => items.forEach((record) => again.add(record.id)))) ? again : null;
  });
}

/** Walks the unsubscribe list page by page within the budget, handing each page on; false when the budget ran out first. */
async function walkPages(ctx: StreamVerifyContext, budget: RequestBudget, onPage: (items: UnsubscribeEntry[]) => void): Promise<boolean> {
  for (let page = 1; ; page += 1) {
    const items = await withinBudget(ctx, budget, async (signal) => {
      const pages = ctx.client.unsubscribePages({ startPage: page, signal, retry: false });
      try {
        const next = await pages.next();
        return next.done ? [] : next.value.items;
      } finally {
        await pages.return(undefined);
      }
    });
    if (items === null) return false;
    if (items.length === 0) return true;
    onPage(items);
  }
}

/**
 * One request, tried again after a retryable failure while the budget lasts; null once it is spent.
 * The client's own retries are off here: each of its attempts would be a request the budget must count.
 */
async function withinBudget<T>(ctx: StreamVerifyContext, budget: RequestBudget, call: (signal: AbortSignal) => Promise<T>): Promise<T | null> {
  const { retry } = ctx.config.api;
  for (let attempt = 0; ; attempt++) {
    if (budget.left <= 0) return null;
    budget.used += 1;
    try {
      return await call(ctx.signal);
    } catch (error) {
      if (!isRetryable(error) || ctx.signal.aborted || attempt + 1 >= retry.attempts) throw error;
      // The budget ran out on a passing failure: what was read stands; a stream read not at all failed.
      if (budget.left <= 0) {
        if (ctx.tally.read() === 0) throw error;
        return null;
      }
      const wait = error instanceof ApiError && error.retryAfterMs !== undefined ? error.retryAfterMs : Math.min(retry.maxDelayMs, retry.minDelayMs * 2 ** attempt);
      await sleep(wait, undefined, { signal: ctx.signal });
    }
  }
}
