import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import { updateLedger } from '../../src/ledger/updateLedger.js';
import { freshMirror } from '../helpers/tempDir.js';

const SETTINGS = { timeZone: 'UTC', pointValue: null };

function nextSeq(db: Db): number {
  return db.prepare('UPDATE change_counter SET value = value + 1 WHERE id = 1 RETURNING value').pluck().get() as number;
}

/** Stores an approved activity's transaction as a sync would: its own change number, raw JSON beside the typed columns. */
function storeTransaction(db: Db, id: number, customer: number, approved: number, createdAt: string): void {
  const raw = JSON.stringify({ id, customer: { id: customer }, points_approved: approved, points_pending: 0, created_at: createdAt, resource: 'activity', activity: { state: 'approved' } });
  db.prepare(
    `INSERT INTO transactions (id, customer_id, points_approved, points_pending, resource, activity_state, created_at, raw, _synced_at, _change_seq)
     VALUES (?, ?, ?, 0, 'activity', 'approved', ?, ?, ?, ?)`,
  ).run(id, customer, approved, createdAt, raw, createdAt, nextSeq(db));
}

/** As verify --repair marks a record the API no longer has. */
function markRemoved(db: Db, id: number, at: Date): void {
  db.prepare('UPDATE transactions SET _removed_at = ?, _change_seq = ? WHERE id = ?').run(at.toISOString(), nextSeq(db), id);
}

function customerDays(db: Db): unknown[] {
  return db.prepare('SELECT customer_id, day, approved_change, approved_end, transactions FROM customer_points_daily ORDER BY customer_id, day').all();
}

describe('an update that removes the last days of a customer, or all of them', () => {
  it('starts the next update of that customer from the balance their remaining rows leave, or from nothing', () => {
    const { db } = freshMirror();
    storeTransaction(db, 1, 7, 100, '2026-03-01T10:00:00Z');
    storeTransaction(db, 2, 7, 30, '2026-03-05T10:00:00Z');
    storeTransaction(db, 3, 8, 50, '2026-03-05T11:00:00Z');
    updateLedger(db, SETTINGS, new Date('2026-03-06T12:00:00Z'));

    // Customer 7 keeps 1 March; customer 8 has no transaction left.
    markRemoved(db, 2, new Date('2026-03-06T13:00:00Z'));
    markRemoved(db, 3, new Date('2026-03-06T13:00:00Z'));
    expect(updateLedger(db, SETTINGS, new Date('2026-03-06T14:00:00Z')).rebuiltFrom.customer_points_daily).toBe('2026-03-05');
    expect(customerDays(db)).toEqual([{ customer_id: 7, day: '2026-03-01', approved_change: 100, approved_end: 100, transactions: 1 }]);

    // Both earn again two days later: their balances go on from what is left, 100 and nothing.
    storeTransaction(db, 4, 7, 1, '2026-03-08T09:00:00Z');
    storeTransaction(db, 5, 8, 2, '2026-03-08T09:30:00Z');
    const now = new Date('2026-03-08T12:00:00Z');
    updateLedger(db, SETTINGS, now);
    const updated = customerDays(db);
    const balances = db.prepare('SELECT * FROM ledger_balances ORDER BY customer_id').all();
    expect(updated).toEqual([
      { customer_id: 7, day: '2026-03-01', approved_change: 100, approved_end: 100, transactions: 1 },
      { customer_id: 7, day: '2026-03-08', approved_change: 1, approved_end: 101, transactions: 1 },
      { customer_id: 8, day: '2026-03-08', approved_change: 2, approved_end: 2, transactions: 1 },
    ]);

    // And so does a full build of the same mirror, which keeps the same balances for the next update to start from.
    db.prepare('DELETE FROM ledger_state').run();
    expect(updateLedger(db, SETTINGS, now).full).toBe(true);
    expect(customerDays(db)).toEqual(updated);
    expect(db.prepare('SELECT * FROM ledger_balances ORDER BY customer_id').all()).toEqual(balances);
    db.close();
  });
});
