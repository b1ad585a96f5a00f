import { MOVEMENTS } from '../classify.js';
import { customersByDay } from '../dayCustomers.js';
import { ExactDecimal } from '../exactDecimal.js';
import { PointsBeyondExactError } from '../exactPoints.js';
import { daysBetween } from '../localDay.js';
import { column, type ModelDefinition } from './types.js';

/** The whole program's points by day: balances at each day's start and end, and what moved them. */
export const pointsLedgerDaily: ModelDefinition = {
  name: 'points_ledger_daily',
  key: ['day'],
  touchedBy: ['transactions'],
  columns: [
    column('day', 'date', 'a calendar day in program.timeZone, every day from the first transaction\'s to today'),
    column('approved_start', 'integer', 'approved points outstanding at the start of the day (the previous day\'s approved_end)'),
    column('approved_end', 'integer', 'approved points outstanding at the end of the day: the sum of all points_approved up to then'),
    column('pending_start', 'integer', 'pending points at the start of the day (the previous day\'s pending_end)'),
    column('pending_end', 'integer', 'pending points at the end of the day: the sum of all points_pending up to then'),
    column('earned', 'integer', 'points earned that day, pending or approved (activities, imports)'),
    column('reversed', 'integer', 'points taken back that day: voided or declined activities, manual removals (negative)'),
    column('redeemed', 'integer', 'points spent on rewards that day (negative)'),
    column('reimbursed', 'integer', 'points given back for redemptions that day'),
    column('expired', 'integer', 'points expired that day (negative)'),
    column('other', 'integer', 'points of transactions of a resource or state the ledger does not classify (see schema drift)'),
    column('approved_from_pending', 'integer', 'pending points approved that day; they move from pending to approved, so no movement column counts them'),
    column('transactions', 'integer', 'transactions that day'),
    column('customers', 'integer', 'customers with a transaction that day'),
    column('liability_end', 'decimal', 'approved_end × ledger.pointValue; null without a point value', true),
  ],
  rebuildFrom({ db, today, pointValue, movements }, from) {
    const byDay = movements.movementsFrom(from);
    const customers = customersByDay(db, from);

    db.prepare('DELETE FROM points_ledger_daily WHERE day >= ?').run(from);
    const before = db.prepare('SELECT day, approved_end, pending_end FROM points_ledger_daily ORDER BY day DESC LIMIT 1').get() as
      | { day: string; approved_end: number; pending_end: number }
      | undefined;
    const movementDays = [...byDay.keys()].sort();
    // No gaps from the first transaction's day: the spine starts where the kept rows end, or at the first movement
    // (today, if an API clock ahead of this one dates every transaction later: today always has its row).
    if (before === undefined && movementDays.length === 0) return;
    const first = before !== undefined ? from : movementDays[0] < today ? movementDays[0] : today;
    const last = movementDays.length > 0 && movementDays[movementDays.length - 1] > today ? movementDays[movementDays.length - 1] : today;
    const value = ExactDecimal.parse(pointValue);
    const insert = db.prepare(
      `INSERT INTO points_ledger_daily (day, approved_start, approved_end, pending_start, pending_end, earned, reversed, redeemed, reimbursed, expired, other,
         approved_from_pending, transactions, customers, liability_end)
       VALUES (@day, @approvedStart, @approvedEnd, @pendingStart, @pendingEnd, @earned, @reversed, @redeemed, @reimbursed, @expired, @other,
         @approvedFromPending, @transactions, @customers, @liabilityEnd)`,
    );
    let approved = before?.approved_end ?? 0;
    let pending = before?.pending_end ?? 0;
    for (const day of daysBetween(first, last)) {
      const moved = byDay.get(day);
      const approvedEnd = approved + (moved?.approvedChange ?? 0);
      const pendingEnd = pending + (moved?.pendingChange ?? 0);
      if (!Number.isSafeInteger(approvedEnd) || !Number.isSafeInteger(pendingEnd)) {
        throw new PointsBeyondExactError(`the program's outstanding points on ${day}`, Math.max(Math.abs(approvedEnd), Math.abs(pendingEnd)));
      }
      const movements = Object.fromEntries(MOVEMENTS.map((movement) => [movement, moved?.movements[movement] ?? 0]));
      insert.run({
        day,
        approvedStart: approved,
        approvedEnd,
        pendingStart: pending,
        pendingEnd,
        ...movements,
        approvedFromPending: moved?.approvedFromPending ?? 0,
        transactions: moved?.transactions ?? 0,
        customers: customers.get(day) ?? 0,
        liabilityEnd: value === null ? null : ExactDecimal.ofInteger(approvedEnd).times(value).toString(),
      });
      approved = approvedEnd;
      pending = pendingEnd;
    }
  },
};
