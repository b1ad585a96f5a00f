import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/open.js';
import { lastLedgerBuild } from '../../src/ledger/balancesAsOf.js';
import { updateLedger } from '../../src/ledger/updateLedger.js';
import { freshMirror } from '../helpers/tempDir.js';
import { mirrorBeforeMigration } from './ledgerCopies.js';

const SETTINGS = { timeZone: 'America/New_York', pointValue: '0.01' };
/** The migration that keeps customer_points_daily in day order; the mirror below is one an older version left. */
const DAY_ORDER_MIGRATION = 16;
const LEDGER_TABLES = ['transactions', 'change_counter', 'customer_points_daily', 'points_ledger_daily', 'program_metrics_daily', 'ledger_state', 'ledger_members'];

function nextSeq(db: Db): number {
  return db.prepare('UPDATE change_counter SET value = value + 1 WHERE id = 1 RETURNING value').pluck().get() as number;
}

function storeTransaction(db: Db, id: number, customer: number, approved: number, pending: number, createdAt: string): void {
  const raw = JSON.stringify({ id, customer: { id: customer }, points_approved: approved, points_pending: pending, created_at: createdAt, resource: 'activity', activity: { state: 'approved' } });
  db.prepare(
    `INSERT INTO transactions (id, customer_id, points_approved, points_pending, resource, activity_state, created_at, raw, _synced_at, _change_seq)
     VALUES (?, ?, ?, ?, 'activity', 'approved', ?, ?, ?, ?)`,
  ).run(id, customer, approved, pending, createdAt, raw, createdAt, nextSeq(db));
}

function tables(db: Db): Record<string, unknown[]> {
  return {
    customer_points_daily: db.prepare('SELECT * FROM customer_points_daily ORDER BY customer_id, day').all(),
    points_ledger_daily: db.prepare('SELECT * FROM points_ledger_daily ORDER BY day').all(),
    program_metrics_daily: db.prepare('SELECT * FROM program_metrics_daily ORDER BY day').all(),
    ledger_balances: db.prepare('SELECT * FROM ledger_balances ORDER BY customer_id').all(),
  };
}

describe('a mirror whose ledger an earlier version built, customer by customer', () => {
  it('keeps its tables through the migration to day order, and its next update equals a full build', () => {
    const built = freshMirror();
    storeTransaction(built.db, 1, 7, 100, 0, '2026-03-01T15:00:00Z');
    storeTransaction(built.db, 2, 8, 0, 40, '2026-03-01T16:00:00Z');
    storeTransaction(built.db, 3, 7, -30, 0, '2026-03-03T15:00:00Z');
    storeTransaction(built.db, 4, 9, 5, 0, '2026-03-04T02:00:00Z');
    updateLedger(built.db, SETTINGS, new Date('2026-03-05T12:00:00Z'));
    const before = tables(built.db);
    built.db.close();

    const path = mirrorBeforeMigration(built.path, DAY_ORDER_MIGRATION, LEDGER_TABLES);
    const old = new Database(path, { readonly: true });
    expect(old.prepare("SELECT sql FROM sqlite_master WHERE name = 'customer_points_daily'").pluck().get()).toContain('PRIMARY KEY (customer_id, day)');
    old.close();
    const db = openDatabase(path);
    // The rows moved over as they were, and the balances each customer's rows end with, which updates start from.
    expect(tables(db)).toEqual(before);
    expect(before.ledger_balances).toEqual([
      { customer_id: 7, first_day: '2026-03-01', approved_end: 70, pending_end: 0 },
      { customer_id: 8, first_day: '2026-03-01', approved_end: 0, pending_end: 40 },
      { customer_id: 9, first_day: '2026-03-03', approved_end: 5, pending_end: 0 },
    ]);
    expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'customer_points_daily'").pluck().get()).toContain('PRIMARY KEY (day, customer_id)');
    // Still built: balances and report read it before the next sync, and that sync updates it.
    expect(lastLedgerBuild(db)).toEqual({ timeZone: SETTINGS.timeZone, pointValue: SETTINGS.pointValue, lastDay: '2026-03-05' });

    storeTransaction(db, 5, 7, 10, 0, '2026-03-02T15:00:00Z');
    storeTransaction(db, 6, 8, 20, -20, '2026-03-06T15:00:00Z');
    const now = new Date('2026-03-06T18:00:00Z');
    const update = updateLedger(db, SETTINGS, now);
    expect(update.full).toBe(false);
    const updated = tables(db);
    db.prepare('DELETE FROM ledger_state').run();
    updateLedger(db, SETTINGS, now);
    expect(tables(db)).toEqual(updated);
    expect(updated.ledger_balances).toEqual([
      { customer_id: 7, first_day: '2026-03-01', approved_end: 80, pending_end: 0 },
      { customer_id: 8, first_day: '2026-03-01', approved_end: 20, pending_end: 20 },
      { customer_id: 9, first_day: '2026-03-03', approved_end: 5, pending_end: 0 },
    ]);
    db.close();
  });
});
