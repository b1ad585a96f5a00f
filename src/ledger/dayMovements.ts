import type { Db } from '../db/open.js';
import { APPROVAL, MOVEMENT_SQL, type Movement, UNCLASSIFIED_SQL } from './classify.js';
import { BEFORE_ALL_DAYS, createdAtLowerBound, transactionsScan } from './localDay.js';

/** What the transactions of one day did to the program's points. */
export interface DayMovements {
  movements: Record<Movement, number>;
  approvedChange: number;
  pendingChange: number;
  approvedFromPending: number;
  transactions: number;
}

/** Transactions of one resource and activity state that the ledger does not classify. */
export interface UnclassifiedCount {
  resource: string | null;
  state: string | null;
  count: number;
}

/**
 * The program's movements by day from `from` on, in one read of the transactions. The rows are summed by day in
 * a JS aggregate as SQLite hands them over: a GROUP BY would sort every row read, which costs a full build more
 * than reading them, while the sums take one entry per day. In a full build (`from` is BEFORE_ALL_DAYS), which
 * reads every row anyway, the same read also counts the unclassified transactions, removed or dateless ones
 * included, as the scan of the changed ones in an update does: a second read of the wide table would cost as much
 * again.
 */
export function readDayMovements(db: Db, localDay: (timestamp: string | null) => string | null, from: string): { byDay: Map<string, DayMovements>; unclassified: UnclassifiedCount[] } {
  const full = from === BEFORE_ALL_DAYS;
  const byDay = new Map<string, DayMovements>();
  const unclassified = new Map<string | null, Map<string | null, UnclassifiedCount>>();
  const tallyUnclassified = (resource: string | null, state: string | null): void => {
    let states = unclassified.get(resource);
    if (states === undefined) unclassified.set(resource, (states = new Map()));
    const tally = states.get(state);
    if (tally === undefined) states.set(state, { resource, state, count: 1 });
    else tally.count += 1;
  };
  // A full build hands each row's created_at, and its day is computed here; an update hands the day, computed in
  // SQL, so that the rows its index range holds from days before `from` are dropped before this step is called.
  const step = (rows: number, timestampOrDay: string | null, movement: Movement | typeof APPROVAL, kept: number, isUnclassified: number, resource: string | null, state: string | null, approved: number, pending: number): number => {
    if (full && isUnclassified === 1) tallyUnclassified(resource, state);
    if (kept === 0) return rows;
    const dayOf = full ? localDay(timestampOrDay) : timestampOrDay;
    if (dayOf === null || dayOf < from) return rows;
    let day = byDay.get(dayOf);
    if (day === undefined) {
      day = { movements: { earned: 0, reversed: 0, redeemed: 0, reimbursed: 0, expired: 0, other: 0 }, approvedChange: 0, pendingChange: 0, approvedFromPending: 0, transactions: 0 };
      byDay.set(dayOf, day);
    }
    day.approvedChange += approved;
    day.pendingChange += pending;
    day.transactions += 1;
    if (movement === APPROVAL) day.approvedFromPending += approved;
    // An approval's points add up to nothing; a pending decline or a void lands whole in its class.
    else day.movements[movement] += approved + pending;
    return rows + 1;
  };
  // The typings know aggregates of one argument only; better-sqlite3 takes the arguments from step's length.
  db.aggregate('ledger_day_movements', { start: 0, step: step as unknown as (rows: number, next: number) => number });
  // Only a full build reads the removed and dateless rows (for the drift count); their points count nowhere. An
  // update computes the day in a subquery of its own (LIMIT -1 keeps SQLite from merging it), so local_day runs
  // once per row.
  const read = full
    ? db.prepare(
        `SELECT ledger_day_movements(created_at, ${MOVEMENT_SQL}, _removed_at IS NULL, ${UNCLASSIFIED_SQL}, resource, activity_state,
                  coalesce(points_approved, 0), coalesce(points_pending, 0))
         FROM ${transactionsScan(from)}`,
      )
    : db.prepare(
        `SELECT ledger_day_movements(day, movement, 1, 0, NULL, NULL, approved, pending)
         FROM (SELECT local_day(created_at) AS day, ${MOVEMENT_SQL} AS movement, coalesce(points_approved, 0) AS approved, coalesce(points_pending, 0) AS pending
               FROM ${transactionsScan(from)} WHERE created_at >= ? AND _removed_at IS NULL LIMIT -1)
         WHERE day >= ?`,
      );
  read.pluck().get(...(full ? [] : [createdAtLowerBound(from, localDay), from]));
  return { byDay, unclassified: [...unclassified.values()].flatMap((states) => [...states.values()]) };
}
