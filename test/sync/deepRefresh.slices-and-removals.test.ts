import { afterEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { loadDeepRefresh } from '../../src/sync/deepRefreshState.js';
import { runSync, type SyncReport } from '../../src/sync/index.js';
import { startRewritingProxy, type RewritingProxy } from '../helpers/rewritingProxy.js';
import { mirrorDiff, recordingLogger, testClient, testConfig } from '../helpers/sync.js';
import { freshMirror } from '../helpers/tempDir.js';

const HOUR = 3600 * 1000;
const closers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((closer) => closer.close()));
});

interface SyncInput {
  url?: string;
  at?: Date;
  deep?: boolean;
  acceptRemovals?: boolean;
  pagesPerRun?: number;
}

async function sync(sim: SimulatorHandle, db: Db, path: string, input: SyncInput = {}): Promise<SyncReport> {
  const config = testConfig({ ...sim, url: input.url ?? sim.url }, path, { sync: { deepRefreshPagesPerRun: input.pagesPerRun ?? 1200 } });
  const { logger } = recordingLogger();
  const client = testClient(config, logger);
  try {
    return await runSync({ db, client, config, logger, streams: ['orders', 'activities'], deep: input.deep, acceptRemovals: input.acceptRemovals, clock: input.at === undefined ? undefined : () => input.at! });
  } finally {
    await client.close();
  }
}

const deepOf = (report: SyncReport, stream: string) => report.streams.find((s) => s.stream === stream)?.deep;

describe('the deep refresh of a plain sync', () => {
  it('is due a day after the last whole read, reads sync.deepRefreshPagesPerRun pages a run, and goes on from its checkpoint until the mirror equals the truth', async () => {
    const sim = await startSimulator({ seed: 5, size: { customers: 100, orders: 1600, activities: 1600, transactions: 100, unsubscribes: 1 } });
    closers.push(sim);
    const { db, path } = freshMirror();
    const start = Date.now();
    expect((await sync(sim, db, path)).ok).toBe(true);
    // The first sync read everything: a deep refresh as good as done, so none is due the same day.
    expect(loadDeepRefresh(db, 'orders').lastCompletedAt).not.toBeNull();
    sim.tick(72);
    const sameDay = await sync(sim, db, path, { at: new Date(start + 23 * HOUR), pagesPerRun: 2 });
    expect(deepOf(sameDay, 'orders')).toBeUndefined();
    expect(mirrorDiff(db, sim, 'orders').length).toBeGreaterThan(0);

    const pages: number[] = [];
    for (let run = 0; run < 10 && loadDeepRefresh(db, 'orders').lastCompletedAt! < new Date(start + HOUR).toISOString(); run++) {
      const report = await sync(sim, db, path, { at: new Date(start + (25 + run) * HOUR), pagesPerRun: 2 });
      expect(report.ok).toBe(true);
      pages.push(deepOf(report, 'orders')?.pages ?? 0);
    }
    // 1,600 orders and what 72 hours added are 4 pages at least: two runs of 2 pages or more, none above.
    expect(pages.length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...pages)).toBe(2);
    expect(mirrorDiff(db, sim, 'orders')).toEqual([]);
    expect(mirrorDiff(db, sim, 'activities')).toEqual([]);
    expect(loadDeepRefresh(db, 'activities').plan).toBeNull();
  });
});

describe('a deep refresh that finds rows the API no longer returns', () => {
  async function behindProxy(hidden: (id: number) => boolean): Promise<{ sim: SimulatorHandle; proxy: RewritingProxy }> {
    const sim = await startSimulator({ seed: 8, size: { customers: 50, orders: 1200, activities: 10, transactions: 10, unsubscribes: 1 }, pageOrder: 'newest-first' });
    const proxy = await startRewritingProxy(sim.url, (route, body) => {
      if (route !== '/v2/orders' || typeof body !== 'object' || body === null) return body;
      const page = body as { orders: Array<{ id: number }> };
      return { ...page, orders: page.orders.filter((order) => !hidden(order.id)) };
    });
    closers.push(proxy, sim);
    return { sim, proxy };
  }

  it('marks them removed, inside a page and below the first, and nothing else', async () => {
    let hiding = false;
    const { sim, proxy } = await behindProxy((id) => hiding && (id % 97 === 0 || id === minId));
    const { db, path } = freshMirror();
    expect((await sync(sim, db, path, { url: proxy.url })).ok).toBe(true);
    const minId = db.prepare('SELECT min(id) FROM orders').pluck().get() as number;
    const gone = (db.prepare('SELECT id FROM orders').pluck().all() as number[]).filter((id) => id % 97 === 0 || id === minId);
    hiding = true;
    const report = await sync(sim, db, path, { url: proxy.url, deep: true });
    expect(deepOf(report, 'orders')).toMatchObject({ completed: true, removed: gone.length });
    expect(db.prepare('SELECT id FROM orders WHERE _removed_at IS NOT NULL ORDER BY id').pluck().all()).toEqual(gone.sort((a, b) => a - b));
    expect(db.prepare('SELECT count(*) FROM deep_refresh_absent').pluck().get()).toBe(0);
  });

  it('marks nothing when the list comes back empty, until --accept-removals confirms it', async () => {
    let hiding = false;
    const { sim, proxy } = await behindProxy(() => hiding);
    const { db, path } = freshMirror();
    expect((await sync(sim, db, path, { url: proxy.url })).ok).toBe(true);
    hiding = true;
    const refused = await sync(sim, db, path, { url: proxy.url, deep: true });
    const orders = refused.streams.find((s) => s.stream === 'orders')!;
    expect(orders.status).toBe('failed');
    expect(orders.error).toMatch(/deep refresh of orders would mark 1200 of 1200 stored orders removed.*--accept-removals/);
    expect(db.prepare('SELECT count(*) FROM orders WHERE _removed_at IS NOT NULL').pluck().get()).toBe(0);
    const confirmed = await sync(sim, db, path, { url: proxy.url, deep: true, acceptRemovals: true });
    expect(deepOf(confirmed, 'orders')).toMatchObject({ completed: true, removed: 1200 });
  });
});
