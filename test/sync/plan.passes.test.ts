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

  it('re-reads signalled activities in created_at windows that each hold about a page of stored rows, leaving what a due refresh reads', () => {
    const { db } = freshMirror();
    // Day 1 holds 8 activities an hour, day 2 one; the refresh window starts on 2026-02-07.
    const rows: Array<[number, string]> = [];
    for (let i = 0; i < 24 * 8; i++) rows.push([1 + i, new Date(Date.parse('2026-01-01T00:00:00.000Z') + i * 450_000).toISOString()]);
    for (let i = 0; i < 24; i++) rows.push([1000 + i, new Date(Date.parse('2026-01-02T00:00:00.000Z') + i * 3_600_000).toISOString()]);
    rows.push([2000, '2026-03-09T22:00:00.000Z']);
    insert(db, 'activities', rows);
    const signal = db.prepare('INSERT INTO activity_signals (activity_id, created_at, signalled_seq) VALUES (?, ?, ?)');
    const created = new Map(rows);
    // Approvals of 40 activities of day 1, 3 of day 2, and one inside the refresh window.
    const signalled = [...Array.from({ length: 40 }, (_, i) => 1 + i * 4), 1000, 1010, 1023, 2000];
    signalled.forEach((id, i) => signal.run(id, created.get(id), 10 + i));

    const plan = planStream(input(db, 'activities', { pageSize: 100, forceRefresh: true }));
    const windows = plan.passes.filter((pass) => pass.kind === 'list' && pass.role === 'signalled').map((pass) => (pass.kind === 'list' ? pass.params : null));
    expect(plan.signalsThroughSeq).toBe(10 + signalled.length - 1);
    // A window ends before the 100th stored row from its start: 00:00 to 12:00 of day 1 (rows 1-97), then
    // 12:30 to day 2's midnight (92 rows of day 1, 1 of day 2), then the rest of day 2; 43 approvals, 3 requests.
    expect(windows).toEqual([
      { created_at_min: '2026-01-01T00:00:00.000Z', created_at_max: '2026-01-01T12:00:01.000Z' },
      { created_at_min: '2026-01-01T12:30:00.000Z', created_at_max: '2026-01-02T00:00:01.000Z' },
      { created_at_min: '2026-01-02T10:00:00.000Z', created_at_max: '2026-01-02T23:00:01.000Z' },
    ]);
    // Every signalled activity but the one the refresh re-reads lies inside a window.
    const inside = (id: number) => windows.some((w) => created.get(id)! >= w!.created_at_min! && created.get(id)! < w!.created_at_max!);
    expect(signalled.filter((id) => !inside(id))).toEqual([2000]);
    // Nothing signalled, nothing planned.
    db.prepare('DELETE FROM activity_signals').run();
    expect(planStream(input(db, 'activities', { pageSize: 100 })).signalsThroughSeq).toBeUndefined();
  });
});
