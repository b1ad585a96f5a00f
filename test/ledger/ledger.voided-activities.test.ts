import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import { updateLedger } from '../../src/ledger/updateLedger.js';
import { freshMirror } from '../helpers/tempDir.js';

/** Stores an activity's transaction as a sync stores it, with the state its embedded activity shows. */
function storeTransaction(db: Db, row: { id: number; state: string; approved: number; pending: number; createdAt: string }): void {
  const seq = db.prepare('UPDATE change_counter SET value = value + 1 WHERE id = 1 RETURNING value').pluck().get() as number;
  const raw = JSON.stringify({ id: row.id, customer: { id: 7 }, points_approved: row.approved, points_pending: row.pending, created_at: row.createdAt, resource: 'activity', activity: { id: 70, state: row.state } });
  db.prepare(
    `INSERT INTO transactions (id, customer_id, points_approved, points_pending, resource, activity_id, activity_state, created_at, raw, _synced_at, _change_seq)
     VALUES (?, 7, ?, ?, 'activity', 70, ?, ?, ?, ?, ?)`,
  ).run(row.id, row.approved, row.pending, row.state, row.createdAt, raw, row.createdAt, seq);
}

const movements = (db: Db): unknown => db.prepare('SELECT earned, reversed, approved_from_pending, approved_end, pending_end FROM points_ledger_daily').get();

// The spec: a voided activity has two transactions, one that added points and one that removed them; it does not
// say whether the activity a transaction embeds shows its state then or now.
describe('the transactions of a voided or declined activity', () => {
  it('count the one that added points as earned and the one that removed them as reversed, whichever state their activity shows', () => {
    for (const earningShows of ['approved', 'void']) {
      const { db } = freshMirror();
      storeTransaction(db, { id: 1, state: earningShows, approved: 100, pending: 0, createdAt: '2026-03-01T10:00:00.000Z' });
      storeTransaction(db, { id: 2, state: 'void', approved: -100, pending: 0, createdAt: '2026-03-01T11:00:00.000Z' });
      updateLedger(db, { timeZone: 'UTC', pointValue: null }, new Date('2026-03-01T20:00:00Z'));
      expect(movements(db), earningShows).toEqual({ earned: 100, reversed: -100, approved_from_pending: 0, approved_end: 0, pending_end: 0 });
      db.close();
    }
  });

  it('count a pending earning declined, and an approval whose activity was voided later, by what they moved', () => {
    const { db } = freshMirror();
    // Declined while pending, both transactions embedding the activity as it is now.
    storeTransaction(db, { id: 1, state: 'declined', approved: 0, pending: 50, createdAt: '2026-03-01T09:00:00.000Z' });
    storeTransaction(db, { id: 2, state: 'declined', approved: 0, pending: -50, createdAt: '2026-03-01T09:30:00.000Z' });
    // Earned pending, approved, then voided: the approval moves points between the balances, whatever it shows now.
    storeTransaction(db, { id: 3, state: 'void', approved: 0, pending: 100, createdAt: '2026-03-01T10:00:00.000Z' });
    storeTransaction(db, { id: 4, state: 'void', approved: 100, pending: -100, createdAt: '2026-03-01T11:00:00.000Z' });
    storeTransaction(db, { id: 5, state: 'void', approved: -100, pending: 0, createdAt: '2026-03-01T12:00:00.000Z' });
    updateLedger(db, { timeZone: 'UTC', pointValue: null }, new Date('2026-03-01T20:00:00Z'));
    expect(movements(db)).toEqual({ earned: 150, reversed: -150, approved_from_pending: 100, approved_end: 0, pending_end: 0 });
    db.close();
  });

  it('count an approval as pending points approved when its activity shows the state it had before it (pending)', () => {
    const { db } = freshMirror();
    storeTransaction(db, { id: 1, state: 'pending', approved: 0, pending: 100, createdAt: '2026-03-01T10:00:00.000Z' });
    // Written as the approval began: the activity it embeds still shows pending.
    storeTransaction(db, { id: 2, state: 'pending', approved: 100, pending: -100, createdAt: '2026-03-01T11:00:00.000Z' });
    updateLedger(db, { timeZone: 'UTC', pointValue: null }, new Date('2026-03-01T20:00:00Z'));
    expect(movements(db)).toEqual({ earned: 100, reversed: 0, approved_from_pending: 100, approved_end: 100, pending_end: 0 });
    db.close();
  });
});
