import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/open.js';
import { getStream } from '../../src/streams/index.js';
import { planStream, type PlanInput } from '../../src/sync/plan.js';
import { freshMirror } from '../helpers/tempDir.js';

const settings = loadConfig({ env: {} }).sync;
const NOW = new Date('2026-03-10T00:00:00.000Z');

function insert(db: Db, table: string, rows: Array<[id: number, createdAt: string]>): void {
  const statement = db.prepare(`INSERT INTO ${table} (id, created_at, raw, _synced_at, _change_seq) VALUES (?, ?, '{}', ?, 1)`);
  for (const [id, createdAt] of rows) statement.run(id, createdAt, createdAt);
}

function input(db: Db, stream: Parameters<typeof getStream>[0], extra: Partial<PlanInput> = {}): PlanInput {
  return { db, stream: getStream(stream), settings, now: NOW, full: false, forceRefresh: false, lastRefreshAt: NOW.toISOString(), pageSize: 500, ...extra };
}

describe('planning a stream run', () => {
  it('reads everything from since_id 0 when nothing is stored, and counts it as the refresh and as a whole read', () => {
    const { db } = freshMirror();
    expect(planStream(input(db, 'transactions'))).toEqual({ passes: [{ kind: 'list', role: 'new', params: { since_id: 0 } }], refreshes: false, wholeReadStartedAt: NOW.toISOString() });
    expect(planStream(input(db, 'orders'))).toEqual({ passes: [{ kind: 'list', role: 'new', params: { since_id: 0 } }], refreshes: true, wholeReadStartedAt: NOW.toISOString() });
    insert(db, 'orders', [[7, '2026-03-09T20:00:00.000Z']]);
    // --full over stored rows reads everything too, but judges no removal: it is no deep refresh.
    expect(planStream(input(db, 'orders', { full: true })).wholeReadStartedAt).toBeUndefined();
  });

  it('re-reads the id overlap from the last stored row before it', () => {
    const { db } = freshMirror();
    insert(db, 'transactions', [
      [100, '2026-03-09T20:00:00.000Z'],
      [105, '2026-03-09T22:30:00.000Z'],
      [110, '2026-03-09T23:59:00.000Z'],
    ]);
    expect(planStream(input(db, 'transactions')).passes).toEqual([{ kind: 'list', role: 'new', params: { since_id: 100 } }]);
    // --full ignores what is stored.
    expect(planStream(input(db, 'transactions', { full: true })).passes).toEqual([{ kind: 'list', role: 'new', params: { since_id: 0 } }]);
  });

  it('adds the created_at window re-read of activities when a refresh is due', () => {
    const { db } = freshMirror();
    insert(db, 'activities', [
      [1, '2026-01-01T00:00:00.000Z'],
      [2, '2026-03-09T23:00:00.000Z'],
    ]);
    expect(planStream(input(db, 'activities', { lastRefreshAt: null }))).toEqual({
      passes: [
        { kind: 'list', role: 'new', params: { since_id: 1 } },
        { kind: 'list', role: 'refresh', params: { created_at_min: '2026-02-07T23:00:00.000Z' } },
      ],
      refreshes: true,
    });
    expect(planStream(input(db, 'activities')).refreshes).toBe(false);
    expect(planStream(input(db, 'activities', { forceRefresh: true })).refreshes).toBe(true);
  });

  it('refreshes orders from the last stored order before the lookback window, in one pass', () => {
    const { db } = freshMirror();
    insert(db, 'orders', [
      [10, '2026-01-01T00:00:00.000Z'],
      [11, '2026-02-20T00:00:00.000Z'],
      [12, '2026-03-09T23:00:00.000Z'],
    ]);
    expect(planStream(input(db, 'orders', { forceRefresh: true }))).toEqual({
      passes: [{ kind: 'list', role: 'refresh', params: { since_id: 10 } }],
      refreshes: true,
    });
  });

  it('reads customers by updated_at ascending from the watermark minus the overlap', () => {
    const { db } = freshMirror();
    expect(planStream(input(db, 'customers')).passes).toEqual([{ kind: 'list', role: 'new', params: { sort_field: 'updated_at', sort_direction: 'asc' } }]);
    db.prepare(`INSERT INTO customers (id, updated_at, raw, _synced_at, _change_seq) VALUES (1, '2026-03-09T12:00:00.000Z', '{}', 'x', 1)`).run();
    expect(planStream(input(db, 'customers')).passes).toEqual([
      { kind: 'list', role: 'new', params: { sort_field: 'updated_at', sort_direction: 'asc', updated_at_min: '2026-03-09T11:50:00.000Z' } },
    ]);
    expect(planStream(input(db, 'customers', { forceRefresh: true }))).toEqual({
      passes: [{ kind: 'list', role: 'refresh', params: { sort_field: 'updated_at', sort_direction: 'asc', updated_at_min: '2026-02-07T12:00:00.000Z' } }],
      refreshes: true,
    });
  });

  it('walks the whole unsubscribe list every run, stamped with its start', () => {
    const { db } = freshMirror();
    expect(planStream(input(db, 'unsubscribes'))).toEqual({ passes: [{ kind: 'walk', startedAt: NOW.toISOString() }], refreshes: false });
  });
});
