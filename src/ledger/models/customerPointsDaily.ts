import type { Db } from '../../db/open.js';
import { rewriteDayCustomers } from '../dayCustomers.js';
import { LEDGER_ROW_DAY_SQL } from '../dayMovements.js';
import { PointsBeyondExactError } from '../exactPoints.js';
import { BEFORE_ALL_DAYS, createdAtLowerBound, dayStartMinute, transactionsScan, UPDATE_TRANSACTIONS_WHERE } from '../localDay.js';
import { noteRowChanges, rangesOf } from '../rowChanges.js';
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
  rebuildFrom({ db, localDay, movements, changeSeq }, from) {
    movements.begin(db, from);
    if (from === BEFORE_ALL_DAYS) {
      // Every row is written in key order, (day, customer): each appends to the table and its key.
      db.prepare('DELETE FROM customer_points_daily').run();
      db.prepare('DELETE FROM ledger_balances').run();
      const balances = registerRunningBalances(db);
      db.prepare(
        `INSERT INTO customer_points_daily (${COLUMNS})
         SELECT customer_id, day, approved, pending, ledger_approved_end(customer_id, day, approved), ledger_pending_end(customer_id, pending), transactions
         FROM (${ALL_GROUPS})`,
      ).run();
      movements.finish(db.prepare('SELECT count(*) FROM transactions').pluck().get() as number);
      const insert = db.prepare('INSERT INTO ledger_balances (customer_id, first_day, approved_end, pending_end) VALUES (?, ?, ?, ?)');
      for (const [customer, slot] of balances.slots) insert.run(customer, balances.firstDay[slot], balances.approved[slot], balances.pending[slot]);
      rewriteDayCustomers(db, from);
      noteRowChanges(db, customerPointsDaily.name, changeSeq, 'every');
      return;
    }
    // An update rewrites only the rows that changed: a sync's new days' rows append to the table and its key.
    db.prepare(
      `CREATE TEMP TABLE IF NOT EXISTS ledger_customer_days (customer_id INTEGER NOT NULL, day TEXT NOT NULL, approved_change INTEGER NOT NULL,
         pending_change INTEGER NOT NULL, approved_end INTEGER NOT NULL, pending_end INTEGER NOT NULL, transactions INTEGER NOT NULL, PRIMARY KEY (customer_id, day))`,
    ).run();
    db.prepare('DELETE FROM temp.ledger_customer_days').run();
    const range = { bound: createdAtLowerBound(from, localDay), dayStart: dayStartMinute(from, localDay) };
    registerUpdateBalances(db);
    db.prepare(`INSERT INTO temp.ledger_customer_days (${COLUMNS}) ${rowsFrom(from)}`).run({ from, ...range });
    movements.finish(db.prepare(`SELECT count(*) FROM transactions WHERE ${UPDATE_TRANSACTIONS_WHERE}`).pluck().get(range) as number);
    // Read before the rows from `from` change: the balances add the old rows' changes back out.
    updateBalances(db, from);
    // The rowids of the rows deleted, inserted or changed (RETURNING gives no row for an upsert that changed nothing):
    // the Delta table rewrites the files that hold them.
    const deleted = db
      .prepare(
        `DELETE FROM customer_points_daily WHERE day >= ?
           AND NOT EXISTS (SELECT 1 FROM temp.ledger_customer_days AS n WHERE n.customer_id = customer_points_daily.customer_id AND n.day = customer_points_daily.day)
         RETURNING rowid`,
      )
      .pluck()
      .all(from) as number[];
    const written = db
      .prepare(
        `INSERT INTO customer_points_daily (${COLUMNS}) SELECT ${COLUMNS} FROM temp.ledger_customer_days WHERE true ORDER BY day, customer_id
         ON CONFLICT (day, customer_id) DO UPDATE SET approved_change = excluded.approved_change, pending_change = excluded.pending_change,
           approved_end = excluded.approved_end, pending_end = excluded.pending_end, transactions = excluded.transactions
         WHERE (approved_change, pending_change, approved_end, pending_end, transactions)
           IS NOT (excluded.approved_change, excluded.pending_change, excluded.approved_end, excluded.pending_end, excluded.transactions)
         RETURNING rowid`,
      )
      .pluck()
      .all() as number[];
    db.prepare('DELETE FROM temp.ledger_customer_days').run();
    rewriteDayCustomers(db, from);
    noteRowChanges(db, customerPointsDaily.name, changeSeq, rangesOf(deleted.concat(written), NOTED_GAP));
  },
};

/**
 * Changed rows further apart than this are noted as separate ranges (see rangesOf): a sixteenth of a Delta file's
 * 16,384 rows, so a file between two of them that holds none stays, and a span of changed rows takes at most one note
 * per 1,024 rowids.
 */
const NOTED_GAP = 1_024;

const COLUMNS = 'customer_id, day, approved_change, pending_change, approved_end, pending_end, transactions';

/**
 * A full build's groups, each customer's sums by day, in key order (day, then customer), from one read of every
 * transaction: the day is computed, and the day's movements tallied, by `ledger_row_day` in a subquery of its own
 * (LIMIT -1 keeps SQLite from merging it into the grouping, which would call it again for each use of the day). A
 * row it gives no day (removed, or a created_at that is no timestamp), or of no customer, is in no group.
 */
const ALL_GROUPS = `SELECT customer_id, day, sum(approved) AS approved, sum(pending) AS pending, count(*) AS transactions
  FROM (SELECT ${LEDGER_ROW_DAY_SQL} AS day, customer_id, coalesce(points_approved, 0) AS approved, coalesce(points_pending, 0) AS pending
        FROM ${transactionsScan(BEFORE_ALL_DAYS)} LIMIT -1)
  WHERE day IS NOT NULL AND customer_id IS NOT NULL
  GROUP BY day, customer_id ORDER BY day, customer_id`;

/** Each customer's balances as a full build's groups come: a slot a customer, in arrays indexed by it. */
interface RunningBalances {
  slots: Map<number, number>;
  firstDay: string[];
  approved: number[];
  pending: number[];
}

/**
 * Registers the running balances a full build's insert computes as the groups come, day by day: a window function
 * over them costs more than the grouping itself (SQLite buffers each partition). One balance a customer is kept,
 * returned for ledger_balances. A customer's slot depends on nothing but the customer, so the pending balance, which
 * takes no day (a day's text costs a million-row build a tenth of a second to hand over), is right whichever of the
 * two a row calls first. A group out of key order would give wrong balances, so it stops the build.
 */
function registerRunningBalances(db: Db): RunningBalances {
  const balances: RunningBalances = { slots: new Map(), firstDay: [], approved: [], pending: [] };
  const { slots, firstDay, approved, pending } = balances;
  let lastDay = '';
  let lastCustomer = Number.NEGATIVE_INFINITY;
  let lastSlot = -1;
  const slotOf = (customer: number): number => {
    let slot = slots.get(customer);
    if (slot === undefined) {
      slot = approved.length;
      slots.set(customer, slot);
      firstDay.push('');
      approved.push(0);
      pending.push(0);
    }
    return slot;
  };
  db.function('ledger_approved_end', { deterministic: false, directOnly: true }, (customer: number, day: string, change: number) => {
    if (day < lastDay || (day === lastDay && customer <= lastCustomer)) {
      throw new Error(`customer_points_daily: customer ${customer}'s day ${day} came after customer ${lastCustomer}'s day ${lastDay}; the build expects day and customer order`);
    }
    lastDay = day;
    lastCustomer = customer;
    lastSlot = slotOf(customer);
    if (firstDay[lastSlot] === '') firstDay[lastSlot] = day;
    const end = (approved[lastSlot] += change);
    if (!Number.isSafeInteger(change) || !Number.isSafeInteger(end)) throw new PointsBeyondExactError(`customer ${customer}'s approved points on ${day}`, end);
    return end;
  });
  db.function('ledger_pending_end', { deterministic: false, directOnly: true }, (customer: number, change: number) => {
    const slot = customer === lastCustomer ? lastSlot : slotOf(customer);
    const end = (pending[slot] += change);
    if (!Number.isSafeInteger(change) || !Number.isSafeInteger(end)) throw new PointsBeyondExactError(`customer ${customer}'s pending points on ${lastDay}`, end);
    return end;
  });
  return balances;
}

/**
 * The changes of each customer's rows from `from` on as the table holds them before an update rewrites those days:
 * a customer's balances before `from` are those of ledger_balances (after their last row) less these.
 */
const OLD_CHANGES = `SELECT customer_id, sum(approved_change) AS approved, sum(pending_change) AS pending
  FROM customer_points_daily WHERE day >= @from GROUP BY customer_id`;

/**
 * An update's rows of `from` and later: each customer's running sums, by `ledger_update_approved_end` and
 * `ledger_update_pending_end` as the groups come in customer and day order, from their balances before `from`. The
 * day is computed, and the day's movements tallied, by `ledger_row_day` in a subquery of its own (LIMIT -1 keeps
 * SQLite from merging it into the grouping), once a row; the days before `from` that the index range also covers
 * have none.
 */
function rowsFrom(from: string): string {
  return `WITH g AS MATERIALIZED (
       SELECT customer_id, day, sum(approved) AS approved, sum(pending) AS pending, count(*) AS transactions
       FROM (SELECT ${LEDGER_ROW_DAY_SQL} AS day, customer_id, coalesce(points_approved, 0) AS approved, coalesce(points_pending, 0) AS pending
             FROM ${transactionsScan(from)} WHERE ${UPDATE_TRANSACTIONS_WHERE} LIMIT -1)
       WHERE day IS NOT NULL AND customer_id IS NOT NULL
       GROUP BY customer_id, day),
     old AS MATERIALIZED (${OLD_CHANGES})
     SELECT customer_id, day, approved, pending, ledger_update_approved_end(customer_id, day, approved_before, approved),
       ledger_update_pending_end(customer_id, day, pending_before, pending), transactions
     FROM (SELECT g.customer_id, g.day, g.approved, g.pending, g.transactions,
             coalesce(b.approved_end, 0) - coalesce(o.approved, 0) AS approved_before, coalesce(b.pending_end, 0) - coalesce(o.pending, 0) AS pending_before
           FROM g LEFT JOIN ledger_balances AS b ON b.customer_id = g.customer_id LEFT JOIN old AS o ON o.customer_id = g.customer_id
           ORDER BY g.customer_id, g.day)`;
}

/**
 * Registers the running balances of an update's rows, which come customer by customer in day order: each customer's
 * start from their balances before the rebuilt days. A window function would sort and buffer them again. A group
 * out of that order would give wrong balances, so it stops the update.
 */
function registerUpdateBalances(db: Db): void {
  const running = (balance: 'approved' | 'pending'): ((customer: number, day: string, before: number, change: number) => number) => {
    let current = Number.NaN;
    let lastDay = '';
    let end = 0;
    return (customer, day, before, change) => {
      if (customer !== current) {
        if (customer < current) throw new Error(`customer_points_daily: customer ${customer} came after customer ${current}; the update expects customer order`);
        current = customer;
        end = before;
      } else if (day <= lastDay) {
        throw new Error(`customer_points_daily: customer ${customer}'s day ${day} came after ${lastDay}; the update expects day order`);
      }
      lastDay = day;
      end += change;
      if (!Number.isSafeInteger(change) || !Number.isSafeInteger(end)) throw new PointsBeyondExactError(`customer ${customer}'s ${balance} points on ${day}`, end);
      return end;
    };
  };
  db.function('ledger_update_approved_end', { deterministic: false, directOnly: true }, running('approved'));
  db.function('ledger_update_pending_end', { deterministic: false, directOnly: true }, running('pending'));
}

/**
 * Brings ledger_balances up to date with an update's new rows from `from` (in temp.ledger_customer_days), before
 * customer_points_daily's rows from `from` are replaced: a customer with new rows takes the balances of their last;
 * one with old rows from `from` on and no new ones, those before less the old rows' changes. A customer left with no
 * row at all leaves the table.
 */
function updateBalances(db: Db, from: string): void {
  db.prepare(
    `INSERT INTO ledger_balances (customer_id, first_day, approved_end, pending_end)
     SELECT n.customer_id, n.first_day, l.approved_end, l.pending_end
     FROM (SELECT customer_id, min(day) AS first_day, max(day) AS last_day FROM temp.ledger_customer_days GROUP BY customer_id) AS n
     JOIN temp.ledger_customer_days AS l ON l.customer_id = n.customer_id AND l.day = n.last_day
     WHERE true
     ON CONFLICT (customer_id) DO UPDATE SET first_day = CASE WHEN first_day < @from THEN first_day ELSE excluded.first_day END,
       approved_end = excluded.approved_end, pending_end = excluded.pending_end`,
  ).run({ from });
  db.prepare(
    `UPDATE ledger_balances SET approved_end = ledger_balances.approved_end - o.approved, pending_end = ledger_balances.pending_end - o.pending
     FROM (${OLD_CHANGES}) AS o
     WHERE o.customer_id = ledger_balances.customer_id AND NOT EXISTS (SELECT 1 FROM temp.ledger_customer_days AS n WHERE n.customer_id = o.customer_id)`,
  ).run({ from });
  db.prepare(
    `DELETE FROM ledger_balances WHERE first_day >= @from
       AND NOT EXISTS (SELECT 1 FROM temp.ledger_customer_days AS n WHERE n.customer_id = ledger_balances.customer_id)`,
  ).run({ from });
}
