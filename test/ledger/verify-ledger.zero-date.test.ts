import { describe, expect, it } from 'vitest';
import { balancesAsOf } from '../../src/ledger/balancesAsOf.js';
import { checkLedger } from '../../src/ledger/reconcile.js';
import { updateLedger } from '../../src/ledger/updateLedger.js';
import { freshMirror } from '../helpers/tempDir.js';

const OVERLAPS = { idOverlapHours: 2, updatedAtOverlapMinutes: 10 };

describe('verify --ledger and a transaction dated before 1970', () => {
  it('names the customer whose balance the ledger is short of a zero-dated transaction, and counts it undated', () => {
    const { db } = freshMirror();
    db.prepare(
      `INSERT INTO customers (id, enrolled, created_at, updated_at, points_approved, points_pending, raw, _synced_at, _change_seq)
       VALUES (7, 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 102, 0, '{}', '2026-03-01T00:00:00.000Z', 1)`,
    ).run();
    const insert = db.prepare(
      `INSERT INTO transactions (id, customer_id, points_approved, points_pending, resource, activity_state, created_at, raw, _synced_at, _change_seq)
       VALUES (?, 7, ?, 0, 'activity', 'approved', ?, '{}', '2026-03-01T00:00:00.000Z', 2)`,
    );
    insert.run(1, 100, '2026-03-01T10:00:00.000Z');
    insert.run(2, 2, '0001-01-01T00:00:00Z');
    // Written with an offset, the last evening of 1969 is an instant of 1970: the ledger gives it a day.
    insert.run(3, 0, '1969-12-31T22:00:00-05:00');
    db.prepare("INSERT INTO sync_runs (run_id, stream, started_at, status) VALUES ('r', 'customers', '2026-03-01T00:00:00Z', 'succeeded'), ('r', 'transactions', '2026-03-01T00:00:00Z', 'succeeded')").run();
    updateLedger(db, { timeZone: 'UTC', pointValue: null }, new Date('2026-03-02T12:00:00Z'));
    expect(balancesAsOf(db, '2026-03-02', 7).map((row) => row.approved)).toEqual([100]);
    const check = checkLedger(db, OVERLAPS);
    expect(check.undated_transactions).toBe(1);
    expect(check.defects).toEqual([{ customer_id: 7, balance: 'approved', customer: 102, transactions: 100, undated_transactions: 1 }]);
    db.close();
  });
});
