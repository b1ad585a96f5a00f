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
  rebuildFrom({ db }, from) {
    if (from === BEFORE_ALL_DAYS) {
      // Running sums per customer start from zero; the rows go in key order, the order of the grouping.
      db.prepare('DELETE FROM customer_points_daily').run();
      db.prepare(`INSERT INTO customer_points_daily (${COLUMNS}) ${rowsFrom(from, { approved: '0', pending: '0', join: '' })}`).run({ from, bound: createdAtLowerBound(from) });
      return;
    }
    // An update rewrites only the rows that changed. Its days' rows are spread over the whole table (kept in
    // customer order), so deleting and inserting them all would write every page of the table and its key again.
    db.prepare(
      `CREATE TEMP TABLE IF NOT EXISTS ledger_customer_days (customer_id INTEGER NOT NULL, day TEXT NOT NULL, approved_change INTEGER NOT NULL,
         pending_change INTEGER NOT NULL, approved_end INTEGER NOT NULL, pending_end INTEGER NOT NULL, transactions INTEGER NOT NULL, PRIMARY KEY (customer_id, day))`,
    ).run();
    db.prepare('DELETE FROM temp.ledger_customer_days').run();
    // Running sums per customer start from the customer's last row before `from`, which this rebuild keeps.
    const base = {
      approved: 'coalesce(b.approved_end, 0)',
      pending: 'coalesce(b.pending_end, 0)',
      join: `LEFT JOIN customer_points_daily AS b ON b.customer_id = g.customer_id
               AND b.day = (SELECT max(day) FROM customer_points_daily WHERE customer_id = g.customer_id AND day < @from)`,
    };
    db.prepare(`INSERT INTO temp.ledger_customer_days (${COLUMNS}) ${rowsFrom(from, base)}`).run({ from, bound: createdAtLowerBound(from) });
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

/**
 * The rows of `from` and later, each customer's running sums added to `base` (their balances before `from`). The
 * groups' ORDER BY is the grouping's own order: with it SQLite sees the window's order is met and sorts no second
 * time. An update keeps the groups of `from` on by a WHERE over them made apart (MATERIALIZED): as a HAVING, or
 * pushed into one, SQLite would compute local_day twice for every row read.
 */
function rowsFrom(from: string, base: { approved: string; pending: string; join: string }): string {
  const groups = `SELECT customer_id, local_day(created_at) AS day, coalesce(sum(points_approved), 0) AS approved, coalesce(sum(points_pending), 0) AS pending, count(*) AS transactions
           FROM ${transactionsScan(from)}
           WHERE created_at >= @bound AND _removed_at IS NULL AND customer_id IS NOT NULL
           GROUP BY customer_id, day ORDER BY customer_id, day`;
  const full = from === BEFORE_ALL_DAYS;
  return `WITH g AS ${full ? '' : 'MATERIALIZED '}(${groups})
     SELECT g.customer_id, g.day, g.approved, g.pending, ${base.approved} + sum(g.approved) OVER running, ${base.pending} + sum(g.pending) OVER running, g.transactions
     FROM g ${base.join}
     ${full ? '' : 'WHERE g.day >= @from'}
     WINDOW running AS (PARTITION BY g.customer_id ORDER BY g.day ROWS UNBOUNDED PRECEDING)
     ORDER BY g.customer_id, g.day`;
}
