import type { Db } from '../db/open.js';

/** A customer's balances at the end of a day: their last customer_points_daily row on or before it. */
export interface BalanceAsOf {
  customer_id: number;
  merchant_id: string | null;
  approved: number;
  pending: number;
  /** The day of that row; null when the customer had no transaction by then (balances 0). */
  last_movement_day: string | null;
  /** False for a customer known only from their transactions: the customers stream holds no record of them (not synced yet, or missing). */
  in_customers: boolean;
}

/** What the last build of the points ledger was made with, and its today: the last day its tables hold. */
export interface LedgerBuild {
  timeZone: string;
  pointValue: string | null;
  lastDay: string;
}

/**
 * The mirror's last build of the points ledger, or null when it holds none (a mirror from before it, or never
 * synced since). Readers name its zone and point value: the config may have changed them since the last sync.
 */
export function lastLedgerBuild(db: Db): LedgerBuild | null {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ledger_state'").get();
  if (table === undefined) return null;
  const build = db.prepare('SELECT time_zone AS timeZone, point_value AS pointValue, last_day AS lastDay FROM ledger_state WHERE id = 1').get() as LedgerBuild | undefined;
  return build ?? null;
}

/** When the ledger was last built (ISO, this machine's clock), or null when it never was. */
export function ledgerBuiltAt(db: Db): string | null {
  return (db.prepare('SELECT built_at FROM ledger_state WHERE id = 1').pluck().get() as string | null | undefined) ?? null;
}

/**
 * Every customer's balances as of the end of `day` (in program.timeZone), or one customer's; by id. Every customer
 * is those the customers stream holds and those with a transaction (the customers verify --ledger checks), so a
 * customer whose record is not synced (yet) still shows with the balance their transactions give, 0 when none of
 * them has a day.
 */
export function balancesAsOf(db: Db, day: string, customerId?: number): BalanceAsOf[] {
  const only = (column: string): string => (customerId === undefined ? '' : `AND ${column} = @customerId`);
  // Every customer's: one pass over the table in its order. By the customer index, each row is fetched at random
  // for _removed_at (six seconds on the 1M bench mirror, against half a second).
  const transactions = customerId === undefined ? 'transactions NOT INDEXED' : 'transactions';
  const rows = db
    .prepare(
      `WITH ids AS (
         SELECT id FROM customers WHERE _removed_at IS NULL ${only('id')}
         UNION SELECT customer_id FROM ${transactions} WHERE customer_id IS NOT NULL AND _removed_at IS NULL ${only('customer_id')}),
       -- The table is kept in day order: one pass over its days up to @day, not a lookup a customer. SQLite takes a
       -- bare column beside max() from the row that holds the maximum.
       last AS MATERIALIZED (
         SELECT customer_id, max(day) AS day, approved_end, pending_end FROM customer_points_daily WHERE day <= @day ${only('customer_id')} GROUP BY customer_id)
       SELECT ids.id AS customer_id, c.merchant_id, coalesce(b.approved_end, 0) AS approved, coalesce(b.pending_end, 0) AS pending, b.day AS last_movement_day,
              c.id IS NOT NULL AS in_customers
       FROM ids
       LEFT JOIN customers AS c ON c.id = ids.id AND c._removed_at IS NULL
       LEFT JOIN last AS b ON b.customer_id = ids.id
       ORDER BY ids.id`,
    )
    .all({ day, customerId }) as Array<Omit<BalanceAsOf, 'in_customers'> & { in_customers: number }>;
  return rows.map((row) => ({ ...row, in_customers: row.in_customers === 1 }));
}
