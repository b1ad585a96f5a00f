import type { Db } from '../db/open.js';

/** A customer's balances at the end of a day: their last customer_points_daily row on or before it. */
export interface BalanceAsOf {
  customer_id: number;
  merchant_id: string | null;
  approved: number;
  pending: number;
  /** The day of that row; null when the customer had no transaction by then (balances 0). */
  last_movement_day: string | null;
}

/** Whether the mirror holds a built points ledger (a mirror from before it, or never synced since, does not). */
export function ledgerBuilt(db: Db): boolean {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ledger_state'").get();
  return table !== undefined && db.prepare('SELECT 1 FROM ledger_state').get() !== undefined;
}

/** Every customer's balances as of the end of `day` (in program.timeZone), or one customer's; by id. */
export function balancesAsOf(db: Db, day: string, customerId?: number): BalanceAsOf[] {
  return db
    .prepare(
      `SELECT c.id AS customer_id, c.merchant_id, coalesce(b.approved_end, 0) AS approved, coalesce(b.pending_end, 0) AS pending, b.day AS last_movement_day
       FROM customers AS c
       LEFT JOIN customer_points_daily AS b ON b.customer_id = c.id
         AND b.day = (SELECT max(day) FROM customer_points_daily WHERE customer_id = c.id AND day <= @day)
       WHERE c._removed_at IS NULL ${customerId === undefined ? '' : 'AND c.id = @customerId'}
       ORDER BY c.id`,
    )
    .all({ day, customerId }) as BalanceAsOf[];
}
