/**
 * Year 9999 is the API's "never" (a tier that never expires is 9999-12-31T23:59:59Z). An order, enrolment or
 * transaction dated there, by a broken source or create-order's `date`, is on no day, as a zero date before 1970
 * is: it stretched every daily table to 9999 (2.9 million rows of program_metrics_daily rewritten by every update,
 * 25 s), and one dated in the last days of 9999 stopped every build, and so failed every sync.
 */
import { describe, expect, it } from 'vitest';
import { checkLedger } from '../../src/ledger/reconcile.js';
import { updateLedger } from '../../src/ledger/updateLedger.js';
import { freshMirror } from '../helpers/tempDir.js';

const NEVER = '9999-12-31T23:59:59Z';

describe('records dated in year 9999, the "never" placeholder', () => {
  it('are on no day: the tables end today, the build and the update take no time, and verify --ledger names the transaction', () => {
    const { db } = freshMirror();
    const customer = db.prepare(
      `INSERT INTO customers (id, enrolled, enrolled_at, created_at, points_approved, points_pending, raw, _synced_at, _change_seq)
       VALUES (?, 1, ?, '2026-02-01T10:00:00.000Z', ?, 0, '{}', '2026-03-02T10:00:00.000Z', ?)`,
    );
    customer.run(7, '2026-02-01T10:00:00.000Z', 105, 1);
    customer.run(8, NEVER, 50, 2);
    const transaction = db.prepare(
      `INSERT INTO transactions (id, customer_id, points_approved, points_pending, resource, activity_state, created_at, raw, _synced_at, _change_seq)
       VALUES (?, ?, ?, 0, 'points_import', NULL, ?, '{}', '2026-03-02T10:00:00.000Z', ?)`,
    );
    transaction.run(1, 7, 100, '2026-03-01T10:00:00.000Z', 3);
    transaction.run(2, 8, 50, '9999-06-30T12:00:00-05:00', 4);
    const order = db.prepare(
      `INSERT INTO orders (id, customer_id, total_paid, total_refunded, created_at, raw, _synced_at, _change_seq) VALUES (?, 7, '10.00', '0.00', ?, '{}', '2026-03-02T10:00:00.000Z', ?)`,
    );
    order.run(1, '2026-03-01T11:00:00.000Z', 5);
    order.run(2, NEVER, 6);

    const started = performance.now();
    updateLedger(db, { timeZone: 'America/New_York', pointValue: null }, new Date('2026-03-02T17:00:00Z'));
    // A later record: the update reads from its day on.
    transaction.run(3, 7, 5, '9999-12-30T10:00:00.000Z', 7);
    updateLedger(db, { timeZone: 'America/New_York', pointValue: null }, new Date('2026-03-02T18:00:00Z'));
    expect(performance.now() - started).toBeLessThan(2_000);

    for (const table of ['points_ledger_daily', 'program_metrics_daily']) {
      expect(db.prepare(`SELECT max(day) FROM ${table}`).pluck().get(), table).toBe('2026-03-02');
    }
    expect(db.prepare('SELECT approved_end FROM points_ledger_daily ORDER BY day DESC LIMIT 1').pluck().get()).toBe(100);
    expect(db.prepare("SELECT members, orders FROM program_metrics_daily WHERE day = '2026-03-01'").get()).toEqual({ members: 2, orders: 1 });

    const check = checkLedger(db, { idOverlapHours: 24, updatedAtOverlapMinutes: 10 });
    expect(check.undated_transactions).toBe(2);
    expect(check.defects).toEqual([
      { customer_id: 7, balance: 'approved', customer: 105, transactions: 100, undated_transactions: 1 },
      { customer_id: 8, balance: 'approved', customer: 50, transactions: 0, undated_transactions: 1 },
    ]);
    db.close();
  });
});
