import type { ListName } from '../api/client.js';
import { checkIds } from '../sync/checkIds.js';
import { passPages, readAhead, type SourcePage } from '../sync/pages.js';
import { listNameOf } from '../sync/streamSync.js';
import type { Pass } from '../sync/types.js';
import { compareRecords } from './comparePage.js';
import { byIdSince } from './idOrder.js';
import { IdSpans } from '../sync/idSpans.js';
import { compareSpanPage } from './spanPage.js';
import type { StreamVerifyContext } from './streamContext.js';
import type { MirrorId } from './types.js';
import { DEFECT, NEXT_SYNC } from './differenceJudge.js';

/** Pages fetched ahead of the comparison, as the sync does, so the network does not wait for SQLite. */
const READ_AHEAD_PAGES = 16;

/**
 * `verify --full` of one stream: walks the whole API list with the sync's page reader (ascending since_id
 * from 0; the page walk for unsubscribes) and compares each page with the mirror rows in its id span, so no
 * more than a page's worth of records is held. Mirror rows outside every page's span are extras too.
 */
export async function verifyStreamFull(ctx: StreamVerifyContext): Promise<void> {
  const { stream } = ctx;
  const list = listNameOf(stream);
  const pass: Pass = list === null ? { kind: 'walk', startedAt: new Date().toISOString() } : { kind: 'list', role: 'new', params: byIdSince(list, 0) };
  const fetches = new AbortController();
  const stop = (): void => fetches.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', stop, { once: true });
  const ahead = readAhead(passPages(pass, null, { client: ctx.client, list, logger: ctx.logger, signal: fetches.signal }), READ_AHEAD_PAGES);
  try {
    if (list === null) await compareWalk(ctx, ahead.take);
    else await compareSpans(ctx, list, ahead.take);
  } finally {
    ahead.close();
    ctx.signal.removeEventListener('abort', stop);
    fetches.abort();
  }
}

async function compareSpans(ctx: StreamVerifyContext, list: ListName, take: () => Promise<SourcePage[]>): Promise<void> {
  const { stream, mirror, tally } = ctx;
  const spans = new IdSpans();
  for (let pages = await take(); pages.length > 0; pages = await take()) {
    for (const page of pages) {
      checkIds(stream, page.items);
      compareSpanPage(ctx, spans, page.items, false);
      ctx.signal.throwIfAborted();
    }
  }
  const gaps = spans.gaps();
  const last = gaps.at(-1)!.above ?? 0;
  // The page reader also ends a list by rule (empty pages that keep handing out cursors): the rows above
  // the last page are extras only if the API, asked once more, has nothing above it.
  const ended = (await ctx.client.fetchPage(list, byIdSince(list, last), null, { signal: ctx.signal })).items.length === 0;
  if (!ended) ctx.logger.warn({ stream: stream.name, above: last }, `${stream.name}: the list ended before the API's last row; rows above id ${last} are not judged`);
  for (const gap of gaps) {
    if (gap.below === null && !ended) continue;
    for (const id of mirror.presentIdsBetween(gap.above, gap.below)) tally.suspectExtra(id);
  }
}

/**
 * The unsubscribe list has no order to span: its ids are held (a list of addresses, small beside the
 * streams) and every present mirror row the walk did not return is an extra, unless it left after the last sync.
 */
async function compareWalk(ctx: StreamVerifyContext, take: () => Promise<SourcePage[]>): Promise<void> {
  const { stream, mirror, tally } = ctx;
  const seen = new Set<MirrorId>();
  for (let pages = await take(); pages.length > 0; pages = await take()) {
    for (const page of pages) {
      checkIds(stream, page.items);
      ctx.noteDrift(page.items);
      for (const record of page.items) seen.add(record.id);
      const differing = compareRecords(page.items, (id) => mirror.byId(id), ctx.judge, tally);
      ctx.repairer?.store(differing);
      ctx.signal.throwIfAborted();
    }
  }
  await judgeUnseen(ctx, seen, async () => {
    const again = new Set<MirrorId>();
    for await (const page of ctx.client.unsubscribePages({ signal: ctx.signal })) for (const record of page.items) again.add(record.id);
    return again;
  });
}

/**
 * After a complete walk: present rows the walk did not return are extras, or gone since the last sync.
 * A walk by page number skips an address when one before it leaves the list meanwhile, so, as the sync
 * does before it tombstones, what the first walk missed is an extra only if a second walk (`walkAgain`,
 * null when it could not be made) misses it too; one that could not be made leaves them to the next sync.
 */
export async function judgeUnseen(ctx: StreamVerifyContext, seen: ReadonlySet<MirrorId>, walkAgain: () => Promise<ReadonlySet<MirrorId> | null>): Promise<void> {
  const suspects = [...ctx.mirror.presentRows()].filter((row) => !seen.has(row.id));
  const unexplained = suspects.filter((row) => {
    const verdict = ctx.judge.judgeGone(row);
    if (verdict.class !== 'pending') return true;
    ctx.tally.judged(row.id, 'extra', verdict);
    return false;
  });
  if (unexplained.length === 0) return;
  const again = await walkAgain();
  for (const row of unexplained) {
    if (again === null) ctx.tally.judged(row.id, 'extra', NEXT_SYNC);
    else if (again.has(row.id)) ctx.tally.compared += 1;
    else ctx.tally.judged(row.id, 'extra', DEFECT);
  }
}
