import { checkIds } from '../sync/checkIds.js';
import { passPages, readAhead, type SourcePage } from '../sync/pages.js';
import { listNameOf } from '../sync/streamSync.js';
import type { Pass } from '../sync/types.js';
import { compareRecords } from './comparePage.js';
import { IdSpans } from './idSpans.js';
import { compareSpanPage } from './spanPage.js';
import type { StreamVerifyContext } from './streamContext.js';
import type { MirrorId } from './types.js';

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
  const pass: Pass = list === null ? { kind: 'walk', startedAt: new Date().toISOString() } : { kind: 'list', role: 'new', params: { since_id: 0 } };
  const fetches = new AbortController();
  const stop = (): void => fetches.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', stop, { once: true });
  const ahead = readAhead(passPages(pass, null, { client: ctx.client, list, logger: ctx.logger, signal: fetches.signal }), READ_AHEAD_PAGES);
  try {
    if (list === null) await compareWalk(ctx, ahead.take);
    else await compareSpans(ctx, ahead.take);
  } finally {
    ahead.close();
    ctx.signal.removeEventListener('abort', stop);
    fetches.abort();
  }
}

async function compareSpans(ctx: StreamVerifyContext, take: () => Promise<SourcePage[]>): Promise<void> {
  const { stream, mirror, tally } = ctx;
  const spans = new IdSpans();
  for (let pages = await take(); pages.length > 0; pages = await take()) {
    for (const page of pages) {
      checkIds(stream, page.items);
      compareSpanPage(ctx, spans, page.items, false);
      ctx.signal.throwIfAborted();
    }
  }
  for (const gap of spans.gaps()) for (const id of mirror.presentIdsBetween(gap.above, gap.below)) tally.suspectExtra(id);
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
      const differing = compareRecords(page.items, (id) => mirror.byId(id), ctx.reach, tally);
      ctx.repairer?.store(differing);
      ctx.signal.throwIfAborted();
    }
  }
  judgeUnseen(ctx, seen);
}

/** After a complete walk: present rows the walk did not return are extras, or gone since the last sync. */
export function judgeUnseen(ctx: StreamVerifyContext, seen: ReadonlySet<MirrorId>): void {
  for (const row of ctx.mirror.presentRows()) {
    if (seen.has(row.id)) continue;
    if (ctx.reach.goneSinceSync(row)) ctx.tally.unsynced += 1;
    else ctx.tally.suspectExtra(row.id);
  }
}
