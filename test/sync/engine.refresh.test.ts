import { afterEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runSync, type SyncReport } from '../../src/sync/index.js';
import { freshMirror } from '../helpers/tempDir.js';
import { mirrorDiff, mirrorDiffAll, recordingLogger, testClient, testConfig } from '../helpers/sync.js';

const DAY = 24 * 3600 * 1000;
const sims: SimulatorHandle[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((sim) => sim.close()));
});

async function sync(sim: SimulatorHandle, db: Db, path: string, options: { refresh?: boolean; streams?: ['unsubscribes'] } = {}): Promise<SyncReport> {
  const config = testConfig(sim, path);
  const { logger } = recordingLogger();
  const client = testClient(config, logger);
  try {
    return await runSync({ db, client, config, logger, ...options });
  } finally {
    await client.close();
  }
}

function ids(db: Db, table: string): Set<number> {
  return new Set(db.prepare(`SELECT id FROM ${table}`).pluck().all() as number[]);
}

function stream(report: SyncReport, name: string) {
  const found = report.streams.find((s) => s.stream === name);
  if (!found) throw new Error(`no report for ${name}`);
  return found;
}

/** Records created at most this long before the truth's newest one lie inside the default 30-day lookback. */
function insideLookback(sim: SimulatorHandle, table: 'orders' | 'activities'): (record: Record<string, unknown>) => boolean {
  const newest = Math.max(...(sim.truth(table) as Array<{ created_at: string }>).map((r) => Date.parse(r.created_at)));
  return (record) => Date.parse(String(record.created_at)) >= newest - 29 * DAY;
}

describe('sync --refresh after the program changed', () => {
  it('brings the mirror equal to the truth again: new, late-visible, changed and removed rows', async () => {
    const sim = await startSimulator({ seed: 3, size: 'small', pageOrder: 'newest-first', faults: { serverError: 0.03, drop: 0.02, truncate: 0.02, seed: 5 } });
    sims.push(sim);
    const { db, path } = freshMirror();
    expect((await sync(sim, db, path)).ok).toBe(true);
    expect(mirrorDiffAll(db, sim)).toEqual([]);

    let lateSeen = 0;
    const totals = { customersUpdated: 0, ordersUpdated: 0, activitiesUpdated: 0, removed: 0 };
    for (let round = 0; round < 3; round++) {
      const before = ids(db, 'transactions');
      const maxBefore = Math.max(...before);
      sim.tick(2);
      // A real program's hours rarely refund a recent order or end a pending period inside the lookback window, so do both on purpose.
      sim.changeOldRecords({ refund: { count: 1, minAgeDays: 1, maxAgeDays: 20 }, approve: { count: 1, minAgeDays: 1, maxAgeDays: 20 } });
      const report = await sync(sim, db, path, { refresh: true });
      expect(report.streams.filter((s) => s.status !== 'succeeded')).toEqual([]);
      for (const id of ids(db, 'transactions')) if (!before.has(id) && id < maxBefore) lateSeen += 1;
      totals.customersUpdated += stream(report, 'customers').updated;
      totals.ordersUpdated += stream(report, 'orders').updated;
      totals.activitiesUpdated += stream(report, 'activities').updated;
      totals.removed += stream(report, 'unsubscribes').removed ?? 0;
      expect(stream(report, 'orders').refreshed).toBe(true);

      expect(mirrorDiffAll(db, sim, ['customers', 'transactions', 'unsubscribes'])).toEqual([]);
      expect(mirrorDiff(db, sim, 'activities', insideLookback(sim, 'activities'))).toEqual([]);
      expect(mirrorDiff(db, sim, 'orders', insideLookback(sim, 'orders'))).toEqual([]);
    }
    // The scenario really exercised what it claims to.
    expect(lateSeen).toBeGreaterThan(0);
    expect(totals.customersUpdated).toBeGreaterThan(0);
    expect(totals.ordersUpdated).toBeGreaterThan(0);
    expect(totals.activitiesUpdated).toBeGreaterThan(0);
    expect(totals.removed).toBeGreaterThan(0);
    const tombstones = db.prepare('SELECT count(*) FROM unsubscribes WHERE removed_at IS NOT NULL').pluck().get() as number;
    expect(tombstones).toBe(totals.removed);
    db.close();
  });

  it('clears the tombstone of an address that comes back, and keeps first_seen_at', async () => {
    const changed = await startSimulator({ seed: 9, size: 'tiny' });
    sims.push(changed);
    const { db, path } = freshMirror();
    expect((await sync(changed, db, path, { streams: ['unsubscribes'] })).ok).toBe(true);
    const firstSeen = new Map(
      (db.prepare('SELECT id, first_seen_at FROM unsubscribes').all() as Array<{ id: string; first_seen_at: string }>).map((r) => [r.id, r.first_seen_at]),
    );
    changed.tick(3);
    const afterTicks = await sync(changed, db, path, { streams: ['unsubscribes'] });
    const left = db.prepare('SELECT id FROM unsubscribes WHERE removed_at IS NOT NULL').pluck().all() as string[];
    expect(left.length).toBeGreaterThan(0);
    expect(afterTicks.streams[0].removed).toBe(left.length);
    expect(mirrorDiff(db, changed, 'unsubscribes')).toEqual([]);

    // The same seed untouched: the list as it was, so every address that left is back.
    const original = await startSimulator({ seed: 9, size: 'tiny' });
    sims.push(original);
    await sync(original, db, path, { streams: ['unsubscribes'] });
    expect(mirrorDiff(db, original, 'unsubscribes')).toEqual([]);
    for (const id of left) {
      const row = db.prepare('SELECT removed_at, first_seen_at FROM unsubscribes WHERE id = ?').get(id) as { removed_at: string | null; first_seen_at: string };
      expect(row.removed_at).toBeNull();
      expect(row.first_seen_at).toBe(firstSeen.get(id));
    }
    db.close();
  });
});
