import type { Config } from '../config.js';
import type { Db } from '../db/open.js';
import { isoToMicrosNumber } from '../isoTimestamp.js';
import { STREAMS } from '../streams/index.js';
import { newestCreatedAt, newestUpdatedAt } from '../sync/storedFacts.js';
import { HAS_LEDGER_DAY_SQL } from './localDay.js';
import { overlapStart, updatedAtMin } from '../sync/watermarks.js';

/** One balance of one customer that its transactions do not add up to. */
export interface LedgerDifference {
  /** Null for the transactions that name no customer (see LedgerCheck.unattributed_transactions). */
  customer_id: number | null;
  balance: 'approved' | 'pending';
  /** The balance the customers stream reports; null when it holds no record of the customer. */
  customer: number | null;
  /** The sum of the customer's transactions in the mirror that the ledger counts (those it gives a day: see HAS_LEDGER_DAY_SQL). */
  transactions: number;
  /** Present when some of the customer's transactions have no ledger day (a created_at that cannot be read, or a zero date before 1970). */
  undated_transactions?: number;
}

/** A difference a read in flight explains: the next sync brings what is missing, so it is not a defect (yet). */
export interface PendingDifference extends LedgerDifference {
  /** Always a customer's: points that name no customer are never pending. */
  customer_id: number;
  reason: string;
}

export interface LedgerCheck {
  /** Customers checked: those the customers stream holds and those with a transaction in the mirror. */
  customers: number;
  balanced: number;
  pending: PendingDifference[];
  defects: LedgerDifference[];
  /** Transactions the ledger gives no day (a created_at the sync could not read, stored NULL, or one before 1970): in no ledger table. */
  undated_transactions: number;
  /**
   * Transactions the ledger counts that name no customer (`customer: null`, as a deleted customer's may come, or an
   * id that is no integer): points_ledger_daily holds their points and no customer's balance does.
   */
  unattributed_transactions: number;
}

/** The sync's overlaps: they say which late-visible rows the next sync still reads. */
export type LedgerCheckSettings = Pick<Config['sync'], 'idOverlapHours' | 'updatedAtOverlapMinutes'>;

interface CustomerSums {
  id: number;
  /** 1 when the customers stream holds a record of the customer (not marked removed). */
  known: number;
  points_approved: number | null;
  points_pending: number | null;
  /** The API's time of the customer's last change, the customers sync's own watermark. */
  updated_at: string | null;
  /** When this process last stored a change of the customer (its clock). */
  stored_at: string | null;
  approved: number;
  pending: number;
  undated: number;
  /** The points of those undated transactions, per balance. */
  undated_approved: number;
  undated_pending: number;
  /** When this process last stored one of the customer's transactions. */
  transactions_stored_at: string | null;
}

/** What the next sync of each stream re-reads, and when the last one began. */
interface Reads {
  transactionsStarted: string | null;
  customersStarted: string | null;
  /**
   * Whether a sync of the stream ever succeeded: before that, the mirror holds at most the part a failed or
   * interrupted read stored, and the resumed read brings the rest.
   */
  transactionsCompleted: boolean;
  customersCompleted: boolean;
  /** The next transactions sync re-reads every id created from here on (its id overlap); null when none is stored. */
  transactionsWindowMicros: number | null;
  /** The next customers sync reads every customer updated from here on; null when none is stored. */
  customersWindowMicros: number | null;
}

/**
 * For every customer, whether the transactions the ledger counts add up to the balances the customers stream
 * reports, for points_approved and points_pending each (the spec: every addition or removal of points is also a
 * transaction). The customers are those the customers stream holds and those with a transaction, so a customer
 * missing from one side is never skipped. A transaction the ledger gives no day (see HAS_LEDGER_DAY_SQL) is in no table, so it
 * is not counted: the balance `balances` prints is short of it, and the difference shows here.
 *
 * A difference is pending when a read in flight explains it (see `inFlight`) and no undated transaction has points
 * on that balance (no sync gives those a day); every other difference is a defect. Reads only.
 *
 * The transactions are read in table order and sorted by customer (LIMIT -1 keeps SQLite from merging the read
 * into the grouping): grouped by the customer_id index instead, each row is fetched at random, ten times slower on
 * 1M transactions (8 s against 0.8), and whether a row has a day would be computed once for each sum.
 */
export function checkLedger(db: Db, settings: LedgerCheckSettings): LedgerCheck {
  const reads = nextReads(db, settings);
  const rows = sumsBeyondSqlite(db, () =>
    db
      .prepare(
        `WITH sums AS (
           SELECT customer_id,
                  coalesce(sum(points_approved) FILTER (WHERE dated), 0) AS approved,
                  coalesce(sum(points_pending) FILTER (WHERE dated), 0) AS pending,
                  count(*) FILTER (WHERE NOT dated) AS undated,
                  coalesce(sum(points_approved) FILTER (WHERE NOT dated), 0) AS undated_approved,
                  coalesce(sum(points_pending) FILTER (WHERE NOT dated), 0) AS undated_pending,
                  max(_synced_at) AS stored_at
           FROM (SELECT customer_id, points_approved, points_pending, _synced_at, ${HAS_LEDGER_DAY_SQL} AS dated
                 FROM transactions WHERE _removed_at IS NULL AND customer_id IS NOT NULL LIMIT -1)
           GROUP BY customer_id),
         ids AS (SELECT id FROM customers WHERE _removed_at IS NULL UNION SELECT customer_id FROM sums)
         SELECT ids.id, c.id IS NOT NULL AS known, c.points_approved, c.points_pending, c.updated_at, c._synced_at AS stored_at,
                coalesce(s.approved, 0) AS approved, coalesce(s.pending, 0) AS pending, coalesce(s.undated, 0) AS undated,
                coalesce(s.undated_approved, 0) AS undated_approved, coalesce(s.undated_pending, 0) AS undated_pending, s.stored_at AS transactions_stored_at
         FROM ids
         LEFT JOIN customers AS c ON c.id = ids.id AND c._removed_at IS NULL
         LEFT JOIN sums AS s ON s.customer_id = ids.id
         ORDER BY ids.id`,
      )
      .all() as CustomerSums[],
  );
  const check: LedgerCheck = { customers: 0, balanced: 0, pending: [], defects: [], undated_transactions: 0, unattributed_transactions: 0 };
  // First, so that a recorded check, which keeps the first defects, always names them.
  const unattributed = sumsBeyondSqlite(db, () => unattributedSums(db));
  check.unattributed_transactions = unattributed.count;
  for (const [balance, points] of [['approved', unattributed.approved], ['pending', unattributed.pending]] as const) {
    // No sync gives an immutable transaction a customer later: never pending.
    if (points !== 0) check.defects.push({ customer_id: null, balance, customer: null, transactions: points });
  }
  for (const row of rows) {
    check.customers += 1;
    check.undated_transactions += row.undated;
    const differences = differencesOf(row, reads.transactionsCompleted);
    if (differences.length === 0) {
      check.balanced += 1;
      continue;
    }
    const reason = inFlight(db, row, reads);
    for (const difference of differences) {
      // Points on no day stay off the ledger whatever a later sync brings: never pending.
      const undatedPoints = difference.balance === 'approved' ? row.undated_approved : row.undated_pending;
      if (reason === null || undatedPoints !== 0) check.defects.push(difference);
      else check.pending.push({ ...difference, reason });
    }
  }
  return check;
}

/**
 * The transactions with no customer id that the ledger counts (a day of 1970 or later), and their points: the
 * difference between points_ledger_daily's outstanding points and the sum of every customer's balance. By the
 * customer_id index, which holds the NULLs together.
 */
function unattributedSums(db: Db): { count: number; approved: number; pending: number } {
  return db
    .prepare(
      `SELECT count(*) AS count, coalesce(sum(points_approved), 0) AS approved, coalesce(sum(points_pending), 0) AS pending
       FROM transactions WHERE customer_id IS NULL AND _removed_at IS NULL AND (${HAS_LEDGER_DAY_SQL}) = 1`,
    )
    .get() as { count: number; approved: number; pending: number };
}

/** A difference of one customer's balance (the other kind names no customer). */
type CustomerDifference = LedgerDifference & { customer_id: number };

function differencesOf(row: CustomerSums, transactionsRead: boolean): CustomerDifference[] {
  const undated = row.undated > 0 ? { undated_transactions: row.undated } : {};
  const difference = (balance: LedgerDifference['balance'], customer: number | null, transactions: number): CustomerDifference => ({ customer_id: row.id, balance, customer, transactions, ...undated });
  // Without a record there is no balance to agree with: both are named, so the customer is never counted balanced.
  if (row.known === 0) return [difference('approved', null, row.approved), difference('pending', null, row.pending)];
  // A balance the record leaves out counts 0, as a points field a transaction leaves out does.
  const approved = row.points_approved ?? 0;
  const pending = row.points_pending ?? 0;
  // Before a transactions sync completes, a balance of 0 only equals a sum over nothing read: it was not
  // compared, so both are named (pending, as inFlight says why), and a check of nobody never shows as "Balanced".
  if (!transactionsRead) return [difference('approved', approved, row.approved), difference('pending', pending, row.pending)];
  const differences: CustomerDifference[] = [];
  if (approved !== row.approved) differences.push(difference('approved', approved, row.approved));
  if (pending !== row.pending) differences.push(difference('pending', pending, row.pending));
  return differences;
}

/**
 * Runs the sums, turning SQLite's bare "integer overflow" (a customer's points adding up past 2^63, which only a
 * broken gateway's values can) into one sentence naming the largest transaction.
 */
function sumsBeyondSqlite<T>(db: Db, sum: () => T): T {
  try {
    return sum();
  } catch (error) {
    if (!(error instanceof Error) || error.message !== 'integer overflow') throw error;
    const largest = db
      .prepare(
        // As REAL: abs() of the smallest integer overflows too.
        `SELECT id, customer_id, max(abs(CAST(coalesce(points_approved, 0) AS REAL)), abs(CAST(coalesce(points_pending, 0) AS REAL))) AS points FROM transactions
         WHERE _removed_at IS NULL ORDER BY points DESC LIMIT 1`,
      )
      .get() as { id: number; customer_id: number | null; points: number };
    throw new Error(
      `verify --ledger: a customer's transactions add up past 9,223,372,036,854,775,807 points, beyond what SQLite sums; the mirror holds points ` +
        `no program gives (the largest: transaction ${largest.id} of customer ${String(largest.customer_id)}, ${largest.points.toLocaleString('en-US')} points).`,
      { cause: error },
    );
  }
}

function nextReads(db: Db, settings: LedgerCheckSettings): Reads {
  // A run under way counts too: it may be storing one side right now.
  const lastStart = (stream: string): string | null => db.prepare('SELECT max(started_at) FROM sync_runs WHERE stream = ?').pluck().get(stream) as string | null;
  const completed = (stream: string): boolean => db.prepare(`SELECT 1 FROM sync_runs WHERE stream = ? AND status = 'succeeded' LIMIT 1`).get(stream) !== undefined;
  // The very bounds the sync computes for its next read (sync/plan.ts), so "the next sync brings it" is what it does.
  const transactionsWindow = overlapStart(newestCreatedAt(db, STREAMS.transactions), settings.idOverlapHours);
  const customersWindow = updatedAtMin(newestUpdatedAt(db, STREAMS.customers), settings.updatedAtOverlapMinutes);
  return {
    transactionsStarted: lastStart('transactions'),
    customersStarted: lastStart('customers'),
    transactionsCompleted: completed('transactions'),
    customersCompleted: completed('customers'),
    transactionsWindowMicros: transactionsWindow === null ? null : isoToMicrosNumber(transactionsWindow),
    customersWindowMicros: customersWindow === undefined ? null : isoToMicrosNumber(customersWindow),
  };
}

/**
 * Why a read in flight explains the customer's difference, or null when nothing does (a defect):
 * - one side was stored after the last sync of the other began (this process's clock: `_synced_at`, `sync_runs`);
 * - the customer changed (`updated_at`) inside the window the next transactions sync re-reads for late-visible ids
 *   (sync.idOverlapHours before the newest stored transaction, the API's clock on both sides): a transaction in
 *   their balance may not be visible yet. One that is older than the window is never read again, so the difference
 *   stands as a defect once the mirror holds a transaction created idOverlapHours after the customer's last change;
 * - the customers stream holds no record of the customer, and their newest transaction lies inside the window the
 *   next customers sync reads (sync.updatedAtOverlapMinutes before the newest stored updated_at).
 */
function inFlight(db: Db, row: CustomerSums, reads: Reads): string | null {
  if (reads.customersStarted === null) return 'the customers stream has never been synced: no balance to compare with';
  if (reads.transactionsStarted === null) return 'the transactions stream has never been synced';
  if (!reads.customersCompleted) return 'no sync of the customers stream has completed yet: the next one reads the balances it did not';
  if (!reads.transactionsCompleted) return 'no sync of the transactions stream has completed yet: the next one reads the transactions it did not';
  if (row.stored_at !== null && row.stored_at >= reads.transactionsStarted) return 'the customer changed after the last transactions sync began: the next sync reads their transactions';
  if (row.transactions_stored_at !== null && row.transactions_stored_at >= reads.customersStarted) {
    return 'a transaction of the customer was stored after the last customers sync began: the next sync reads their balance';
  }
  if (row.known === 1) {
    const changed = row.updated_at === null ? null : isoToMicrosNumber(row.updated_at);
    if (changed !== null && reads.transactionsWindowMicros !== null && changed >= reads.transactionsWindowMicros) {
      return 'the customer changed within sync.idOverlapHours of the newest transaction: a transaction of theirs may not be visible yet, and the next sync re-reads that window';
    }
    return null;
  }
  const newest = newestTransactionMicros(db, row.id);
  if (newest !== null && reads.customersWindowMicros !== null && newest >= reads.customersWindowMicros) {
    return 'the customers stream holds no record of the customer yet, and the next customers sync reads every customer changed since their newest transaction';
  }
  return null;
}

/** The customer's newest transaction by time (stored text in any ISO 8601 form, so not by text order). */
function newestTransactionMicros(db: Db, customerId: number): number | null {
  let newest: number | null = null;
  for (const at of db.prepare('SELECT created_at FROM transactions WHERE customer_id = ? AND created_at IS NOT NULL AND _removed_at IS NULL').pluck().iterate(customerId) as IterableIterator<string>) {
    const micros = isoToMicrosNumber(at);
    if (micros !== null && (newest === null || micros > newest)) newest = micros;
  }
  return newest;
}
