import type { Db } from '../../db/open.js';
import { LEDGER_ROW_DAY_SQL } from '../dayMovements.js';
import { PointsBeyondExactError } from '../exactPoints.js';
import { BEFORE_ALL_DAYS, createdAtLowerBound, transactionsScan } from '../localDay.js';
import { column, type ModelDefinition } from './types.js';

/** One row per customer and day with a movement; a balance as of a date is the customer's last row on or before it. */
export const customerPointsDaily: ModelDefinition = {
  name: 'customer_points_daily',
  key: ['customer_id', 'day'],
  touchedBy: ['transactions'],
  columns: [
    column('customer_id', 'integer', "the customer's id in the service (the transactions' customer.id)"),
    column('day', 'date', 'a calendar day in program.timeZone on which the customer had a transaction'),
    column('approved_change', 'integer', "the sum of that day's transactions' points_approved"),
    column('pending_change', 'integer', "the sum of that day's transactions' points_pending"),
    column('approved_end', 'integer', "the customer's approved points at the end of the day: all their points_approved up to then"),
    column('pending_end', 'integer', "the customer's pending points at the end of the day: all their points_pending up to then"),
    column('transactions', 'integer', "the customer's transactions that day"),
  ],
  rebuildFrom({ db, localDay, movements }, from) {
    movements.begin(db, from);
    if (from === BEFORE_ALL_DAYS) {
      // Every row is written, in key order: they append to the table and its key. The day index, in another order,
      // would take each at random (over a second of a 1M-row build), so it is built again from the finished rows.
      db.prepare('DELETE FROM customer_points_daily').run();
      const dayIndex = (db.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'customer_points_daily_day'").pluck().get() as string | undefined) ?? DAY_INDEX;
      db.prepare('DROP INDEX IF EXISTS customer_points_daily_day').run();
      registerRunningBalances(db);
      db.prepare(
        `INSERT INTO customer_points_daily (${COLUMNS})
         SELECT customer_id, day, approved, pending, ledger_approved_end(customer_id, day, approved), ledger_pending_end(customer_id, pending), transactions
         FROM (${ALL_GROUPS})`,
      ).run();
      movements.finish(db.prepare('SELECT count(*) FROM transactions').pluck().get() as number);
      db.prepare(dayIndex).run();
      return;
    }
    // An update rewrites only the rows that changed. Its days' rows are spread over the whole table (kept in
    // customer order), so deleting and inserting them all would write every page of the table and its key again.
    db.prepare(
      `CREATE TEMP TABLE IF NOT EXISTS ledger_customer_days (customer_id INTEGER NOT NULL, day TEXT NOT NULL, approved_change INTEGER NOT NULL,
         pending_change INTEGER NOT NULL, approved_end INTEGER NOT NULL, pending_end INTEGER NOT NULL, transactions INTEGER NOT NULL, PRIMARY KEY (customer_id, day))`,
    ).run();
    db.prepare('DELETE FROM temp.ledger_customer_days').run();
    const bound = createdAtLowerBound(from, localDay);
    db.prepare(`INSERT INTO temp.ledger_customer_days (${COLUMNS}) ${rowsFrom(from)}`).run({ from, bound });
    movements.finish(db.prepare('SELECT count(*) FROM transactions WHERE created_at >= ?').pluck().get(bound) as number);
    // SQLite summed these as 64-bit integers: exact, but past what every reader of the table gets exactly.
    const beyond = db
      .prepare(
        `SELECT customer_id, day, max(abs(approved_change), abs(pending_change), abs(approved_end), abs(pending_end)) AS points FROM temp.ledger_customer_days
         WHERE max(abs(approved_change), abs(pending_change), abs(approved_end), abs(pending_end)) > ${Number.MAX_SAFE_INTEGER} LIMIT 1`,
      )
      .safeIntegers()
      .get() as { customer_id: bigint; day: string; points: bigint } | undefined;
    if (beyond !== undefined) throw new PointsBeyondExactError(`customer ${beyond.customer_id}'s points on ${beyond.day}`, beyond.points);
    db.prepare(
      `DELETE FROM customer_points_daily WHERE day >= ?
         AND NOT EXISTS (SELECT 1 FROM temp.ledger_customer_days AS n WHERE n.customer_id = customer_points_daily.customer_id AND n.day = customer_points_daily.day)`,
    ).run(from);
    db.prepare(
      `INSERT INTO customer_points_daily (${COLUMNS}) SELECT ${COLUMNS} FROM temp.ledger_customer_days WHERE true
       ON CONFLICT (customer_id, day) DO UPDATE SET approved_change = excluded.approved_change, pending_change = excluded.pending_change,
         approved_end = excluded.approved_end, pending_end = excluded.pending_end, transactions = excluded.transactions
       WHERE (approved_change, pending_change, approved_end, pending_end, transactions)
         IS NOT (excluded.approved_change, excluded.pending_change, excluded.approved_end, excluded.pending_end, excluded.transactions)`,
    ).run();
    db.prepare('DELETE FROM temp.ledger_customer_days').run();
  },
};

const COLUMNS = 'customer_id, day, approved_change, pending_change, approved_end, pending_end, transactions';

/** As migration 012 created it: made again as the schema has it, or so if it is missing. */
const DAY_INDEX = 'CREATE INDEX customer_points_daily_day ON customer_points_daily (day)';

/**
 * A full build's groups, each customer's sums by day, in key order, from one read of every transaction: the day is
 * computed, and the day's movements tallied, by `ledger_row_day` in a subquery of its own (LIMIT -1 keeps SQLite
 * from merging it into the grouping, which would call it again for each use of the day). A row it gives no day
 * (removed, or a created_at that is no timestamp), or of no customer, is in no group.
 */
const ALL_GROUPS = `SELECT customer_id, day, sum(approved) AS approved, sum(pending) AS pending, count(*) AS transactions
  FROM (SELECT ${LEDGER_ROW_DAY_SQL} AS day, customer_id, coalesce(points_approved, 0) AS approved, coalesce(points_pending, 0) AS pending
        FROM ${transactionsScan(BEFORE_ALL_DAYS)} LIMIT -1)
  WHERE day IS NOT NULL AND customer_id IS NOT NULL
  GROUP BY customer_id, day ORDER BY customer_id, day`;

/**
 * Registers the running balances a full build's insert computes as the groups come, customer by customer in day
 * order: a window function over them costs more than the grouping itself (SQLite buffers each partition). Only
 * the current customer is kept. A group out of that order would give wrong balances, so it stops the build.
 */
function registerRunningBalances(db: Db): void {
  const approved = { customer: Number.NaN, day: '', end: 0 };
  const pending = { customer: Number.NaN, end: 0 };
  db.function('ledger_approved_end', { deterministic: false, directOnly: true }, (customer: number, day: string, change: number) => {
    if (customer !== approved.customer) {
      if (customer < approved.customer) throw new Error(`customer_points_daily: customer ${customer} came after customer ${approved.customer}; the build expects customer order`);
      Object.assign(approved, { customer, day: '', end: 0 });
    } else if (day <= approved.day) {
      throw new Error(`customer_points_daily: customer ${customer}'s day ${day} came after ${approved.day}; the build expects day order`);
    }
    approved.day = day;
    approved.end += change;
    if (!Number.isSafeInteger(change) || !Number.isSafeInteger(approved.end)) throw new PointsBeyondExactError(`customer ${customer}'s approved points on ${day}`, approved.end);
    return approved.end;
  });
  db.function('ledger_pending_end', { deterministic: false, directOnly: true }, (customer: number, change: number) => {
    if (customer !== pending.customer) Object.assign(pending, { customer, end: 0 });
    pending.end += change;
    if (!Number.isSafeInteger(change) || !Number.isSafeInteger(pending.end)) throw new PointsBeyondExactError(`customer ${customer}'s pending points`, pending.end);
    return pending.end;
  });
}

/**
 * An update's rows of `from` and later: each customer's running sums added to their balances before `from`, those of
 * their last row before it, which this rebuild keeps (looked up once a customer, not once a day). The day is
 * computed, and the day's movements tallied, by `ledger_row_day` in a subquery of its own (LIMIT -1 keeps SQLite
 * from merging it into the grouping), once a row; the days before `from` that the index range also covers have none.
 */
function rowsFrom(from: string): string {
  return `WITH g AS MATERIALIZED (
       SELECT customer_id, day, sum(approved) AS approved, sum(pending) AS pending, count(*) AS transactions
       FROM (SELECT ${LEDGER_ROW_DAY_SQL} AS day, customer_id, coalesce(points_approved, 0) AS approved, coalesce(points_pending, 0) AS pending
             FROM ${transactionsScan(from)} WHERE created_at >= @bound LIMIT -1)
       WHERE day IS NOT NULL AND customer_id IS NOT NULL
       GROUP BY customer_id, day),
     base AS MATERIALIZED (
       SELECT c.customer_id, (SELECT rowid FROM customer_points_daily WHERE customer_id = c.customer_id AND day < @from ORDER BY day DESC LIMIT 1) AS last
       FROM (SELECT DISTINCT customer_id FROM g) AS c)
     SELECT g.customer_id, g.day, g.approved, g.pending, coalesce(b.approved_end, 0) + sum(g.approved) OVER running,
       coalesce(b.pending_end, 0) + sum(g.pending) OVER running, g.transactions
     FROM g JOIN base ON base.customer_id = g.customer_id LEFT JOIN customer_points_daily AS b ON b.rowid = base.last
     WINDOW running AS (PARTITION BY g.customer_id ORDER BY g.day ROWS UNBOUNDED PRECEDING)`;
}
