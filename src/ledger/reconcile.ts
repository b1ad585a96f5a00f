import type { Db } from '../db/open.js';

/** One balance of one customer that its transactions do not add up to. */
export interface LedgerDifference {
  customer_id: number;
  balance: 'approved' | 'pending';
  /** The balance the customers stream reports. */
  customer: number;
  /** The sum of the customer's transactions in the mirror. */
  transactions: number;
}

/** A difference a read in flight explains: the next sync brings what is missing, so it is not a defect (yet). */
export interface PendingDifference extends LedgerDifference {
  reason: string;
}

export interface LedgerCheck {
  customers: number;
  balanced: number;
  pending: PendingDifference[];
  defects: LedgerDifference[];
}

interface CustomerSums {
  id: number;
  points_approved: number | null;
  points_pending: number | null;
  /** When this process last stored a change of the customer (its clock). */
  stored_at: string;
  approved: number;
  pending: number;
  /** When this process last stored one of the customer's transactions. */
  transactions_stored_at: string | null;
}

/**
 * For every customer the mirror holds, whether their transactions add up to the balances the customers stream
 * reports, for points_approved and points_pending each (the spec: every addition or removal of points is also a
 * transaction). A difference is pending when a read in flight explains it: the customer's record was stored after
 * the last transactions sync began (their new transactions may not be read yet), or one of their transactions was
 * stored after the last customers sync began (their record may be older than it). Both sides are this process's
 * clock (`_synced_at`, `sync_runs`), so the API's clock need not be trusted. Every other difference is a defect.
 * Reads only.
 */
export function checkLedger(db: Db): LedgerCheck {
  // A run under way counts too: it may be storing one side right now.
  const lastStart = (stream: string): string | null => db.prepare('SELECT max(started_at) FROM sync_runs WHERE stream = ?').pluck().get(stream) as string | null;
  const transactionsRead = lastStart('transactions');
  const customersRead = lastStart('customers');
  const rows = db
    .prepare(
      `SELECT c.id, c.points_approved, c.points_pending, c._synced_at AS stored_at, coalesce(t.approved, 0) AS approved, coalesce(t.pending, 0) AS pending,
              t.stored_at AS transactions_stored_at
       FROM customers AS c LEFT JOIN (
         SELECT customer_id, sum(points_approved) AS approved, sum(points_pending) AS pending, max(_synced_at) AS stored_at
         FROM transactions WHERE _removed_at IS NULL GROUP BY customer_id) AS t ON t.customer_id = c.id
       WHERE c._removed_at IS NULL ORDER BY c.id`,
    )
    .iterate() as IterableIterator<CustomerSums>;
  const check: LedgerCheck = { customers: 0, balanced: 0, pending: [], defects: [] };
  for (const row of rows) {
    check.customers += 1;
    const differences: LedgerDifference[] = [];
    if (row.points_approved !== row.approved) differences.push({ customer_id: row.id, balance: 'approved', customer: row.points_approved ?? 0, transactions: row.approved });
    if (row.points_pending !== row.pending) differences.push({ customer_id: row.id, balance: 'pending', customer: row.points_pending ?? 0, transactions: row.pending });
    if (differences.length === 0) {
      check.balanced += 1;
      continue;
    }
    const reason = inFlight(row, transactionsRead, customersRead);
    if (reason === null) check.defects.push(...differences);
    else check.pending.push(...differences.map((difference) => ({ ...difference, reason })));
  }
  return check;
}

function inFlight(row: CustomerSums, transactionsRead: string | null, customersRead: string | null): string | null {
  if (transactionsRead === null || customersRead === null) return 'the customers or the transactions stream has never been synced';
  if (row.stored_at >= transactionsRead) return 'the customer changed after the last transactions sync began: the next sync reads their transactions';
  if (row.transactions_stored_at !== null && row.transactions_stored_at >= customersRead) {
    return 'a transaction of the customer was stored after the last customers sync began: the next sync reads their balance';
  }
  return null;
}
