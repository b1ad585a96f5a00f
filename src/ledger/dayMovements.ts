import type { Db } from '../db/open.js';
import { APPROVAL, MOVEMENT_CODES, MOVEMENT_SQL, type Movement } from './classify.js';
import { PointsBeyondExactError } from './exactPoints.js';
import { BEFORE_ALL_DAYS } from './localDay.js';

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
 * The program's movements by day from a rebuild's first day on, tallied by the SQL function `ledger_row_day` while
 * customer_points_daily's rebuild reads those days' transactions: points_ledger_daily takes them from here, so a
 * build reads the wide transactions table once (a second read cost a full build as much as the first). The sums
 * take one entry per day. A full build also counts the unclassified transactions it reads, removed or dateless ones
 * included, for schema drift; an update finds those among the changed transactions by their own index instead.
 */
export class DayMovementsTally {
  private from: string | null = null;
  private rowsRead = 0;
  private readonly byDay = new Map<string, DayMovements>();
  /** By the JSON text MOVEMENT_SQL gives them: the same resource and state always give the same text. */
  private readonly unclassified = new Map<string, UnclassifiedCount>();

  constructor(private readonly localDay: (timestamp: string | null) => string | null) {}

  /**
   * Starts a tally of the days from `from` on and registers `ledger_row_day` on `db`: given a transaction row's
   * columns (see LEDGER_ROW_DAY_SQL), it tallies the row and returns its day, or NULL for a row in no day from `from`
   * on (removed, dateless or earlier), which no customer's day counts either.
   */
  begin(db: Db, from: string): void {
    this.from = from;
    this.rowsRead = 0;
    this.byDay.clear();
    this.unclassified.clear();
    const countUnclassified = from === BEFORE_ALL_DAYS;
    const step = (createdAt: string | null, movementCode: number | string, kept: number, approved: number, pending: number): string | null => {
      this.rowsRead += 1;
      // MOVEMENT_SQL gives an unclassified row's resource and state instead of a number.
      const movement = typeof movementCode === 'number' ? MOVEMENT_CODES[movementCode] : 'other';
      if (countUnclassified && typeof movementCode === 'string') this.tallyUnclassified(movementCode);
      if (kept === 0) return null;
      const dayOf = this.localDay(createdAt);
      if (dayOf === null || dayOf < from) return null;
      let day = this.byDay.get(dayOf);
      if (day === undefined) {
        day = { movements: { earned: 0, reversed: 0, redeemed: 0, reimbursed: 0, expired: 0, other: 0 }, approvedChange: 0, pendingChange: 0, approvedFromPending: 0, transactions: 0 };
        this.byDay.set(dayOf, day);
      }
      day.approvedChange += approved;
      day.pendingChange += pending;
      day.transactions += 1;
      // An approval's points add up to nothing; a pending decline or a void lands whole in its class.
      const classSum = movement === APPROVAL ? (day.approvedFromPending += approved) : (day.movements[movement] += approved + pending);
      if (!Number.isSafeInteger(day.approvedChange) || !Number.isSafeInteger(day.pendingChange) || !Number.isSafeInteger(classSum)) {
        throw new PointsBeyondExactError(`the program's points moved on ${dayOf}`, Math.max(Math.abs(day.approvedChange), Math.abs(day.pendingChange), Math.abs(classSum)));
      }
      return dayOf;
    };
    // Not deterministic: SQLite must call it once for every row read, never reuse an earlier row's answer.
    db.function('ledger_row_day', { deterministic: false, directOnly: true }, step);
  }

  /**
   * Stops the read begun at `from` with a check that it tallied each of the `expectedRows` rows it read exactly
   * once: a query plan that called the function twice a row, or skipped rows, would give wrong sums silently.
   */
  finish(expectedRows: number): void {
    if (this.rowsRead !== expectedRows) {
      throw new Error(`points ledger: the read of the transactions tallied ${this.rowsRead} rows, not the ${expectedRows} it covers; the build stops rather than write wrong sums`);
    }
  }

  /** The movements by day of the read begun at `from`; a rebuild from another day has none to take. */
  movementsFrom(from: string): Map<string, DayMovements> {
    if (this.from !== from) throw new Error(`points ledger: the day movements were read from ${String(this.from)}, not from ${from}`);
    return this.byDay;
  }

  /** The unclassified transactions a full build read. */
  unclassifiedCounts(): UnclassifiedCount[] {
    return [...this.unclassified.values()];
  }

  /**
   * Counts a row of the resource and state that `resourceAndState`, a JSON array from MOVEMENT_SQL, names: parsed
   * once a pair, as a mirror of an unknown resource can hold nothing else.
   */
  private tallyUnclassified(resourceAndState: string): void {
    const tally = this.unclassified.get(resourceAndState);
    if (tally !== undefined) {
      tally.count += 1;
      return;
    }
    const [resource, state] = JSON.parse(resourceAndState) as [string | null, string | null];
    this.unclassified.set(resourceAndState, { resource, state, count: 1 });
  }
}

/** The call of `ledger_row_day` on a `transactions` row. */
export const LEDGER_ROW_DAY_SQL = `ledger_row_day(created_at, ${MOVEMENT_SQL}, _removed_at IS NULL, coalesce(points_approved, 0), coalesce(points_pending, 0))`;
