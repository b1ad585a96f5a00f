import type { Db } from '../db/open.js';
import type { Logger } from '../log.js';
import { recordLedgerCheck } from './ledgerChecks.js';
import { checkLedger, type LedgerCheck } from './reconcile.js';

/** Reconciles the balances, records the result for `status` and the metric, and logs one summary line. */
export function reconcileAndRecord(db: Db, now: Date, logger: Logger): LedgerCheck {
  const check = checkLedger(db);
  recordLedgerCheck(db, check, now.toISOString());
  const summary = { customers: check.customers, balanced: check.balanced, pending: check.pending.length, defects: check.defects.length };
  if (check.defects.length > 0) logger.warn({ ledger: summary, examples: check.defects.slice(0, 5) }, `${check.defects.length} balances do not equal the sum of their customer's transactions`);
  else logger.info({ ledger: summary }, 'every balance equals the sum of its transactions');
  return check;
}
