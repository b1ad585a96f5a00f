import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import { updateLedger } from '../../src/ledger/updateLedger.js';
import { freshMirror } from '../helpers/tempDir.js';

/** Stores a transaction as a sync stores one whose record leaves a points field out: NULL in its column, absent in raw. */
function storeTransaction(db: Db, row: { id: number; resource: string; state: string | null; approved: number | null; pending: number | null; createdAt: string }): void {
  const seq = db.prepare('UPDATE change_counter SET value = value + 1 WHERE id = 1 RETURNING value').pluck().get() as number;
  const raw = JSON.stringify({ id: row.id, customer: { id: 7 }, points_approved: row.approved ?? undefined, points_pending: row.pending ?? undefined, created_at: row.createdAt, resource: row.resource });
  db.prepare(
    `INSERT INTO transactions (id, customer_id, points_approved, points_pending, resource, activity_state, created_at, raw, _synced_at, _change_seq)
     VALUES (?, 7, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(row.id, row.approved, row.pending, row.resource, row.state, row.createdAt, raw, row.createdAt, seq);
}

describe('a transaction whose record leaves out points_approved or points_pending', () => {
  it('counts the points it has, in the movement their sign gives', () => {
    const { db } = freshMirror();
    storeTransaction(db, { id: 1, resource: 'activity', state: 'approved', approved: 100, pending: null, createdAt: '2026-03-01T10:00:00.000Z' });
    storeTransaction(db, { id: 2, resource: 'claimed_reward', state: null, approved: -40, pending: null, createdAt: '2026-03-01T11:00:00.000Z' });
    storeTransaction(db, { id: 3, resource: 'activity', state: 'pending', approved: null, pending: 25, createdAt: '2026-03-01T12:00:00.000Z' });
    storeTransaction(db, { id: 4, resource: 'points_import', state: null, approved: null, pending: null, createdAt: '2026-03-01T13:00:00.000Z' });
    updateLedger(db, { timeZone: 'UTC', pointValue: null }, new Date('2026-03-01T20:00:00Z'));
    expect(db.prepare('SELECT earned, reversed, redeemed, reimbursed, expired, other, approved_end, pending_end, transactions FROM points_ledger_daily').all()).toEqual([
      { earned: 125, reversed: 0, redeemed: -40, reimbursed: 0, expired: 0, other: 0, approved_end: 60, pending_end: 25, transactions: 4 },
    ]);
    db.close();
  });
});
