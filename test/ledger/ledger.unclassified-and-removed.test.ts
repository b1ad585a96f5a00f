import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import { updateLedger } from '../../src/ledger/updateLedger.js';
import { freshMirror } from '../helpers/tempDir.js';

const SETTINGS = { timeZone: 'UTC', pointValue: null };

/** Stores a transaction as a sync would: its own change number, raw JSON beside the typed columns. */
function storeTransaction(db: Db, row: { id: number; resource: string; state: string | null; approved: number; createdAt: string; removed?: boolean }): void {
  const seq = db.prepare('UPDATE change_counter SET value = value + 1 WHERE id = 1 RETURNING value').pluck().get() as number;
  const raw = JSON.stringify({ id: row.id, customer: { id: 7 }, points_approved: row.approved, points_pending: 0, created_at: row.createdAt, resource: row.resource });
  db.prepare(
    `INSERT INTO transactions (id, customer_id, points_approved, points_pending, resource, activity_state, created_at, raw, _synced_at, _change_seq, _removed_at)
     VALUES (?, 7, ?, 0, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(row.id, row.approved, row.resource, row.state, row.createdAt, raw, row.createdAt, seq, row.removed === true ? row.createdAt : null);
}

function drift(db: Db): Array<{ path: string; example: string; count: number }> {
  return db.prepare("SELECT path, example, count FROM schema_drift WHERE stream = 'transactions' ORDER BY path, example").all() as Array<{ path: string; example: string; count: number }>;
}

describe('transactions the ledger does not classify, or no longer counts', () => {
  it('count as other on their day and show in schema drift, from the full build and from each update', () => {
    const { db } = freshMirror();
    storeTransaction(db, { id: 1, resource: 'activity', state: 'approved', approved: 100, createdAt: '2026-03-01T10:00:00Z' });
    storeTransaction(db, { id: 2, resource: 'gift_card', state: null, approved: 40, createdAt: '2026-03-01T11:00:00Z' });
    storeTransaction(db, { id: 3, resource: 'activity', state: 'frozen', approved: 5, createdAt: '2026-03-02T09:00:00Z' });
    // Removed by verify --repair: no points anywhere, but still a transaction of a resource nobody classified.
    storeTransaction(db, { id: 4, resource: 'gift_card', state: null, approved: 1000, createdAt: '2026-03-02T10:00:00Z', removed: true });

    const full = updateLedger(db, SETTINGS, new Date('2026-03-03T12:00:00Z'));
    expect(full.full).toBe(true);
    expect(drift(db)).toEqual([
      { path: 'activity.state', example: 'frozen', count: 1 },
      { path: 'resource', example: 'gift_card', count: 2 },
    ]);
    expect(db.prepare('SELECT day, earned, other, approved_end FROM points_ledger_daily ORDER BY day').all()).toEqual([
      { day: '2026-03-01', earned: 100, other: 40, approved_end: 140 },
      { day: '2026-03-02', earned: 0, other: 5, approved_end: 145 },
      { day: '2026-03-03', earned: 0, other: 0, approved_end: 145 },
    ]);

    // An update counts only the transactions new since the last build.
    storeTransaction(db, { id: 5, resource: 'gift_card', state: null, approved: 9, createdAt: '2026-03-03T08:00:00Z' });
    const update = updateLedger(db, SETTINGS, new Date('2026-03-03T12:00:00Z'));
    expect(update.full).toBe(false);
    expect(drift(db)).toEqual([
      { path: 'activity.state', example: 'frozen', count: 1 },
      { path: 'resource', example: 'gift_card', count: 3 },
    ]);
    expect(db.prepare("SELECT other, approved_end FROM points_ledger_daily WHERE day = '2026-03-03'").get()).toEqual({ other: 9, approved_end: 154 });
    db.close();
  });

  it('leave out a transaction whose created_at is no timestamp, or a zero date before 1970: it has no day, in a full build and in an update', () => {
    const { db } = freshMirror();
    storeTransaction(db, { id: 1, resource: 'activity', state: 'approved', approved: 100, createdAt: '2026-03-01T10:00:00Z' });
    storeTransaction(db, { id: 2, resource: 'activity', state: 'approved', approved: 30, createdAt: 'yesterday' });
    // A broken source's zero date: the tables would otherwise start in year 1 (and Intl writes that year '1').
    storeTransaction(db, { id: 8, resource: 'activity', state: 'approved', approved: 2, createdAt: '0001-01-01T00:00:00Z' });
    expect(updateLedger(db, SETTINGS, new Date('2026-03-02T12:00:00Z')).full).toBe(true);
    const customerDays = (): unknown[] => db.prepare('SELECT customer_id, day, approved_end, transactions FROM customer_points_daily ORDER BY day').all();
    const days = (): unknown[] => db.prepare('SELECT day, approved_end, transactions FROM points_ledger_daily ORDER BY day').all();
    expect(customerDays()).toEqual([{ customer_id: 7, day: '2026-03-01', approved_end: 100, transactions: 1 }]);
    expect(days()).toEqual([
      { day: '2026-03-01', approved_end: 100, transactions: 1 },
      { day: '2026-03-02', approved_end: 100, transactions: 0 },
    ]);

    storeTransaction(db, { id: 3, resource: 'activity', state: 'approved', approved: 5, createdAt: '2026-03-02T09:00:00Z' });
    storeTransaction(db, { id: 4, resource: 'activity', state: 'approved', approved: 7, createdAt: '2026-02-30T09:00:00Z' });
    storeTransaction(db, { id: 5, resource: 'activity', state: 'approved', approved: 11, createdAt: '0999-12-31T12:00:00Z' });
    storeTransaction(db, { id: 6, resource: 'activity', state: 'approved', approved: 13, createdAt: '1969-12-31T23:59:59.999Z' });
    expect(updateLedger(db, SETTINGS, new Date('2026-03-02T12:00:00Z')).full).toBe(false);
    expect(customerDays()).toEqual([
      { customer_id: 7, day: '2026-03-01', approved_end: 100, transactions: 1 },
      { customer_id: 7, day: '2026-03-02', approved_end: 105, transactions: 1 },
    ]);
    expect(days()).toEqual([
      { day: '2026-03-01', approved_end: 100, transactions: 1 },
      { day: '2026-03-02', approved_end: 105, transactions: 1 },
    ]);
    db.close();
  });

  it('write today\'s row when an API clock ahead of this one dates the first transactions tomorrow', () => {
    const { db } = freshMirror();
    storeTransaction(db, { id: 1, resource: 'activity', state: 'approved', approved: 100, createdAt: '2026-03-03T00:30:00Z' });
    updateLedger(db, SETTINGS, new Date('2026-03-02T23:50:00Z'));
    expect(db.prepare('SELECT day, approved_start, approved_end, transactions FROM points_ledger_daily ORDER BY day').all()).toEqual([
      { day: '2026-03-02', approved_start: 0, approved_end: 0, transactions: 0 },
      { day: '2026-03-03', approved_start: 0, approved_end: 100, transactions: 1 },
    ]);
    db.close();
  });

  it('a transaction removed after the build takes its customer-day out of customer_points_daily, and moves the days after it', () => {
    const { db } = freshMirror();
    storeTransaction(db, { id: 1, resource: 'activity', state: 'approved', approved: 100, createdAt: '2026-03-01T10:00:00Z' });
    storeTransaction(db, { id: 2, resource: 'activity', state: 'approved', approved: 30, createdAt: '2026-03-02T10:00:00Z' });
    storeTransaction(db, { id: 3, resource: 'activity', state: 'approved', approved: 5, createdAt: '2026-03-03T10:00:00Z' });
    const now = new Date('2026-03-04T12:00:00Z');
    updateLedger(db, SETTINGS, now);
    const rows = (): unknown[] => db.prepare('SELECT day, approved_change, approved_end, transactions FROM customer_points_daily WHERE customer_id = 7 ORDER BY day').all();
    expect(rows()).toEqual([
      { day: '2026-03-01', approved_change: 100, approved_end: 100, transactions: 1 },
      { day: '2026-03-02', approved_change: 30, approved_end: 130, transactions: 1 },
      { day: '2026-03-03', approved_change: 5, approved_end: 135, transactions: 1 },
    ]);
    // As verify --repair marks a record the API no longer has.
    const seq = db.prepare('UPDATE change_counter SET value = value + 1 WHERE id = 1 RETURNING value').pluck().get() as number;
    db.prepare('UPDATE transactions SET _removed_at = ?, _change_seq = ? WHERE id = 2').run(now.toISOString(), seq);
    expect(updateLedger(db, SETTINGS, now).rebuiltFrom.customer_points_daily).toBe('2026-03-02');
    expect(rows()).toEqual([
      { day: '2026-03-01', approved_change: 100, approved_end: 100, transactions: 1 },
      { day: '2026-03-03', approved_change: 5, approved_end: 105, transactions: 1 },
    ]);
    db.close();
  });
});
