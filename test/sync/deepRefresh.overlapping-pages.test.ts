import { afterEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import { runSync, type SyncReport } from '../../src/sync/index.js';
import { startPagedListServer, type PagedList, type PagedListServer } from '../helpers/pagedListServer.js';
import { recordingLogger, testClient, testConfig } from '../helpers/sync.js';
import { freshMirror } from '../helpers/tempDir.js';

const HOUR = 3600 * 1000;
const opened: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const closer of opened.splice(0).reverse()) await closer.close();
});

interface Mirror {
  server: PagedListServer;
  db: Db;
  sync(input?: { deep?: boolean; at?: Date; pagesPerRun?: number }): Promise<SyncReport>;
}

/** A mirror of orders and activities first synced whole from `ids`, in one page each. */
async function syncedMirror(ids: Record<PagedList, number[]>): Promise<Mirror> {
  const server = await startPagedListServer();
  const { db, path } = freshMirror();
  opened.push(server, db);
  const sync: Mirror['sync'] = async (input = {}) => {
    const config = testConfig({ url: server.url, keys: { full: 'sk_test_paged_lists', readOnly: '' } }, path, { sync: { deepRefreshPagesPerRun: input.pagesPerRun ?? 1200 } });
    const { logger } = recordingLogger();
    const client = testClient(config, logger);
    try {
      return await runSync({ db, client, config, logger, streams: ['orders', 'activities'], deep: input.deep, clock: input.at === undefined ? undefined : () => input.at! });
    } finally {
      await client.close();
    }
  };
  server.setPages('orders', [ids.orders]);
  server.setPages('activities', [ids.activities]);
  expect((await sync()).ok).toBe(true);
  return { server, db, sync };
}

const removed = (db: Db, list: PagedList): number[] => db.prepare(`SELECT id FROM ${list} WHERE _removed_at IS NOT NULL ORDER BY id`).pluck().all() as number[];
const deepOf = (report: SyncReport, stream: string) => report.streams.find((s) => s.stream === stream)?.deep;
const upTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

describe('sync --deep over pages whose id spans overlap', () => {
  it('keeps the rows an earlier page returned though a later page spans them, and removes only the row on no page', async () => {
    const mirror = await syncedMirror({ orders: upTo(9), activities: [1] });
    // A time-ordered list: 4 became visible late; 8 is gone from the API.
    mirror.server.setPages('orders', [[1, 2, 3], [5, 6], [4, 7, 9]]);
    const report = await mirror.sync({ deep: true });
    expect(report.ok).toBe(true);
    expect(deepOf(report, 'orders')).toMatchObject({ completed: true, removed: 1 });
    expect(removed(mirror.db, 'orders')).toEqual([8]);
  });

  it('keeps the rows a later page returns inside an earlier page\'s span', async () => {
    const mirror = await syncedMirror({ orders: upTo(9), activities: [1] });
    mirror.server.setPages('orders', [[4, 7, 9], [5, 6], [1, 2, 3]]);
    const report = await mirror.sync({ deep: true });
    expect(deepOf(report, 'orders')).toMatchObject({ completed: true, removed: 1 });
    expect(removed(mirror.db, 'orders')).toEqual([8]);
  });
});

describe('a deep refresh sliced across plain syncs', () => {
  it('over interleaved late-visible ids removes exactly the rows on no page', async () => {
    const start = Date.now();
    const mirror = await syncedMirror({ orders: upTo(13), activities: [1] });
    // Gone: 5 (inside one of two overlapping spans), 8 (between spans), 11 (inside two overlapping spans).
    mirror.server.setPages('orders', [[1, 2, 4], [3, 6, 7], [10, 13], [9, 12]]);
    const pages: number[] = [];
    for (let run = 0; run < 4; run++) {
      const report = await mirror.sync({ at: new Date(start + (25 + run) * HOUR), pagesPerRun: 1 });
      expect(report.ok).toBe(true);
      pages.push(deepOf(report, 'orders')?.pages ?? 0);
      // Nothing is marked before the refresh reached the end of the list.
      if (run < 3) expect(removed(mirror.db, 'orders')).toEqual([]);
    }
    expect(pages).toEqual([1, 1, 1, 1]);
    expect(removed(mirror.db, 'orders')).toEqual([5, 8, 11]);
  });

  it('of two streams sharing ids marks each stream\'s own absent rows only', async () => {
    const start = Date.now();
    const mirror = await syncedMirror({ orders: upTo(8), activities: upTo(8) });
    // Order 4 and activity 6 are gone. The orders' refresh notes 4 on its first page and pauses while the
    // activities' refresh, one page, completes in the same run.
    mirror.server.setPages('orders', [[1, 2, 3, 5], [6, 7, 8]]);
    mirror.server.setPages('activities', [[1, 2, 3, 4, 5, 7, 8]]);
    const first = await mirror.sync({ at: new Date(start + 25 * HOUR), pagesPerRun: 1 });
    expect([deepOf(first, 'orders')?.completed, deepOf(first, 'activities')?.completed]).toEqual([false, true]);
    expect(removed(mirror.db, 'activities')).toEqual([6]);
    const second = await mirror.sync({ at: new Date(start + 26 * HOUR), pagesPerRun: 1 });
    expect(deepOf(second, 'orders')?.completed).toBe(true);
    expect(removed(mirror.db, 'orders')).toEqual([4]);
    expect(removed(mirror.db, 'activities')).toEqual([6]);
  });
});
