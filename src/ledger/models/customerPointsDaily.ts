import { BEFORE_ALL_DAYS, createdAtLowerBound, dayFilter, transactionsScan } from '../localDay.js';
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
    db.prepare('DELETE FROM customer_points_daily WHERE day >= ?').run(from);
    // Running sums per customer start from the customer's last row before `from`, which this rebuild keeps (none in a full build).
    const base =
      from === BEFORE_ALL_DAYS
        ? { approved: '0', pending: '0', join: '' }
        : {
            approved: 'coalesce(b.approved_end, 0)',
            pending: 'coalesce(b.pending_end, 0)',
            join: `LEFT JOIN customer_points_daily AS b ON b.customer_id = g.customer_id
                     AND b.day = (SELECT max(day) FROM customer_points_daily WHERE customer_id = g.customer_id AND day < @from)`,
          };
    db.prepare(
      `INSERT INTO customer_points_daily (customer_id, day, approved_change, pending_change, approved_end, pending_end, transactions)
       SELECT g.customer_id, g.day, g.approved, g.pending, ${base.approved} + sum(g.approved) OVER running, ${base.pending} + sum(g.pending) OVER running, g.transactions
       FROM (SELECT customer_id, local_day(created_at) AS day, coalesce(sum(points_approved), 0) AS approved, coalesce(sum(points_pending), 0) AS pending, count(*) AS transactions
             FROM ${transactionsScan(from)}
             WHERE created_at >= @bound AND _removed_at IS NULL AND customer_id IS NOT NULL
             GROUP BY customer_id, day ${dayFilter(from)}) AS g
       ${base.join}
       WINDOW running AS (PARTITION BY g.customer_id ORDER BY g.day ROWS UNBOUNDED PRECEDING)`,
    ).run({ from, bound: createdAtLowerBound(from) });
  },
};
